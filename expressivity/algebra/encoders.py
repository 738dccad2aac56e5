"""What a NoPE encoder with bidirectional masks and a readout recognizes: yes / no / unknown.

docs/theory.md §13. A layout (`EncoderLayout`: per layer its head patterns, each full, window,
hub or other) is defined in `algebra.encoder_layouts` and re-exported here with `head_kind`.

Proved upper bounds (relative to reading model A, so every "no" is a pair of words whose
readout types agree after d layers, re-checkable on the raw masks): all heads full ⇒ the
readout sees the set of letters (and, for ``last``, the last letter); all heads windows ⇒ a
bounded prefix (``cls``: reverse definite) or suffix (``eos``, ``last``: definite), and for
``mean`` a set of bounded factors (locally testable); windows, hubs and full heads ⇒ locally
testable, and blind to reversing a factor between equal letters (`mirror_pair`). Proofs of
"yes" come from sub-layouts whose readout is decided exactly (`encoder_families`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from expressivity.algebra.commutative import is_alphabet_testable
from expressivity.algebra.encoder_families import (
    EncoderTypes,
    bounded_table,
    definite_degree,
    key_conflict,
    mirror_pair,
    pumped_mirror,
    reverse_definite_degree,
    stable_conflict,
)
from expressivity.algebra.encoder_layouts import (
    SWIN,
    EncoderLayout,
    head_kind,
    hub_reach,
    hub_twice,
    is_unit,
)
from expressivity.algebra.factor_signatures import applies as signatures_apply
from expressivity.algebra.factor_signatures import factor_table
from expressivity.algebra.length_reading import length_proof
from expressivity.algebra.varieties import is_definite, is_locally_testable, is_reverse_definite
from expressivity.algebra.witnesses import IdentityWitness
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA

__all__ = ["EncoderLayout", "EncoderVerdict", "Readout", "encoder_verdict", "family_pair",
           "head_kind"]



Readout = Literal["eos", "cls", "mean", "last"]
Answer = Literal["yes", "no", "unknown"]
#: Words a bounded prefix/suffix table may compute types for (the bound of `bounded_table`).
MAX_TABLE_WORDS = 4_000


@dataclass(frozen=True)
class EncoderVerdict:
    """The answer for one layout and readout, unbounded (``depth`` None) or at ``depth`` layers.

    ``min_depth``: a depth with a proof ("yes"); ``pair``: (u ∈ L, v ∉ L) sharing their
    readout type after ``depth`` layers (for an unbounded "no": an instance of ``family``,
    which `family_pair` instantiates at any depth); ``reason``: the proof or bound, in words.
    """

    answer: Answer
    readout: Readout
    depth: int | None
    min_depth: int | None
    reason: str
    pair: tuple[Word, Word] | None = None
    family: IdentityWitness | tuple[str, Word, int] | None = None


def family_pair(verdict: EncoderVerdict, dfa: DFA, layout: EncoderLayout,
                n_layers: int) -> tuple[Word, Word]:
    """The family's pair pumped far enough to share its readout type after ``n_layers``."""
    assert verdict.family is not None
    need = 2 * (layout.radius(n_layers) + hub_reach(layout) + n_layers + 2)
    if isinstance(verdict.family, IdentityWitness):
        first, second = verdict.family.pumped(dfa, need)
        return (first, second) if dfa.accepts(first) else (second, first)
    return pumped_mirror(verdict.family, need, dfa)


def _alphabet_key(last: bool) -> tuple[Hashable, Callable[[Hashable, str], Hashable]]:
    def step(key: Hashable, s: str) -> Hashable:
        assert isinstance(key, tuple)
        letters: frozenset[str] = key[0]
        return (letters | {s}, s if last else None)

    return (frozenset(), None), step


