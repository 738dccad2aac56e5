"""Which heads a construction may use, and the layout spelling of a finished plan.

`head_patterns` maps the ``layout`` argument of `construct` to the allowed head patterns
(after checking that the formula lies in the matching fragment) and picks the pattern of the
``start`` head; `layout_spelling` writes the per-layer custom spelling of `models.layouts`.
"""

from __future__ import annotations

from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.layouts import parse_preset
from expressivity.logic.fragments import check_fragment
from expressivity.logic.syntax import Formula, Start
from expressivity.logic.temporal import BoundedPast, Historically, Past, Yesterday
from expressivity.models.construct.plan import Plan

__all__ = ["head_patterns", "layout_spelling"]

def _needs(formula: Formula) -> tuple[set[str], str]:
    """Head patterns a formula needs with the default layout, and the pattern for ``start``."""
    pats: set[str] = set()
    for sub in formula.subformulas():
        if isinstance(sub, Past | Historically):
            pats.add("G")
        elif isinstance(sub, Yesterday):
            pats.add("L1")
        elif isinstance(sub, BoundedPast):
            pats.add(f"L{sub.k}")
    local = sorted(int(p[1:]) for p in pats if p.startswith("L"))
    start = f"L{local[0]}" if local else "G"
    if any(isinstance(s, Start) for s in formula.subformulas()) or not pats:
        pats.add(start)
    return pats, start


def head_patterns(formula: Formula, layout: str | None) -> tuple[frozenset[str], str]:
    """(allowed head patterns, pattern of ``start``), after checking the fragment."""
    if layout is None:
        ops: tuple[str, ...] = ("P", "Y")
        context = "construct"
    else:
        preset = parse_preset(layout)
        if (preset is None or preset.family not in ("global", "local", "hybrid")
                or preset.global_heads is not None):
            raise ConfigError(f"layout: construct takes None, 'global', 'local-k' or 'hybrid-k', "
                              f"got {layout!r}")
        k = preset.window or 0
        bounded = "Y" if k == 1 else f"Y<={k}"
        ops = {"global": ("P",), "local": (bounded,), "hybrid": ("P", bounded)}[preset.family]
        context = f"construct with layout {layout}"
    try:
        check_fragment(formula, ops, context=context)
    except UnsupportedFragmentError as err:
        raise UnsupportedFragmentError(
            f"{err}; construct compiles only LTL[P, Y^{{≤k}}] formulas (P, H, Y, Y^k, Y<=k, "
            "start, eos and Boolean connectives)"
        ) from None
    if layout is None:
        pats, start = _needs(formula)
        return frozenset(pats), start
    if ops == ("P",):
        return frozenset({"G"}), "G"
    local = f"L{k}"
    return frozenset({local} | ({"G"} if "P" in ops else set())), local


def layout_spelling(p: Plan, patterns: frozenset[str]) -> tuple[str, int, list[list[int]]]:
    """Custom layout spelling, heads per layer, and each plan head's index in its layer."""
    rows: list[list[str]] = [[] for _ in range(p.n_layers)]
    index: list[list[int]] = [[] for _ in range(p.n_layers)]
    for op in p.heads:
        index[op.layer - 1].append(len(rows[op.layer - 1]))
        rows[op.layer - 1].append(op.pattern)
    n_heads = max([1, *map(len, rows)])
    used = [op.pattern for op in p.heads] or sorted(patterns)
    texts = []
    for row in rows:
        row += [row[0] if row else used[0]] * (n_heads - len(row))
        runs: list[tuple[str, int]] = []
        for pat in row:
            if runs and runs[-1][0] == pat:
                runs[-1] = (pat, runs[-1][1] + 1)
            else:
                runs.append((pat, 1))
        texts.append(",".join(f"{n}x{pat}" for pat, n in runs))
    return ";".join(texts), n_heads, index
