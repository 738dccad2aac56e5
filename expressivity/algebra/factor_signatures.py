"""Windows, Swin blocks and CLS/SEP hubs at a given depth: an exact decision by factor signatures.

docs/theory.md §15, Proposition 15.7. Let every head of a layout be a union of symmetric
windows (``W``, ``WD``), Swin blocks (``SW``, ``SWS``), the global tokens ``CLS`` and ``SEP``
and full rows (``F``); ρ_ℓ the largest reach of layer ℓ, R_ℓ = ρ_1 + … + ρ_ℓ and p the least
common multiple of the Swin block sizes (1 without). Pad ``BOS w EOS`` (tokens 0..N+1) with ⊥
and let λ_ℓ(n), the hub-free local type, be a function of the 2R_ℓ + 1 padded symbols centred
on n and of n mod p (`LocalTypes`). Under reading model A the type of token n after ℓ layers
is a function of λ_ℓ(n) and the set Λ_{ℓ−1}(w) = {λ_{ℓ−1}(m)}; so the readout type after d
layers is a function of the **signature** (λ_d(t), Λ_{d−1}(w)) for a readout token t (the set
alone where t is a hub of every head of layer d), or of Λ_d(w) for ``mean``. Signatures are
finitely many, so a search over (DFA state, signature so far) decides at depth d whether L is
a union of readout-type classes: two words with one signature and different membership, or
two signatures whose representatives share their readout type, are a pair ("no at depth d",
re-checked on the raw masks); otherwise "yes at depth d", the proof being the exhausted
search. The search stops at ``max_states`` (`MAX_STATES`): no answer.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Hashable
from dataclasses import dataclass

from expressivity.algebra.encoder_families import EncoderTypes
from expressivity.algebra.encoder_layouts import (
    SWIN,
    WINDOWS,
    EncoderLayout,
    HeadPattern,
    reach,
)
from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA

__all__ = ["MAX_STATES", "FactorTable", "applies", "factor_table", "layer_radii", "signature"]

#: The most (DFA state, partial signature) pairs one search may visit before it gives up.
MAX_STATES = 100_000
#: The atoms whose rows Proposition 15.7 covers.
COVERED = WINDOWS | SWIN | {"CLS", "SEP", "F"}
PAD, BOS, EOS = "⊥", "<bos>", "<eos>"


@dataclass(frozen=True)
class FactorTable:
    """The outcome at ``depth``: ``recognizes`` with no pair, or a pair (u ∈ L, v ∉ L) sharing
    their readout type; ``signatures``: how many reachable signatures were checked."""

    depth: int
    recognizes: bool
    pair: tuple[Word, Word] | None
    signatures: int


def applies(layout: EncoderLayout) -> bool:
    """Whether every atom of every head is a window, a Swin block, ``CLS``, ``SEP`` or ``F``."""
    return all(a.kind in COVERED for row in layout.layers for h in row for a in h)


def period(layout: EncoderLayout) -> int:
    """p: the least common multiple of the layout's Swin block sizes (1 without)."""
    return math.lcm(1, *(a.params[0] for row in layout.layers for h in row for a in h
                         if a.kind in SWIN))


def layer_radii(layout: EncoderLayout, depth: int) -> list[int]:
    """R_0 = 0, R_1, …, R_depth: the running sums of each layer's largest reach (`reach`)."""
    out = [0]
    for i in range(depth):
        out.append(out[-1] + max((reach(h) for h in layout.layer(i)), default=0))
    return out


def _levels(layout: EncoderLayout, readout: str, depth: int) -> tuple[int, int]:
    """(level of the type set, level of the readout token's own λ; -1 when the signature is
    the set alone: for ``mean``, and for a readout token whose row is every token in every
    head of layer d, whose type is then a function of the set, docs/theory.md §15)."""
    if readout == "mean":
        return depth, -1
    level = max(depth - 1, 0)
    hub = {"cls": "CLS", "eos": "SEP"}.get(readout)
    if depth > 0 and hub is not None and all(
            any(a.kind in (hub, "F") for a in h) for h in layout.layer(depth - 1)):
        return level, -1
    return level, depth


