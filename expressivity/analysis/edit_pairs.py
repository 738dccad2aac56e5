"""Edit-distance-1 replacement pairs of one length, by where in the word the letter changes.

A *replacement pair* is a member and a non-member of one length that differ in the letter at
one position; its *place* is "near" (among the word's last `NEAR` letters), "far" (among its
first quarter) or "middle" (between). `replacement_pairs` draws them from exactly uniform
members and non-members (`data.sampling.WordSampler`) and every label-changing replacement of
each (`data.negatives.single_edit_neighbours`); `draw_pairs` draws them for every length from
the seed. `analysis.edit_positions` decides them with a recognizer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from expressivity.automata.dfa import DFA
from expressivity.automata.ops import complement
from expressivity.data.negatives import single_edit_neighbours
from expressivity.data.sampling import WordSampler
from expressivity.errors import ConfigError

__all__ = ["BARREN_DRAWS", "LENGTHS", "MAX_DRAWS", "MAX_LENGTH", "MAX_PAIRS", "NEAR", "PLACES",
           "ReplacementPair", "draw_pairs", "place_of", "replacement_pairs"]

#: The probe's default lengths: the training range's end (40), then doublings to the test's 500.
LENGTHS = (20, 40, 80, 160, 320, 500)
#: Longest word probed (the models' positional tables and the samplers' big-integer counts).
MAX_LENGTH = 1000
#: Most pairs per length and place.
MAX_PAIRS = 256
#: Most words drawn per length while looking for pairs (a language whose words of that length
#: have no label-changing replacement at some place leaves that place short, not a loop).
MAX_DRAWS = 4096
#: Draws after which a length none of whose words had a label-changing replacement is given up.
BARREN_DRAWS = 64
#: A change is "near" when among the word's last NEAR letters (shorter than any training length).
NEAR = 8
#: Where the changed letter sits: among the last `NEAR` letters, the first quarter, or between.
PLACES = ("near", "middle", "far")


@dataclass(frozen=True)
class ReplacementPair:
    """A member and a non-member of one length that differ in the letter at ``position``."""

    member: tuple[int, ...]
    nonmember: tuple[int, ...]
    position: int

    @property
    def length(self) -> int:
        """The common length of both words."""
        return len(self.member)

    @property
    def place(self) -> str:
        """`place_of` the changed position."""
        return place_of(self.position, self.length)


def place_of(position: int, length: int) -> str:
    """"near" when the letter at ``position`` (0-based) is among the last `NEAR` letters of a
    word of ``length`` letters, else "far" when among its first quarter (``4·position <
    length``), else "middle"."""
    if not 0 <= position < length:
        raise ConfigError(f"edit position {position} is outside a word of {length} letters")
    if length - 1 - position < NEAR:
        return "near"
    return "far" if 4 * position < length else "middle"


def replacement_pairs(dfa: DFA, length: int, per_place: int, rng: np.random.Generator
                      ) -> list[ReplacementPair]:
    """Up to ``per_place`` replacement pairs of ``length`` letters at each place (`PLACES`):
    words drawn exactly uniformly from the members and the non-members in turn (a class without
    words of this length is skipped), each giving one pair at every place still short, its
    changed position drawn uniformly among that place's label-changing replacements. At most
    `MAX_DRAWS` words are drawn, `BARREN_DRAWS` when none has such a replacement."""
    if not 1 <= length <= MAX_LENGTH:
        raise ConfigError(f"edit positions: lengths from 1 to {MAX_LENGTH} letters, got {length}")
    if not 1 <= per_place <= MAX_PAIRS:
        raise ConfigError(f"edit positions: pairs per place from 1 to {MAX_PAIRS}, "
                          f"got {per_place}")
    samplers = [s for s in (WordSampler.build(dfa, length),
                            WordSampler.build(complement(dfa), length)) if s.count(length)]
    found: dict[str, list[ReplacementPair]] = {place: [] for place in PLACES}
    for draw in range(MAX_DRAWS):
        if all(len(v) >= per_place for v in found.values()):
            break
        if draw >= BARREN_DRAWS and not any(found.values()):
            break
        word = samplers[draw % len(samplers)].sample(length, 1, rng)[0]
        is_member = bool(dfa.accepts_codes(word[None, :])[0])
        by_place: dict[str, list[tuple[int, int]]] = {}
        for _, pos, symbol in single_edit_neighbours(dfa, word, ("replace",),
                                                     members=not is_member):
            by_place.setdefault(place_of(pos, length), []).append((pos, symbol))
        for place, options in by_place.items():
            if len(found[place]) >= per_place:
                continue
            pos, symbol = options[int(rng.integers(len(options)))]
            other = word.copy()
            other[pos] = symbol
            member, nonmember = (word, other) if is_member else (other, word)
            found[place].append(ReplacementPair(tuple(int(c) for c in member),
                                                tuple(int(c) for c in nonmember), int(pos)))
    return [p for place in PLACES for p in found[place]]


def draw_pairs(dfa: DFA, lengths: Sequence[int] = LENGTHS, *, per_place: int = 16,
               seed: int = 0) -> dict[int, list[ReplacementPair]]:
    """`replacement_pairs` of every length, those of length n drawn from ``(seed, n)``: the
    same pairs for every run of a language."""
    return {int(n): replacement_pairs(dfa, int(n), per_place, np.random.default_rng([seed, n]))
            for n in lengths}
