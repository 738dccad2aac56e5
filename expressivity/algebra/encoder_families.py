"""The exact pieces of encoder verdicts: key automata, bounded prefix/suffix tables, mirror pairs.

docs/theory.md §13. Everything here works on the minimal DFA and on an injected readout-type
function (`ReadoutTypes`, computed from raw masks in `models.encoder_types`), so no mask is
built in this layer:

- `key_conflict`: a left-to-right invariant ("key") such as the set of letters seen and the
  last letter; L is a union of key classes iff no key meets an accepting and a rejecting DFA
  state in the reachable product (a shortest conflicting pair otherwise).
- `bounded_table`: when the readout type after d layers is a function of the first (``cls``)
  or last (``eos``, ``last``) R symbols, all words of length ≤ R are the classes; a word of
  length R stands for every word with that prefix (suffix), so L is decided at depth d by
  finitely many type computations and residual checks.
- `mirror_pair`: c^k x c^k ∈ L and c^k x^R c^k ∉ L (or the converse) for every large k that is
  a multiple of c's period: symmetric windows and hubs cannot tell them apart.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Hashable, Sequence
from typing import Protocol

import numpy as np

from expressivity.algebra.monoid import omega_exponent
from expressivity.algebra.witnesses import access_words
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA

__all__ = ["Atom", "EncoderTypes", "MaskFn", "bounded_table", "definite_degree", "key_conflict",
           "mirror_pair", "pumped_mirror", "reverse_definite_degree", "stable_conflict"]


class Atom(Protocol):
    """An atom of a spelling as the registry (`expressivity.layouts.Atom`) has it."""

    @property
    def kind(self) -> str: ...

    @property
    def params(self) -> tuple[int, ...]: ...


#: Number of tokens -> per layer, the distinct head masks (bool (T, T), row = query); the
#: shape of `models.encoder_types.MaskFn`, which this layer may not import.
MaskFn = Callable[[int], Sequence[Sequence[np.ndarray]]]


class EncoderTypes(Protocol):
    """Types of a layout computed from its raw masks (`models.encoder_types.MaskTypes`); ids
    compare across calls on one object."""

    #: how many distinct layers repeat (layer ℓ uses entry ℓ mod period)
    period: int
    #: the layout's raw masks (`MaskFn`)
    masks: MaskFn

    def readout(self, word: Word, n_layers: int) -> Hashable:
        """What the classifier reads after ``n_layers`` layers."""
        ...

    def layers(self, word: Word, n_layers: int) -> list[list[int]]:
        """Per layer 0..n_layers, the type id of every token."""
        ...

    def read(self, word: Word, types: list[int]) -> Hashable:
        """The readout of one layer's token types of ``word``."""
        ...
#: A left-to-right key: the initial key and the step (key, letter) -> key.
Key = tuple[Hashable, Callable[[Hashable, str], Hashable]]


def key_conflict(dfa: DFA, key: Key, max_pairs: int = 200_000) -> tuple[Word, Word] | None:
    """A shortest pair (u ∈ L, v ∉ L) with one key, or None when L is a union of key classes.

    Breadth-first over (key, state); ``max_pairs`` bounds the product (AssertionError past it:
    callers pass keys with few values)."""
    start, step = key
    first: dict[tuple[Hashable, int], Word] = {(start, dfa.initial): ()}
    by_key: dict[Hashable, dict[bool, Word]] = {}
    queue = deque([(start, dfa.initial)])
    while queue:
        k, q = queue.popleft()
        word = first[(k, q)]
        seen = by_key.setdefault(k, {})
        seen.setdefault(bool(dfa.accepting[q]), word)
        if len(seen) == 2:
            return seen[True], seen[False]
        for a, s in enumerate(dfa.alphabet.symbols):
            nxt = (step(k, s), int(dfa.transitions[q, a]))
            if nxt not in first:
                assert len(first) < max_pairs, "key automaton too large"
                first[nxt] = (*word, s)
                queue.append(nxt)
    return None


def _to_states(dfa: DFA, accepting: bool) -> list[Word | None]:
    """Per state, a shortest word leading to an accepting (rejecting) state, or None."""
    n = dfa.n_states
    out: list[Word | None] = [() if bool(dfa.accepting[q]) == accepting else None for q in range(n)]
    changed = True
    while changed:  # Bellman–Ford style relaxation; DFAs here are small
        changed = False
        for q in range(n):
            for a, s in enumerate(dfa.alphabet.symbols):
                tail = out[int(dfa.transitions[q, a])]
                if tail is not None and (out[q] is None or len(tail) + 1 < len(out[q])):  # type: ignore[arg-type]
                    out[q] = (s, *tail)
                    changed = True
    return out


def bounded_table(dfa: DFA, types: EncoderTypes, n_layers: int, radius: int, side: str, *,
                  max_words: int) -> tuple[bool, tuple[Word, Word] | None] | None:
    """Decide L at depth ``n_layers`` when the readout type is a function of the first
    (``side="prefix"``) or last (``"suffix"``) ``radius`` symbols (module docstring).

    Returns (True, None) when L is a union of readout-type classes, (False, (u, v)) with
    u ∈ L, v ∉ L sharing their readout type, or None when more than ``max_words`` words
    would be needed."""
    sigma = dfa.alphabet.symbols
    if sum(len(sigma) ** i for i in range(radius + 1)) > max_words:
        return None
    to_acc, to_rej = _to_states(dfa, True), _to_states(dfa, False)
    access = access_words(dfa)
    reach = [q for q in range(dfa.n_states) if q == dfa.initial or access[q]]
    groups: dict[Hashable, dict[bool, Word]] = {}
    for length in range(radius + 1):
        for w in itertools.product(sigma, repeat=length):
            members = _members(dfa, w, length == radius, side, to_acc, to_rej, access, reach)
            if len(members) == 2:
                return False, (members[True], members[False])
            seen = groups.setdefault(types.readout(w, n_layers), {})
            for verdict, word in members.items():
                seen.setdefault(verdict, word)
            if len(seen) == 2:
                return False, (seen[True], seen[False])
    return True, None