class LocalTypes:
    """λ_ℓ(n), the hub-free local type of a token from its padded factor of radius R_ℓ and its
    phase n mod p: λ_0 is the token; λ_ℓ is λ_{ℓ−1} with, per head of layer ℓ, the set of
    λ_{ℓ−1} over the head's offsets at that phase (its window, its Swin block, the query
    itself) that fall inside the string."""

    def __init__(self, layout: EncoderLayout, depth: int) -> None:
        self.radii = layer_radii(layout, depth)
        self.period = period(layout)
        self.offsets = [[tuple(_offsets(h, phase) for phase in range(self.period))
                         for h in layout.layer(i)] for i in range(depth)]
        self._memo: dict[tuple[int, tuple[str, ...], int], Hashable] = {}

    def __call__(self, level: int, factor: tuple[str, ...], phase: int) -> Hashable:
        key = (level, factor, phase)
        got = self._memo.get(key)
        if got is None:
            got = self._memo[key] = self._compute(level, factor, phase)
        return got

    def _compute(self, level: int, factor: tuple[str, ...], phase: int) -> Hashable:
        centre = len(factor) // 2
        if level == 0:
            return factor[centre]
        inner = self.radii[level - 1]

        def at(offset: int) -> Hashable:
            n = centre + offset
            return self(level - 1, factor[n - inner: n + inner + 1],
                        (phase + offset) % self.period)

        heads = tuple(frozenset(at(o) for o in offs[phase] if factor[centre + o] != PAD)
                      for offs in self.offsets[level - 1])
        return at(0), heads