def _upper_bound(dfa: DFA, layout: EncoderLayout, readout: Readout) -> EncoderVerdict | None:
    """An unbounded "no" from the proved class bounds (module docstring), else None."""
    kinds = layout.kinds()
    if "other" in kinds:
        return None
    if kinds == {"full"}:
        pair = key_conflict(dfa, _alphabet_key(readout == "last"))
        what = "the set of letters" + (" and the last letter" if readout == "last" else "")
        if pair is None:
            return None
        return EncoderVerdict("no", readout, None, None,
                              f"every full head reads {what} from layer 1 on, at every depth "
                              "(proved); the pair shares them", pair)
    if kinds == {"window"} and readout != "mean":
        decide, what = ((is_reverse_definite, "a bounded prefix (reverse definite)")
                        if readout == "cls" else (is_definite, "a bounded suffix (definite)"))
        witness = decide(dfa)
        if witness is True:
            return None
        return EncoderVerdict("no", readout, None, None,
                              f"window heads with a {readout} readout read {what} (proved)",
                              witness.pair, witness)
    witness = is_locally_testable(dfa)
    if witness is not True:
        return EncoderVerdict("no", readout, None, None,
                              "windows, hubs and full heads read sets of bounded factors: "
                              "locally testable (proved)", witness.pair, witness)
    mirror = mirror_pair(dfa)
    if mirror is not None:
        c, x, k0 = mirror
        pad = (c,) * k0
        return EncoderVerdict("no", readout, None, None,
                              "symmetric windows and hubs cannot orient a factor between equal "
                              "letters (mirror pair, proved)",
                              (pad + x + pad, pad + x[::-1] + pad)
                              if dfa.accepts(pad + x + pad) else
                              (pad + x[::-1] + pad, pad + x + pad), mirror)
    return None


def _signed(layout: EncoderLayout, readout: Readout) -> bool:
    """Whether `classify` asks the factor signatures (§15, Proposition 15.7): for layouts they
    cover with a hub (`CLS`, `SEP`) or a Swin block and no full head; windows alone and full
    heads alone have exact answers already, and a full head beside windows makes the search
    large where §13's proof (b) answers the common cases."""
    atoms = {a.kind for row in layout.layers for h in row for a in h}
    return signatures_apply(layout) and "F" not in atoms and bool(atoms & (SWIN | {"CLS", "SEP"}))


def _layers(n: int) -> str:
    return f"{n} layer{'' if n == 1 else 's'}"


def _lower_bound(dfa: DFA, layout: EncoderLayout, readout: Readout,
                 types_of: Callable[[EncoderLayout], EncoderTypes],
                 max_depth: int, signatures: bool = True) -> tuple[int, str] | None:
    """A proof of "yes": the least depth found and the argument, from exact sub-layouts
    (and, with ``signatures``, from the factor signatures of `algebra.factor_signatures`,
    which `encoder_verdict` skips where a proved bound already says "no" at every depth)."""
    found: list[tuple[int, str]] = []
    if readout == "mean" and is_alphabet_testable(dfa) is True:
        found.append((0, "alphabet testable: the mean of the embeddings reads the set of tokens"))
    full = layout.first_layer_with(lambda h: head_kind(h) == "full", max_depth)
    if full is not None and key_conflict(dfa, _alphabet_key(readout == "last")) is None:
        found.append((full, f"layer {full} has a full head: every token reads the set of letters"))
    hub = {"cls": "CLS", "eos": "SEP"}.get(readout)
    at_hub = layout.first_layer_with(lambda h: any(a.kind == hub for a in h), max_depth)
    if at_hub is not None and is_alphabet_testable(dfa) is True:
        found.append((at_hub, f"the {readout} token is a global token from layer {at_hub}: it "
                      "reads the set of letters"))
    two = hub_twice(layout, max_depth)
    if two is not None and key_conflict(dfa, _alphabet_key(readout == "last")) is None:
        found.append((two[1], f"the {two[0]} token reads every token at layer {two[1] - 1} and "
                      f"every token reads it at layer {two[1]}: all know the set of letters"))
    unit = all(any(is_unit(h) for h in row) for row in layout.layers)
    if unit and readout != "mean":
        degree = (reverse_definite_degree if readout == "cls" else definite_degree)(dfa)
        if degree is not None:
            at = 2 * degree + (1 if readout == "last" else 0)
            found.append((at, f"every layer has a radius-1 window head: after 2k layers the "
                          f"{readout} token knows the {'first' if readout == 'cls' else 'last'} "
                          f"k symbols (§13), and L is fixed by k = {degree}"))
    if readout == "eos":
        length = length_proof(dfa, layout.layer(0), types_of(layout).masks)
        if length is not None:
            found.append(length)
    windows = layout.only(frozenset({"window"}))
    if readout != "mean" and any(windows.layers):
        side = "prefix" if readout == "cls" else "suffix"
        types = types_of(windows)
        for d in range(max_depth + 1):
            radius = windows.radius(d) + (1 if readout == "last" else 0)
            table = bounded_table(dfa, types, d, radius, side, max_words=MAX_TABLE_WORDS)
            if table is None:
                break
            if table[0]:
                found.append((d, f"the window heads alone: after {d} layers the {readout} type "
                              f"is a function of the {side} of {radius} symbols, and every "
                              f"class of those words is L-constant (all {side}es checked)"))
                break
    if signatures and _signed(layout, readout):
        types = types_of(layout)
        for d in range(1, min([max_depth + 1, *(at for at, _ in found)])):
            signed = factor_table(dfa, layout, readout, d, types)
            if signed is None:  # the search limit: deeper signatures are only more
                break
            if signed.recognizes:
                found.append((d, f"after {_layers(d)} the {readout} "
                              "type is a function of its factor signature (§15, Proposition "
                              "15.7: windows, Swin blocks, CLS/SEP hubs, full heads), and L "
                              "is a union of the type classes of all "
                              f"{signed.signatures} reachable signatures"))
                break
    return min(found) if found else None


