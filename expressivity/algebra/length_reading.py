"""The length read at EOS from BOS's place in a periodic head's row: "yes" for length languages.

docs/theory.md §15, Proposition 15.6. A *length language* is one whose membership depends on
|w| alone (EVEN-LENGTH, (aa)*); its indicator χ(N) is eventually periodic, and
`length_indicator` finds it from the sets of DFA states that words of each length reach. Two
head patterns place BOS in the EOS row by the length:

- a strided head ``ST{l}`` (keys m ≤ n with n − m < l or l | n − m): the EOS token N + 1 has
  BOS among its keys iff N + 1 < l or l | N + 1, and a letter iff N ≥ 1;
- a Swin window ``SW{M}`` (keys in the query's block of M tokens from BOS on): BOS iff
  N + 1 < M, and a letter iff N ≥ 1 and M ∤ N + 1.

"BOS is a key" and "some letter is a key" are functions of the EOS type after one layer under
reading model A (the set of token types at the row's keys), and both are periodic in N with
period l (M) from N = l (M) on. So when χ(N) is a function of these features of the first
layer's heads for every N below the joint threshold plus one joint period, it is one for every
N, and L is read at EOS after one layer (`length_proof`). The features are taken from the
model's own masks; a softmax head realizes each in float32 (a large score on BOS's key, or on
the letters' keys, saturates to weight exactly 1 at every length below e^score).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from expressivity.algebra.encoder_families import Atom, MaskFn
from expressivity.automata.dfa import DFA

__all__ = ["MAX_LENGTH_CHECK", "MAX_SUBSETS", "PERIODIC_KINDS", "eos_features",
           "length_indicator", "length_proof"]

#: Head atoms whose EOS-row features are periodic in the length, with the period their one
#: parameter gives (the module docstring proves each).
PERIODIC_KINDS = frozenset({"ST", "SW"})
#: Most distinct state sets `length_indicator` visits before it gives up (a DFA whose length
#: sets do not repeat sooner is left undecided, never guessed).
MAX_SUBSETS = 10_000
#: Longest word length (threshold plus joint period) `length_proof` checks; beyond it, no proof.
MAX_LENGTH_CHECK = 4_096


def length_indicator(dfa: DFA) -> tuple[int, int, tuple[bool, ...]] | None:
    """(threshold t, period p, χ(0..t+p−1)) when L(dfa) is a length language, so that
    χ(N) = χ(t + (N − t) mod p) for N ≥ t; None when some length has a member and a
    non-member, or the state sets do not repeat within `MAX_SUBSETS` lengths."""
    seen: dict[frozenset[int], int] = {}
    values: list[bool] = []
    current = frozenset({int(dfa.initial)})
    while current not in seen:
        if len(seen) >= MAX_SUBSETS:
            return None
        accepting = dfa.accepting[sorted(current)]
        if accepting.all() != accepting.any():
            return None
        seen[current] = len(values)
        values.append(bool(accepting.all()))
        current = frozenset(int(q) for q in np.unique(dfa.transitions[sorted(current)]))
    start = seen[current]
    return start, len(values) - start, tuple(values)


def _at(indicator: tuple[int, int, tuple[bool, ...]], n: int) -> bool:
    start, period, values = indicator
    return values[n] if n < len(values) else values[start + (n - start) % period]


def eos_features(masks: MaskFn, heads: Sequence[int], n: int) -> tuple[tuple[bool, bool], ...]:
    """Per head index of the first layer in ``heads``: (BOS is a key of the EOS row, some
    letter is), for words of ``n`` letters, from the masks (tokens BOS, w1..wn, EOS)."""
    first = masks(n + 2)[0]
    return tuple((bool(first[i][n + 1, 0]), bool(first[i][n + 1, 1:n + 1].any()))
                 for i in heads)


def length_proof(dfa: DFA, first_layer: Sequence[Sequence[Atom]], masks: MaskFn
                 ) -> tuple[int, str] | None:
    """(1, why) when L(dfa) is a length language that the first layer's periodic heads
    (`PERIODIC_KINDS`, one atom each) read at EOS, else None; ``masks`` are the layout's own
    (per layer, its distinct head masks in the order of ``first_layer``)."""
    heads = [i for i, head in enumerate(first_layer)
             if len(head) == 1 and head[0].kind in PERIODIC_KINDS]
    if not heads:
        return None
    indicator = length_indicator(dfa)
    if indicator is None:
        return None
    periods = [first_layer[i][0].params[0] for i in heads]
    threshold = max(indicator[0], *periods)
    period = math.lcm(indicator[1], *periods)
    if threshold + period > MAX_LENGTH_CHECK:
        return None
    reading: dict[tuple[tuple[bool, bool], ...], bool] = {}
    for n in range(threshold + period):
        member = _at(indicator, n)
        if reading.setdefault(eos_features(masks, heads, n), member) != member:
            return None
    names = ", ".join(sorted({f"{h[0].kind}{h[0].params[0]}" for h in
                              (first_layer[i] for i in heads)}))
    return 1, (f"a length language (period {indicator[1]} from length {indicator[0]}), read "
               f"at EOS after one layer: the {names} heads place BOS and the letters in the "
               f"EOS row by the length (Proposition 15.6)")
