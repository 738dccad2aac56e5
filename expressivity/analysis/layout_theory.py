"""Which theory predicts a cell: its `classify` layout, qualified by its periods and logit scale.

Layouts map to the theory by name: ``global`` (LTL[P]), ``local-k`` (LTL[Y^≤k]) and
``hybrid-k`` / ``hybrid-k:g=G`` (LTL[P,Y^≤k]; the head split is a free design choice,
docs/theory.md §1); every other valid spelling (dilated, block, longformer, bigbird, custom) is
decided on its operator set (`algebra.patterns`); an invalid spelling has no prediction
("unknown"). A cell of another positional encoding (`sweeps.cells`: ``global+rope``,
``hybrid-1+periodic-rope(2)``) is predicted only for the periodic encodings, by
``global+periodic`` / ``hybrid-k+periodic`` (LTL[P,MOD], LTL[P,Y,MOD]), and only when the
periods can express the moduli the language needs (`with_periods`); the other encodings have
no theory here ("unknown"). Cells with length-aware attention (``+log-n``, ``+ssmax``,
`sweeps.cell_labels.cell_scale`) are predicted like their NoPE layout only where docs/theory.md §9
proves the class unchanged (NoPE ``global``, ``local-k``, ``hybrid-k``, ``dilated-k-d``,
``block-b``, ``longformer-k-1``); a ``bigbird`` cell keeps its "yes" (random keys: its
construction stays exact) and is "unknown" otherwise (`scaled_verdict`); the others (more
global tokens) are "unknown". Encoder cells (a readout other than EOS) have no causal class
here: `encoder_predictions` predicts them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from expressivity.algebra.classification import PERIODIC, Classification
from expressivity.algebra.layout_verdicts import has_mixers
from expressivity.algebra.locality import LayoutVerdict
from expressivity.algebra.modular import stability_index
from expressivity.algebra.patterns import layout_fragment
from expressivity.errors import ExpressivityError
from expressivity.layouts import parse_preset
from expressivity.sweeps.cell_labels import Cell

__all__ = ["classify_arguments", "no_theory", "scaled_verdict", "theory_layout", "with_periods"]


def theory_layout(layout: str) -> str | None:
    """The `classify` layout name a model layout (or cell label, `sweeps.cells`) is predicted
    by, or None if it has none: ``global+periodic-rope(2)`` → ``global+periodic``; NoPE cells
    by their layout; cells of other encodings (RoPE, ALiBi, ...) have none. A length-aware
    cell (`sweeps.cell_labels.cell_scale`) is predicted by its NoPE layout where docs/theory.md §9
    proves the class unchanged (global, local-k, hybrid-k, dilated, block, longformer-k-1) or
    its "yes" kept (bigbird: random keys), else it has none."""
    cell = Cell.parse(layout)  # its layer suffix plays no part here
    if cell.readout != "eos":  # no causal class: `encoder_predictions` predicts the cell
        return None
    if cell.scale != "none":
        return _scaled_theory(cell)
    base, encoding = cell.layout, cell.positional
    if encoding == "none":
        return _theory_of_layout(base)
    named = _theory_of_layout(base)
    preset = parse_preset(named) if named is not None else None
    if (encoding.startswith("periodic-") and preset is not None and preset.global_heads is None
            and preset.family in ("global", "hybrid")):
        return f"{named}{PERIODIC}"
    return None


#: Layout families whose class docs/theory.md §9 proves unchanged by length-aware logits:
#: every head's key count is definable in the family's own logic (the key-count lemma there;
#: Longformer with one global token, ``longformer-k-1``, too); the mixers, which have no
#: attention head, and their hybrids ``samba-k`` and ``jamba-n`` (star-free either way).
_SCALE_PROVED = ("global", "local", "hybrid", "interleaved", "dilated", "block",
                 "mamba", "mamba-signed", "s4d", "deltanet", "samba", "jamba")
_SCALED_NOTE = ("; length-aware logits (attention_scale) leave this class unchanged under "
                "fixed precision (proved, docs/theory.md §9)")
#: Layout families with random keys: scaled, every "yes" stays "yes" (its construction is exact
#: at every key count) and nothing else is claimed (docs/theory.md §9, "Random keys").
_SCALE_YES_ONLY = ("bigbird",)
_SCALED_YES_NOTE = ("; length-aware logits (attention_scale) keep the construction exact at "
                    "every key count (proved, docs/theory.md §9, random keys)")
_SCALED_UNKNOWN = ("no theory for random keys with attention_scale: a row's key count is a "
                   "seed-dependent function of its position; only a 'yes' carries over "
                   "(docs/theory.md §9, random keys)")


def _scaled_theory(cell: Cell) -> str | None:
    named = _theory_of_layout(cell.layout) if cell.positional == "none" else None
    preset = parse_preset(named) if named is not None else None
    if preset is None or preset.global_heads is not None:
        return None
    one_token_longformer = preset.family == "longformer" and preset.params[1] == 1
    proved = preset.family in _SCALE_PROVED or one_token_longformer
    return named if proved or preset.family in _SCALE_YES_ONLY else None


def scaled_verdict(theory: str, status: str, reason: str) -> tuple[str, str]:
    """The (status, reason) of a length-aware cell whose NoPE layout ``theory`` answers
    ``status`` for ``reason`` (docs/theory.md §9)."""
    preset = parse_preset(theory)
    if preset is not None and preset.family in _SCALE_YES_ONLY:
        return (status, reason + _SCALED_YES_NOTE) if status == "yes" else (
            "unknown", f"{reason}; {_SCALED_UNKNOWN}")
    return status, reason + _SCALED_NOTE


def _theory_of_layout(layout: str) -> str | None:
    preset = parse_preset(layout)
    if preset is not None and preset.family == "global":
        return "global"
    if preset is None or preset.window is None or (
        preset.global_heads is not None and preset.family == "local"
    ):
        try:
            if not has_mixers(layout):  # SSM layouts: `classify` decides their mixer class
                layout_fragment(layout)
        except ExpressivityError:
            return None
        return layout
    return f"{preset.family}-{preset.window}"


def _named(theory: str | None) -> bool:
    preset = None if theory is None else parse_preset(theory)
    return preset is not None and preset.family in ("global", "local", "hybrid") and (
        preset.global_heads is None)


def _window(theory: str | None) -> int | None:
    theory = theory.removesuffix(PERIODIC) if theory else None
    preset = parse_preset(theory) if theory and _named(theory) else None
    return None if preset is None else preset.window


def classify_arguments(layouts: Iterable[str]) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """The windows ``ks`` and other ``layouts`` that `classify` needs to predict these cells."""
    theories = [theory_layout(x) for x in layouts]
    windows = {w for w in map(_window, theories) if w is not None}
    others = [t for t in theories if t and not _named(t) and not t.endswith(PERIODIC)]
    return tuple(sorted(windows | {1})), tuple(dict.fromkeys(others))


def no_theory(layout: str) -> str:
    """Why a cell that `theory_layout` maps to None has no prediction."""
    cell = Cell.parse(layout)
    if (scale := cell.scale) != "none":
        return (f"no theory for {cell.layout} with attention_scale = {scale!r}: "
                "logits times log n reveal a row's key count; that this leaves the class "
                "unchanged is proved for NoPE global, local, hybrid, dilated, block, "
                "longformer-k-1, the mixers, samba-k and jamba-n only; with random keys only "
                "a 'yes' carries over, with more global tokens it is a conjecture, and "
                "encoders keep only their 'yes' (docs/theory.md §9)")
    base, encoding = cell.layout, cell.positional
    if encoding == "none":
        return f"no theory for layout {layout!r} (docs/theory.md §3)"
    return (f"no theory for {base} with {encoding} positions (theory covers NoPE and the "
            "periodic encodings, docs/theory.md §7)")


def with_periods(c: Classification, r: LayoutVerdict, periods: tuple[int, ...]
                 ) -> tuple[str, str]:
    """``r``'s status and reason for a model with these periods. A "yes" that needs MOD holds
    when the periods read positions modulo the stability index s (docs/theory.md, "Periodic
    positions and MOD": a QR language is defined with mod(s,r) predicates, and n mod s is a
    function of the residues n mod m for the periods m when s divides their lcm); a "no", and
    a hybrid "yes" from LTL[P,Y] (no MOD needed), hold for every period."""
    if r.status != "yes" or not periods or (
            r.layout.startswith("hybrid") and c.member("locally_r_trivial")):
        return r.status, r.reason
    s, lcm = stability_index(c.dfa), math.lcm(*periods)
    if s == 1:
        return r.status, r.reason
    if lcm % s == 0:
        return "yes", f"{r.reason}; the periods {list(periods)} read n mod {s} ({s} divides {lcm})"
    return "unknown", (f"{r.reason}, with mod({s},r) predicates (stability index {s}); the "
                       f"periods {list(periods)} (lcm {lcm}) do not read n mod {s}: undecided")