def encoder_verdict(dfa: DFA, layout: EncoderLayout, readout: Readout,
                    types_of: Callable[[EncoderLayout], EncoderTypes], *,
                    depth: int | None = None, max_depth: int = 4,
                    search: Sequence[Word] = (), max_layers: int = 24) -> EncoderVerdict:
    """Decide L(dfa) for ``layout`` read out at ``readout`` (unbounded, or at ``depth`` layers).

    ``types_of`` gives the types of a (sub-)layout from its raw masks; ``search`` are short
    words among which a pair with one readout type at every depth (types stable within
    ``max_layers`` layers), or after ``depth`` layers, is looked for."""
    bound = _upper_bound(dfa, layout, readout)
    proof = _lower_bound(dfa, layout, readout, types_of, max(max_depth, depth or 0),
                         signatures=bound is None)
    if proof is not None:
        assert bound is None, "a proof and a certificate for one language"
    if bound is None and proof is None and search:
        stable = stable_conflict(dfa, types_of(layout), search, max_layers)
        if stable is not None:
            seeded = any(a.kind == "BR" for row in layout.layers for h in row for a in h)
            bound = EncoderVerdict("no", readout, None, None,
                                   f"the pair shares its {readout} type at every depth: the "
                                   f"types of the short words stop refining after layer "
                                   f"{stable[1]} (checked on the masks"
                                   + (", of these random-block seeds only)" if seeded else ")"),
                                   stable[0])
    if depth is None:
        if proof is not None:
            return EncoderVerdict("yes", readout, None, proof[0], proof[1])
        if bound is not None and bound.family is not None:  # the instance for max_depth
            return replace(bound, pair=family_pair(bound, dfa, layout, max_depth),
                           reason=bound.reason + f"; the pair is the family pumped for "
                           f"{max_depth} layers (pump further for more)")
        if bound is not None:
            return bound
        return EncoderVerdict("unknown", readout, None, None,
                              f"no proof up to depth {max_depth}, no certificate family and "
                              f"no stable pair among {len(search)} short words")
    if proof is not None and proof[0] <= depth:
        return EncoderVerdict("yes", readout, depth, proof[0], proof[1])
    if bound is not None:
        pair = family_pair(bound, dfa, layout, depth) if bound.family is not None else bound.pair
        return EncoderVerdict("no", readout, depth, None, bound.reason, pair, bound.family)
    at = proof[0] if proof else None
    if layout.kinds() == {"window"} and readout != "mean":
        side = "prefix" if readout == "cls" else "suffix"
        radius = layout.radius(depth) + (1 if readout == "last" else 0)
        table = bounded_table(dfa, types_of(layout), depth, radius, side,
                              max_words=MAX_TABLE_WORDS)
        if table is not None and table[1] is not None:
            return EncoderVerdict("no", readout, depth, at,
                                  f"after {depth} layers the {readout} type is a function of "
                                  f"the {side} of {radius} symbols; the pair shares it",
                                  table[1])
    types = types_of(layout)
    if _signed(layout, readout):
        signed = factor_table(dfa, layout, readout, depth, types)
        if signed is not None and signed.pair is not None:
            return EncoderVerdict("no", readout, depth, at,
                                  f"after {_layers(depth)} the {readout} type is a function "
                                  "of its factor signature (§15, Proposition 15.7); the pair "
                                  f"shares its type (found among {signed.signatures} "
                                  "signatures)", signed.pair)
    groups: dict[Hashable, dict[bool, Word]] = {}
    for w in search:
        seen = groups.setdefault(types.readout(w, depth), {})
        seen.setdefault(dfa.accepts(w), w)
        if len(seen) == 2:
            return EncoderVerdict("no", readout, depth, at,
                                  f"the pair shares its {readout} type after {depth} layers "
                                  "(found among short words)", (seen[True], seen[False]))
    return EncoderVerdict("unknown", readout, depth, at,
                          f"no proof at depth {depth} and no pair among {len(search)} words")