def _offsets(head: HeadPattern, phase: int) -> tuple[int, ...]:
    """The head's key offsets at a query of this phase, besides its hubs (the query itself,
    its window; for a Swin block the block holding it, `layouts.encoder_rules.swin_allowed`)."""
    out = {0}
    for a in head:
        if a.kind == "W":
            out |= set(range(-a.params[0], a.params[0] + 1))
        elif a.kind == "WD":
            out |= {j * a.params[1] for j in range(-a.params[0], a.params[0] + 1)}
        elif a.kind in SWIN:
            size = a.params[0]
            q = (phase + (size - size // 2 if a.kind == "SWS" else 0)) % size
            out |= set(range(-q, size - q))
    return tuple(sorted(out))


def signature(word: Word, layout: EncoderLayout, readout: str, depth: int,
              local: LocalTypes | None = None) -> Hashable:
    """The signature of ``word`` at ``depth`` (module docstring), computed directly."""
    local = local if local is not None else LocalTypes(layout, depth)
    level, top = _levels(layout, readout, depth)
    x = (BOS, *word, EOS)

    def factor(n: int, r: int) -> tuple[str, ...]:
        return tuple(x[i] if 0 <= i < len(x) else PAD for i in range(n - r, n + r + 1))

    p = local.period
    types = frozenset(local(level, factor(n, local.radii[level]), n % p)
                      for n in range(len(x)))
    if top < 0:
        return types
    at = {"cls": 0, "eos": len(x) - 1, "last": len(word)}[readout]
    return local(top, factor(at, local.radii[top]), at % p), types


def factor_table(dfa: DFA, layout: EncoderLayout, readout: str, depth: int,
                 types: EncoderTypes, *, max_states: int = MAX_STATES) -> FactorTable | None:
    """Decide L(dfa) at ``depth`` layers (module docstring), or None when the layout is not
    covered or the search passed ``max_states``. ``types`` are the layout's own (raw masks);
    answers are kept per (DFA, layout, readout, depth, max_states)."""
    if not applies(layout):
        return None
    key = (dfa, layout, readout, depth, max_states)
    if key not in _ANSWERS:
        if len(_ANSWERS) >= 256:
            _ANSWERS.clear()
        _ANSWERS[key] = _decide(dfa, layout, readout, depth, types, max_states)
    return _ANSWERS[key]


_ANSWERS: dict[Hashable, FactorTable | None] = {}


def _decide(dfa: DFA, layout: EncoderLayout, readout: str, depth: int, types: EncoderTypes,
            max_states: int) -> FactorTable | None:
    reps = _representatives(dfa, LocalTypes(layout, depth), readout, depth,
                            _levels(layout, readout, depth), max_states)
    if reps is None:
        return None
    by_signature: dict[Hashable, dict[bool, Word]] = {}
    for word, accepted, sig in reps:
        seen = by_signature.setdefault(sig, {})
        seen.setdefault(accepted, word)
        if len(seen) == 2:
            return _checked(FactorTable(depth, False, (seen[True], seen[False]),
                                        len(by_signature)), types)
    by_type: dict[Hashable, dict[bool, Word]] = {}
    for seen in by_signature.values():
        ((accepted, word),) = seen.items()
        got = by_type.setdefault(types.readout(word, depth), {})
        got.setdefault(accepted, word)
        if len(got) == 2:
            return _checked(FactorTable(depth, False, (got[True], got[False]),
                                        len(by_signature)), types)
    return FactorTable(depth, True, None, len(by_signature))


def _checked(table: FactorTable, types: EncoderTypes) -> FactorTable:
    assert table.pair is not None
    u, v = table.pair
    if types.readout(u, table.depth) != types.readout(v, table.depth):
        raise AssertionError(f"Proposition 15.7 fails on the masks: {u!r} and {v!r} share "
                             f"their signature but not their readout type")
    return table


Key = tuple[int, tuple[str, ...], tuple[str, ...], int, int]


def _representatives(dfa: DFA, local: LocalTypes, readout: str, depth: int,
                     levels: tuple[int, int], max_states: int
                     ) -> list[tuple[Word, bool, Hashable]] | None:
    """One shortest word per reachable (DFA state, partial signature): the word, its
    membership and its signature (as `signature` computes it, from the state).

    The partial signature after reading w_1..w_j is the set of λ over the tokens whose padded
    factor of radius R is complete (tokens ≤ j − R, a bit set over interned λ), the last
    max(2R, R_t + 1) padded symbols, j mod p and, for a ``cls`` readout read by its own λ,
    the first R_t + 1: every completion's signature is a function of it and of the rest of
    the word, so one word per partial signature realizes every (signature, membership)."""
    level, top = levels
    rs, rt = local.radii[level], (local.radii[top] if top >= 0 else -1)
    p = local.period
    from_start = readout == "cls" and top >= 0
    ends = {"eos": rt + 1, "last": rt + 2}.get(readout, 0) if top >= 0 else 0
    keep = max(2 * rs, ends, 1)
    bit: dict[Hashable, int] = {}
    index: dict[tuple[tuple[str, ...], int], int] = {}

    def push(tail: tuple[str, ...], bits: int, s: str, at: int
             ) -> tuple[tuple[str, ...], int]:
        """Append token ``at`` (mod p); the factor centred on token at − R is now complete."""
        longer = (*tail, s)
        window = longer[len(longer) - 2 * rs - 1:]
        if window[rs] != PAD:
            phase = (at - rs) % p
            got = index.get((window, phase))
            if got is None:
                got = index[window, phase] = bit.setdefault(local(level, window, phase),
                                                            len(bit))
            bits |= 1 << got
        return longer[1:], bits

    def final(state: Key) -> Hashable:
        _, tail, head, bits, at = state
        tail, bits = push(tail, bits, EOS, at + 1)
        last = tail
        for k in range(rs):
            tail, bits = push(tail, bits, PAD, at + 2 + k)
        got = frozenset(v for v, i in bit.items() if bits >> i & 1)
        if top < 0:
            return got
        if readout == "cls":
            x = ((*head, EOS) if len(head) <= rt else head) + (PAD,) * (2 * rt + 1)
            return local(top, (PAD,) * rt + x[: rt + 1], 0), got
        if readout == "eos":
            return local(top, last[len(last) - rt - 1:] + (PAD,) * rt, (at + 1) % p), got
        factor = (last[len(last) - rt - 2:] + (PAD,) * rt)[: 2 * rt + 1]  # token N
        return local(top, factor, at % p), got

    tail0, bits0 = push((PAD,) * keep, 0, BOS, 0)
    start: Key = (dfa.initial, tail0, (BOS,) if from_start else (), bits0, 0)
    seen: dict[Key, Word] = {start: ()}
    queue: deque[Key] = deque([start])
    symbols = dfa.alphabet.symbols
    while queue:
        state = queue.popleft()
        q, tail, head, bits, at = state
        word = seen[state]
        for i, s in enumerate(symbols):
            tail2, bits2 = push(tail, bits, s, at + 1)
            head2 = (*head, s) if from_start and len(head) <= rt else head
            nxt: Key = (int(dfa.transitions[q, i]), tail2, head2, bits2, (at + 1) % p)
            if nxt not in seen:
                if len(seen) >= max_states:
                    return None
                seen[nxt] = (*word, s)
                queue.append(nxt)
    return [(w, bool(dfa.accepting[key[0]]), final(key)) for key, w in seen.items()]
