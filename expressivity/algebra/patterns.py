"""Any attention layout → its operator set (docs/theory.md "Sparse attention patterns") → a verdict.

Each distinct head pattern of a layout (`layouts.parse_spelling`, unsized) becomes one `Head`,
the union of what its atoms read (`AtomKind.reads`, one file per kind in `layouts.atoms`):
G → P; Lk → offsets 1..k; Dk.d → offsets d, 2d, .., kd; Bb → the earlier positions of the
block; Tg → the whole-word summary E, global-token rows 1..g−1 (hubs) that read only E, and
keys restricted to non-hubs; a union within one head is one operator (the head reads one set).
Random keys (R) are seed- and position-dependent: a head with G keeps P exactly (R ⊆ G), any
other R head is replaced by the seed-free part it provably reads (whether its row is empty),
an under-approximation, so such layouts get "yes" (for every seed) or "unknown", never "no".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from expressivity.algebra.locality import LayoutVerdict, periodic_family
from expressivity.algebra.operators import Fragment, Head, hybrid, local, past, stable_pair_depth
from expressivity.algebra.prefix_content import prefix_content
from expressivity.algebra.types import Definable, NotDefinable, definability
from expressivity.algebra.window_sets import MAX_PREFIX, window_sets
from expressivity.automata.dfa import DFA
from expressivity.errors import ConfigError, UnsupportedFragmentError
from expressivity.layouts import Atom, parse_spelling
from expressivity.layouts.encoders import is_encoder
from expressivity.layouts.mixer import is_mixer

__all__ = ["admissible_period", "head_operator", "layout_fragment", "pattern_verdict",
           "patterns_fragment", "reads_positions", "window_head"]

def head_operator(atoms: tuple[Atom, ...]) -> tuple[Head | None, bool]:
    """The operator of one head pattern (None: it reads nothing beyond E) and whether it is
    exact (False for random keys without a global atom): the union of what its atoms read
    (`Atom.reads`), restricted past the hubs."""
    if is_encoder(atoms):  # bidirectional, self-including: no causal operator (issue 32)
        raise UnsupportedFragmentError(
            f"head pattern {'+'.join(map(str, atoms))}: encoder atoms (docs/guide/encoders.md) "
            "denote no past operator of this theory; their masks are read by the encoder "
            "theory, not by the LTL[P, Y] fragments")
    reads = [a.reads() for a in atoms]
    g = max((r.hubs for r in reads), default=0)
    exact = [r.head for r in reads if r.head is not None and not r.seeded]
    if any(h.past for h in exact):
        return Head(past=True, skip=g), True  # seeded keys are a subset of P's
    offsets = sorted({o for h in exact for o in h.offsets})
    blocks = sorted({b for h in exact for b in h.blocks})
    seeded = [r.head for r in reads if r.seeded and r.head is not None]
    if seeded:
        # for n ≥ 2 some key 1..n−1 is present (R draws min(r, n−1) ≥ 1 keys); past the hubs
        # only offset 1 guarantees a non-hub key (n − 1) exactly when n − 1 ≥ g
        if g <= 1 or 1 in offsets:
            return replace(seeded[0], skip=g), False
        return None, False
    if not offsets and not blocks:
        return None, True
    return Head(offsets=tuple(offsets), blocks=tuple(blocks), skip=g), True


def layout_fragment(
    text: str, n_layers: int | None = None, n_heads: int | None = None
) -> Fragment:
    """The operator set of a layout spelling: the union over its heads (any layer), normalized
    to `past`/`local`/`hybrid` when it is one of them. Raises `ConfigError` on bad spellings,
    and on spellings with SSM heads (they denote a mixer class, not an operator:
    `algebra.mixers`, docs/theory.md §14).

    Without a model size the spelling's own head patterns are read (`UnsizedLayout.patterns`:
    the operator set does not depend on the head counts); with both sizes, the patterns of
    that model (an error if the spelling does not fit it)."""
    layout = parse_spelling(text)
    if n_layers is None or n_heads is None:
        patterns = layout.patterns
    else:
        patterns = tuple(dict.fromkeys(p for row in layout.sized(n_layers, n_heads) for p in row))
    mixers = sorted({str(a) for p in patterns for a in p if is_mixer(a.spec)})
    if mixers:
        raise ConfigError(f"layout {text!r} has SSM heads ({', '.join(mixers)}): they have no "
                          "temporal operator; `classify --layouts` decides such layouts through "
                          "their mixer class (docs/theory.md §14), depth and operator questions "
                          "are for attention layouts only")
    return patterns_fragment(patterns)


def patterns_fragment(patterns: Sequence[tuple[Atom, ...]]) -> Fragment:
    """The operator set of attention head patterns (see `layout_fragment`)."""
    heads: list[Head] = []
    exact = True
    for atoms in patterns:
        head, ok = head_operator(atoms)
        exact &= ok
        if head is not None and head not in heads:
            heads.append(head)
    g = max((a.reads().hubs for p in patterns for a in p), default=0)
    if not heads and not g:
        heads.append(Head())  # e.g. block-1: no head ever has a key; EOS reads only itself
    frag = Fragment(heads=tuple(sorted(heads)), summary=g > 0, hubs=g, exact=exact)
    for legacy in _legacy(frag):
        if set(legacy.operators) == set(frag.operators) and not frag.summary and exact:
            return legacy
    return frag


def _legacy(frag: Fragment) -> list[Fragment]:
    ks = [len(h.offsets) for h in frag.heads if h.offsets]
    k = ks[0] if len(ks) == 1 else 0
    return [past()] + ([local(k), hybrid(k)] if k else [])


def admissible_period(fragment: Fragment) -> tuple[int, Any]:
    """(largest period, predicate): y with |y| = p has long prefixes of x·y^∞ of one type iff
    every bounded head's offsets meet every residue mod p (docs/theory.md, proved)."""
    bounded = [h for h in fragment.operators if not h.past and not h.flag_only]
    top = min((len(h.offsets) for h in bounded), default=4)

    def ok(p: int) -> bool:
        return all({o % p for o in h.offsets} == set(range(p)) for h in bounded)

    return top, ok


