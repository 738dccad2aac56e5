"""The verdict of each attention layout from the class verdicts (see `algebra.classify`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from expressivity.algebra.classification import PERIODIC
from expressivity.algebra.locality import LayoutVerdict, types_verdict
from expressivity.algebra.mixers import STAR_FREE_ATOMS, mixer_verdict
from expressivity.algebra.operators import Fragment, hybrid, local, past
from expressivity.algebra.patterns import pattern_verdict, patterns_fragment
from expressivity.algebra.varieties import Verdict
from expressivity.algebra.window_sets import MAX_PREFIX, window_sets
from expressivity.automata.dfa import DFA
from expressivity.layouts import parse_spelling
from expressivity.layouts.mixer import is_mixer

__all__ = ["has_mixers", "hybrid_verdict", "local_verdict", "mixer_layout_verdict",
           "named_verdict", "periodic_verdicts", "spelling_verdict"]

_NAMES = {
    "r_trivial": "R-trivial",
    "definite": "definite",
    "locally_r_trivial": "locally R-trivial",
    "aperiodic": "aperiodic (star-free)",
    "qr": "QR [JSLC26]",
}


def named_verdict(
    layout: str, logic: str, cls: str, verdicts: tuple[tuple[str, Verdict], ...]
) -> LayoutVerdict:
    """The verdict of a layout whose logic is exactly one class ``cls`` (its yes or no)."""
    v = dict(verdicts)[cls]
    if v is True:
        return LayoutVerdict(layout, logic, "yes", f"{logic} = {_NAMES[cls]}: yes")
    return LayoutVerdict(layout, logic, "no", f"{logic} = {_NAMES[cls]}: no", v)


def local_verdict(
    dfa: DFA, k: int, member: dict[str, bool], verdicts: Any, depth: int, states: int
) -> LayoutVerdict:
    """``local-k``: no unless definite, else decided on the k-window types."""
    logic = str(local(k))
    if not member["definite"]:
        v = dict(verdicts)["definite"]
        return LayoutVerdict(
            f"local-{k}", logic, "no", f"{logic} ⊊ LTL[Y] = definite: not definite", v
        )
    return types_verdict(dfa, f"local-{k}", local(k), depth, states)


def hybrid_verdict(
    dfa: DFA,
    k: int,
    member: dict[str, bool],
    verdicts: Any,
    local_k: LayoutVerdict | None,
    depth: int,
    states: int,
) -> LayoutVerdict:
    """``hybrid-k``: no unless locally R-trivial, yes through its global heads (R-trivial),
    its k-local ones (``local_k``) or the window sets read through P, else decided on the
    k-window types."""
    layout, logic = f"hybrid-{k}", str(hybrid(k))
    if not member["locally_r_trivial"]:
        v = dict(verdicts)["locally_r_trivial"]
        reason = f"{logic} ⊊ LTL[P,Y] = LR: not locally R-trivial"
        return LayoutVerdict(layout, logic, "no", reason, v)
    if member["r_trivial"]:
        return LayoutVerdict(layout, logic, "yes", "R-trivial: its global heads suffice (LTL[P])")
    if local_k is not None and local_k.status == "yes":
        return LayoutVerdict(layout, logic, "yes", f"its {k}-local heads suffice: {local_k.reason}")
    windows = window_sets(dfa, k, min(dfa.n_states, MAX_PREFIX))
    if windows is not None:  # prefix, content and window sets, read through P (§17)
        reason = (f"{windows.describe()}, which the {k}-local and global heads read with "
                  f"{windows.layers} layers: yes")
        return LayoutVerdict(layout, logic, "yes", reason, windows)
    return types_verdict(dfa, layout, hybrid(k), depth, states)


def spelling_verdict(
    dfa: DFA,
    text: str,
    fragment: Fragment,
    member: dict[str, bool],
    verdicts: Any,
    depth: int,
    states: int,
) -> LayoutVerdict:
    """A layout spelling: through the named decisions when its operator set is P, Y^≤k or
    P,Y^≤k (so ``8xG`` and ``global`` agree), else `pattern_verdict`."""
    named: LayoutVerdict | None = None
    if fragment == past():
        named = named_verdict(text, "LTL[P]", "r_trivial", verdicts)
    elif fragment == local(1):
        named = named_verdict(text, "LTL[Y]", "definite", verdicts)
    elif fragment == hybrid(1):
        named = named_verdict(text, "LTL[P,Y]", "locally_r_trivial", verdicts)
    elif fragment.window and fragment == local(fragment.window):
        named = local_verdict(dfa, fragment.window, member, verdicts, depth, states)
    elif fragment.window and fragment == hybrid(fragment.window):
        local_k = local_verdict(dfa, fragment.window, member, verdicts, depth, states)
        named = hybrid_verdict(dfa, fragment.window, member, verdicts, local_k, depth, states)
    if named is not None:
        return LayoutVerdict(text, named.logic, named.status, named.reason, named.witness,
                          named.depth)
    return pattern_verdict(dfa, text, fragment, member, dict(verdicts), depth, states)


def has_mixers(text: str) -> bool:
    """Whether a layout spelling has SSM heads (`ConfigError` on a bad spelling)."""
    return any(is_mixer(a.spec) for p in parse_spelling(text).patterns for a in p)


def mixer_layout_verdict(
    dfa: DFA, text: str, ssm_member: dict[str, bool], found: dict[str, Any],
    member: dict[str, bool], verdicts: Any, depth: int, states: int,
) -> LayoutVerdict:
    """A spelling with SSM heads: `algebra.mixers.mixer_verdict` on its mixer kinds and the
    verdict of its attention heads alone (docs/theory.md §14)."""
    patterns = parse_spelling(text).patterns
    kinds = frozenset(a.kind for p in patterns for a in p if is_mixer(a.spec))
    attention = [p for p in patterns if not any(is_mixer(a.spec) for a in p)]
    heads = None
    if attention:
        heads = spelling_verdict(dfa, text, patterns_fragment(attention), member, verdicts, depth,
                            states)
    star_free = all(a.kind in STAR_FREE_ATOMS for p in attention for a in p)
    return mixer_verdict(text, kinds, heads, star_free, ssm_member, found)


def periodic_verdicts(ks: Sequence[int], verdicts: tuple[tuple[str, Verdict], ...]
                      ) -> list[LayoutVerdict]:
    """The layouts with periodic positions (see the module docstring and docs/theory.md).

    With MOD, every window k is as good as k = 1: Y ψ = ⋁_r mod(k,r) ∧ Y^≤k(ψ ∧ mod(k,r−1)),
    so LTL[P,Y^≤k,MOD] = LTL[P,Y,MOD] ⊇ LTL[P,Y] ∪ LTL[P,MOD], and LTL[P,Y,MOD] ⊆ QLR.
    """
    glob = named_verdict(f"global{PERIODIC}", "LTL[P,MOD]", "qr", verdicts)
    out = [glob]
    member = dict(verdicts)
    for k in sorted(set(ks)):
        layout = f"hybrid-{k}{PERIODIC}"
        logic = "LTL[P,Y,MOD]" if k == 1 else f"LTL[P,Y<={k},MOD]"
        full = "LTL[P,Y,MOD]" if k == 1 else f"LTL[P,Y,MOD] = {logic}"  # Y from Y<=k and MOD
        if member["locally_r_trivial"] is True:
            reason = f"LTL[P,Y] = locally R-trivial: yes, and LTL[P,Y] ⊆ {full}"
            out.append(LayoutVerdict(layout, logic, "yes", reason))
        elif glob.status == "yes":
            reason = f"its global heads suffice: {glob.reason}"
            out.append(LayoutVerdict(layout, logic, "yes", reason))
        elif member["qlr"] is not True:
            reason = f"{full} ⊆ QLR: the stable semigroup is not locally R-trivial"
            out.append(LayoutVerdict(layout, logic, "no", reason, member["qlr"]))
        else:
            reason = f"QLR, but neither QR nor locally R-trivial: undecided for {full}"
            out.append(LayoutVerdict(layout, logic, "unknown", reason))
    return out