def _members(dfa: DFA, w: Word, long: bool, side: str, to_acc: list[Word | None],
             to_rej: list[Word | None], access: list[Word], reach: list[int]) -> dict[bool, Word]:
    """Membership of the words ``w`` stands for, with one example word per value."""
    if not long:
        return {dfa.accepts(w): w}
    out: dict[bool, Word] = {}
    if side == "prefix":
        q = dfa.run(w)
        for verdict, tails in ((True, to_acc), (False, to_rej)):
            tail = tails[q]
            if tail is not None:
                out[verdict] = (*w, *tail)
        return out
    for q in reach:
        verdict = bool(dfa.accepting[dfa.run(w, q)])
        out.setdefault(verdict, (*access[q], *w))
    return out


def mirror_pair(dfa: DFA, max_len: int = 3) -> tuple[str, Word, int] | None:
    """(c, x, k0): for every k ≥ k0 that is a multiple of k0, exactly one of c^k x c^k and
    c^k x^R c^k is in L (x not a palindrome, |x| ≤ ``max_len``); None if no such triple."""
    sigma = dfa.alphabet.symbols
    for c in sigma:
        row = dfa.transitions[:, dfa.alphabet.index(c)]
        k0 = omega_exponent(np.asarray(row))  # c^k acts as c^ω for every multiple k of k0
        pad = (c,) * k0
        for length in range(2, max_len + 1):
            for x in itertools.product(sigma, repeat=length):
                if x == x[::-1]:
                    continue
                if dfa.accepts(pad + x + pad) != dfa.accepts(pad + x[::-1] + pad):
                    return c, x, k0
    return None


def pumped_mirror(family: tuple[str, Word, int], at_least: int,
                  dfa: DFA) -> tuple[Word, Word]:
    """The mirror pair with k the least multiple of k0 that is ≥ ``at_least``, member first."""
    c, x, k0 = family
    k = -(-max(at_least, 1) // k0) * k0
    pad = (c,) * k
    u, v = pad + x + pad, pad + x[::-1] + pad
    return (u, v) if dfa.accepts(u) else (v, u)


def stable_conflict(dfa: DFA, types: EncoderTypes, words: Sequence[Word],
                    max_layers: int) -> tuple[tuple[Word, Word], int] | None:
    """A pair (u ∈ L, v ∉ L) among ``words`` sharing its readout type at **every** depth, with
    the layer from which the types of all ``words`` stopped refining; None if none is found
    within ``max_layers`` layers.

    The partition of all positions of all ``words`` by type refines layer by layer, and the
    partition after a layer is a function of the one before (a position's next type is its
    type and, per head, the set of its keys' types). Once it is equal before and after a full
    period of layers it never changes again, so readout types equal there stay equal."""
    counts: list[int] = []
    stable = None
    for ell in range(max_layers + 1):
        counts.append(len({t for w in words for t in types.layers(w, ell)[ell]}))
        if ell >= types.period and counts[ell] == counts[ell - types.period]:
            stable = ell - types.period
            break
    if stable is None:
        return None
    groups: dict[Hashable, dict[bool, Word]] = {}
    for w in words:
        seen = groups.setdefault(types.read(w, types.layers(w, stable)[stable]), {})
        seen.setdefault(dfa.accepts(w), w)
        if len(seen) == 2:
            return (seen[True], seen[False]), stable
    return None


def reverse_definite_degree(dfa: DFA) -> int | None:
    """The least k such that every word of length ≥ k has its membership fixed by its first k
    symbols (None if L is not reverse definite): the first level of states reached by words
    of length k made only of states whose residual is Σ* or ∅."""
    to_acc, to_rej = _to_states(dfa, True), _to_states(dfa, False)
    constant = [to_acc[q] is None or to_rej[q] is None for q in range(dfa.n_states)]
    level = {dfa.initial}
    for k in range(dfa.n_states + 1):
        if all(constant[q] for q in level):
            return k
        level = {int(dfa.transitions[q, a]) for q in level for a in range(dfa.n_symbols)}
    return None


def definite_degree(dfa: DFA) -> int | None:
    """The least k such that every word of length ≥ k has its membership fixed by its last k
    symbols (None if L is not definite): pairs of reachable states, moved along every word of
    length k, must agree on acceptance."""
    access = access_words(dfa)
    reach = [q for q in range(dfa.n_states) if q == dfa.initial or access[q]]
    level = {(p, q) for p in reach for q in reach}
    seen: set[frozenset[tuple[int, int]]] = set()
    for k in itertools.count():
        if all(dfa.accepting[p] == dfa.accepting[q] for p, q in level):
            return k
        key = frozenset(level)
        if key in seen:
            return None
        seen.add(key)
        t = dfa.transitions
        level = {(int(t[p, a]), int(t[q, a])) for p, q in level for a in range(dfa.n_symbols)}
    raise AssertionError("unreachable")
