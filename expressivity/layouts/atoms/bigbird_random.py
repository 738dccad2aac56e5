"""``BR{b}.{r}``: BigBird's random blocks: each query block of b tokens reads r distinct blocks
of the string, drawn from the head seed and the string's block count (`random_blocks`)."""

from __future__ import annotations

from dataclasses import dataclass

from expressivity.layouts import encoder_rules as rules
from expressivity.layouts.encoder_kind import EncoderKind, per_length
from expressivity.layouts.kind import Index, Reads

__all__ = ["ATOM", "RandomBlocks"]


@dataclass(frozen=True)
class RandomBlocks(EncoderKind):
    """Keys in the r random blocks of the query's block (`encoder_rules.random_blocks`: they
    depend on the string's length), and the query itself."""

    def rule(self, n: Index, m: Index, params: tuple[int, ...], seed: int,
             length: Index | None) -> Index:
        b, r = params
        if length is None:  # one string of exactly as many tokens as the indices show
            return per_length(n, m, None,
                              lambda n, m, last: rules.random_blocks_allowed(
                                  n, m, b, r, seed, last))
        return rules.random_blocks_allowed(n, m, b, r, seed, length - 1)

    def key(self, n: int, m: int, length: int, params: tuple[int, ...], seed: int) -> bool:
        b, r = params
        drawn = rules.random_blocks((length - 1) // b + 1, r, seed)[n // b]
        return m == n or m // b in set(drawn.tolist())

    def reads(self, params: tuple[int, ...]) -> Reads:
        return Reads(seeded=True)  # the encoder theory reads the masks; its keys are seed-drawn

    def size(self, params: tuple[int, ...]) -> int:
        return max(params)


ATOM = RandomBlocks(
    letter="BR", arity=2, spelling="BR{b}.{r}", meaning="r random blocks of b",
    label="{1} random blocks of {0}", measure="block b (and count r)", limit="block", rank=17,
    small=((1, 4), (1, 3)),
)