def phase_alike(fragment: Fragment) -> Any:
    """``alike(p, c, i, j)`` for `locality.periodic_family`: the long prefixes of x·y^∞ of
    lengths c + i and c + j (mod p = |y|) share their type at every depth when every bounded
    head reads the same residues mod p from EOS, {(c + i + 1 − o) mod p : o} = {(c + j + 1 − o)
    mod p : o} (docs/theory.md §8, "Fewer unknowns" (a), proved)."""
    bounded = [h.offsets for h in fragment.operators if not h.past and not h.flag_only]

    def alike(p: int, c: int, i: int, j: int) -> bool:
        return all({(c + i + 1 - o) % p for o in offs} == {(c + j + 1 - o) % p for o in offs}
                   for offs in bounded)

    return alike


def pattern_verdict(
    dfa: DFA,
    layout: str,
    fragment: Fragment,
    member: Mapping[str, bool],
    verdicts: Mapping[str, Any],
    max_depth: int,
    max_states: int,
) -> LayoutVerdict:
    """yes (depth), no (algebraic bound, periodic family or stable pair) or unknown (bound)."""
    logic = str(fragment)
    if fragment.exact and fragment.window_only:
        bound = _algebraic_bound(fragment)
        if not member[bound[0]]:
            reason = f"{logic} ⊆ {bound[1]}: no"
            return LayoutVerdict(layout, logic, "no", reason, verdicts[bound[0]])
        if bound[0] == "locally_testable" and _reads_y(fragment):
            reason = ("E over LTL[Y] = locally testable with a head that reads Y exactly "
                      "(docs/theory.md §6 (iv): prefixes, suffixes and factors): yes")
            return LayoutVerdict(layout, logic, "yes", reason)
        top, ok = admissible_period(fragment)
        family = periodic_family(dfa, max(top, _reach(fragment)), ok,
                                 why="every head's offsets meet every phase",
                                 alike=phase_alike(fragment))
        if family is not None:
            return LayoutVerdict(layout, logic, "no", family.describe(), family)
    if fragment.summary and reads_positions(parse_spelling(layout).patterns):
        proof = prefix_content(dfa, dfa.n_states)
        if proof is not None:
            seeds = " (for every seed: no random key is read)" if not fragment.exact else ""
            reason = (f"{proof.describe()}, which a head reading n − 1 and the summary E read "
                      f"with {proof.layers} layers{seeds}: yes")
            return LayoutVerdict(layout, logic, "yes", reason, proof)  # layers: proof.layers
    k = window_head(fragment)
    whole = any(h.past for h in fragment.operators)
    if k and (whole or (fragment.summary and fragment.hubs == 1)):
        windows = window_sets(dfa, k, min(dfa.n_states, MAX_PREFIX))
        if windows is not None:
            windows = replace(windows, summary=not whole)
            reason = (f"{windows.describe()}, which an exact {k}-window head and "
                      f"{'P' if whole else 'the summary E'} read with {windows.layers} "
                      "layers: yes")
            return LayoutVerdict(layout, logic, "yes", reason, windows)
    found = definability(dfa, fragment, max_depth=max_depth, max_states=max_states)
    top_e = " with E at the top" if fragment.summary else ""
    if isinstance(found, Definable):
        seeds = " (for every seed: the seed-free part suffices)" if not fragment.exact else ""
        return LayoutVerdict(
            layout, logic, "yes", found.describe() + top_e + seeds, depth=found.depth
        )
    assert isinstance(found, NotDefinable)
    if not fragment.exact:
        return LayoutVerdict(
            layout, logic, "unknown",
            "random keys depend on the seed and the position; their seed-free part is "
            f"{found.describe()} (no seed-uniform certificate; a 'yes' would hold for every "
            "seed, a 'no' only per mask seed and model size: `classify --depth L` checks "
            "seeds 0, 1, 2, docs/theory.md §17)", found,
        )
    if not found.stable and max(map(len, found.words)) <= 12:
        depth = stable_pair_depth(*found.words, fragment)
        if depth is not None:
            found = NotDefinable(fragment, depth, found.words, found.accepted, stable=True)
    if found.stable:
        return LayoutVerdict(layout, logic, "no", found.describe(), found)
    hit = "state bound reached" if found.exhausted else "depth bound reached"
    return LayoutVerdict(layout, logic, "unknown", f"{found.describe()} ({hit})", found)


