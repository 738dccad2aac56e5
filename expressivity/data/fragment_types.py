"""Depth-bounded types of positions for the past fragments LTL[P], LTL[Y^{≤k}], LTL[P,Y^{≤k}].

The fragment is the one `logic.operators.Fragment` (``past`` and ``window``; other heads are
refused).

docs/theory.md §4: the depth-r type of a position (the set of depth-≤r formulas of the fragment
that hold there) is computed left to right. Depth 0 is the letter (EOS at N+1) and whether
the position is the first (``start`` and ``eos`` are depth-0 atoms, as in `logic.syntax`);
depth j adds, for P, the set of depth-(j-1) types of all earlier positions and, for Y^{≤k},
the set of depth-(j-1) types of the k strict predecessors. Every depth-(j-1) type is
definable at depth j-1, so equal types ⇔ agreement on every formula of depth ≤ j. Two words
fool a fragment at depth r when their EOS types agree but the language separates them.

This is the same equivalence as `algebra.operators.eos_type` (checked in the tests), kept here as
an incremental tracker so that `pairs.equal_type_pair` can search while skipping words.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field

from expressivity.errors import ConfigError
from expressivity.logic.operators import Fragment

__all__ = ["EOS", "TypeState", "TypeTracker"]

#: Letter code of the end-of-string position.
EOS = -1
#: A prefix summary: whether it is non-empty, then per level j < depth the set of level-j type
#: ids seen (for P) and the last k level-j type ids (for Y^{≤k}).
TypeState = tuple[bool, tuple[tuple[frozenset[int], tuple[int, ...]], ...]]


@dataclass
class TypeTracker:
    """Computes position types at depths ``0..depth`` with ids interned across words.

    A *state* (`TypeState`) summarizes a prefix. Ids are comparable between any words pushed
    through the same tracker.
    """

    fragment: Fragment
    depth: int
    _ids: list[dict[Hashable, int]] = field(default_factory=list, repr=False)

    def __post_init__(self) -> None:
        f = self.fragment
        if f.heads or f.summary or f.hubs > 1 or not f.exact:
            raise ConfigError(f"the type tracker reads P and Y^<=k only, not {f}")
        if self.depth < 0:
            raise ConfigError(f"depth must be >= 0, got {self.depth}")
        self._ids = [{} for _ in range(self.depth + 1)]

    def initial(self) -> TypeState:
        """The state of the empty prefix."""
        return False, tuple((frozenset(), ()) for _ in range(self.depth))

    def _intern(self, level: int, key: Hashable) -> int:
        table = self._ids[level]
        if key not in table:
            table[key] = len(table)
        return table[key]

    def types_at(self, state: TypeState, letter: int) -> list[int]:
        """Type ids at levels ``0..depth`` of a position carrying ``letter`` after ``state``."""
        started, levels = state
        ids = [self._intern(0, (letter, not started))]
        for j in range(1, self.depth + 1):
            seen, last = levels[j - 1]
            key = (
                ids[0],
                seen if self.fragment.past else None,
                frozenset(last) if self.fragment.window else None,
            )
            ids.append(self._intern(j, key))
        return ids

    def push(self, state: TypeState, letter: int) -> TypeState:
        """The state after one more position carrying ``letter``."""
        ids = self.types_at(state, letter)
        k = self.fragment.window
        return True, tuple(
            (
                seen | {ids[j]} if self.fragment.past else seen,
                (*last, ids[j])[-k:] if k else (),
            )
            for j, (seen, last) in enumerate(state[1])
        )

    def eos_type(self, word: Sequence[int]) -> int:
        """The depth-``depth`` type id of the EOS position of ``word`` (symbol codes)."""
        state = self.initial()
        for a in word:
            state = self.push(state, int(a))
        return self.types_at(state, EOS)[-1]

    def same_type(self, left: Sequence[int], right: Sequence[int]) -> bool:
        """Whether two words agree on every fragment formula of depth ≤ ``depth`` (at EOS)."""
        return self.eos_type(left) == self.eos_type(right)