def reads_positions(patterns: Sequence[tuple[Atom, ...]]) -> bool:
    """BOS is the one global token (E) and some head's keys always hold n − 1 (an exact G, Lk
    or Dk.1 atom in it, whatever random atoms share the head): then every position n = j is
    definable for every seed, and prefix-and-content languages are recognized
    (`algebra.prefix_content`, docs/theory.md §17)."""
    reads = [[a.reads() for a in p] for p in patterns]
    if max((r.hubs for rs in reads for r in rs), default=0) != 1:
        return False
    return any(r.head is not None and not r.seeded and (r.head.past or 1 in r.head.offsets)
               for rs in reads for r in rs)


def window_head(fragment: Fragment) -> int:
    """The least k of an exact head whose keys are the k previous positions (offsets 1..k, no
    blocks; BOS as the only hub), 0 if none (docs/theory.md §17)."""
    if fragment.hubs > 1:
        return 0
    return min((len(h.offsets) for h in fragment.operators
                if h.offsets == tuple(range(1, len(h.offsets) + 1)) and h.offsets
                and not h.blocks and not h.past and not h.flag_only), default=0)


def _reads_y(fragment: Fragment) -> bool:
    """A head reads exactly Y (offset 1 alone) and at most BOS is a global token, so the
    layout contains longformer-1-1 = locally testable (docs/theory.md §6 (iv))."""
    return fragment.hubs <= 1 and any(
        h.offsets == (1,) and not h.blocks and not h.past and not h.flag_only
        for h in fragment.operators)


def _reach(fragment: Fragment) -> int:
    """The largest offset of a bounded head: periods up to it are tried (phases may coincide
    for periods larger than the number of offsets, e.g. {2, 4} and period 4)."""
    return max((max(h.offsets, default=0) for h in fragment.operators
                if not h.past and not h.flag_only), default=0)


def _algebraic_bound(fragment: Fragment) -> tuple[str, str]:
    """The smallest decided class containing the logic (docs/theory.md, proved): LTL[Y] =
    definite without P and E; locally testable with E but without P; else LTL[P,Y] = LR."""
    if not any(h.past for h in fragment.operators):
        if not fragment.summary:
            return "definite", "LTL[Y] = definite"
        return "locally_testable", "E over LTL[Y] = locally testable"
    return "locally_r_trivial", "LTL[P,Y] = locally R-trivial"
