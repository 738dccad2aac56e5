"""Green's relations R, L, J = D, H of a transition monoid, via SCCs of its Cayley graphs.

s R t iff s·M = t·M iff s and t lie in one strongly connected component of the right Cayley
graph (edges s → s·a); L likewise with the left graph (s → a·s); J = D (M being finite)
= R ∘ L joins them; H = R ∩ L. Components are found by an iterative Tarjan over the integer
successor tables, linear in |M|·|Σ|.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from functools import cached_property
from typing import Protocol

import numpy as np

from expressivity.alphabet import Word
from expressivity.automata.dfa import DFA


class CayleyGraphs(Protocol):
    """What Green's relations read of a transition semigroup: its Cayley tables.

    `algebra.monoid.TransitionSemigroup` is one (and offers its relations as ``.green``); the
    protocol keeps this module below it, so the two do not import each other.
    """

    @property
    def dfa(self) -> DFA: ...  # whose alphabet spells the paths

    @property
    def right(self) -> np.ndarray: ...  # right[i, a] = index of s_i·a

    @property
    def left(self) -> np.ndarray: ...  # left[i, a] = index of a·s_i

    @property
    def idempotent(self) -> np.ndarray: ...  # mask of the idempotents

    @property
    def semigroup_size(self) -> int: ...  # indices below it form S

    @property
    def size(self) -> int: ...  # |M|


def strongly_connected_components(successors: np.ndarray) -> np.ndarray:
    """Component label of every node of the graph ``i → successors[i, j]`` (iterative Tarjan).

    Labels are numbered in the order Tarjan completes components, i.e. sinks first.
    """
    succ = successors.tolist()
    m = len(succ)
    index = [-1] * m
    low = [0] * m
    label = [-1] * m
    stack: list[int] = []
    on_stack = [False] * m
    counter = comp = 0
    for root in range(m):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            v, i = work[-1]
            row = succ[v]
            if i < len(row):
                work[-1] = (v, i + 1)
                w = row[i]
                if index[w] < 0:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack[w] = True
                    work.append((w, 0))
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            work.pop()
            if work and low[v] < low[work[-1][0]]:
                low[work[-1][0]] = low[v]
            if low[v] == index[v]:
                while True:
                    w = stack.pop()
                    on_stack[w] = False
                    label[w] = comp
                    if w == v:
                        break
                comp += 1
    return np.asarray(label, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class GreenRelations:
    """Class labels of R, L, J (= D) and H for every element of a transition monoid."""

    semigroup: CayleyGraphs

    @cached_property
    def rclass(self) -> np.ndarray:
        """R-class label of every element."""
        return strongly_connected_components(self.semigroup.right)

    @cached_property
    def lclass(self) -> np.ndarray:
        """L-class label of every element."""
        return strongly_connected_components(self.semigroup.left)

    @cached_property
    def jclass(self) -> np.ndarray:
        """J-class (= D-class, M being finite) label of every element.

        D = R ∘ L, so D-classes are the connected components of the graph joining each
        element's R-class to its L-class (union-find on class labels; no third SCC pass).
        """
        r, l = self.rclass, self.lclass
        offset = int(r.max()) + 1
        parent = list(range(offset + int(l.max()) + 1))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for a, b in set(zip(r.tolist(), (l + offset).tolist(), strict=True)):
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[max(ra, rb)] = min(ra, rb)
        roots = np.array([find(int(x)) for x in r])
        _, labels = np.unique(roots, return_inverse=True)
        return labels.ravel().astype(np.int64)

    @cached_property
    def hclass(self) -> np.ndarray:
        """H-class label of every element (one label per non-empty R ∩ L)."""
        _, labels = np.unique(
            np.stack([self.rclass, self.lclass], axis=1), axis=0, return_inverse=True
        )
        return labels.ravel().astype(np.int64)

    def class_sizes(self, labels: np.ndarray) -> np.ndarray:
        """Size of the class of every element, for one of the label arrays above."""
        return np.bincount(labels)[labels]

    @cached_property
    def regular(self) -> np.ndarray:
        """Mask of regular elements: those whose R-class contains an idempotent."""
        has_idem = np.zeros(int(self.rclass.max()) + 1, dtype=bool)
        has_idem[self.rclass[self.semigroup.idempotent]] = True
        return has_idem[self.rclass]

    @cached_property
    def minimal_ideal(self) -> np.ndarray:
        """Mask of the minimal ideal K(S) of S: the J-class of S below every other one."""
        sg = self.semigroup
        s = sg.semigroup_size
        both = np.hstack([sg.right[:s], sg.left[:s]])
        leaves = self.jclass[both] != self.jclass[:s, None]
        non_sink = np.zeros(int(self.jclass.max()) + 1, dtype=bool)
        non_sink[self.jclass[:s][leaves.any(axis=1)]] = True
        mask = np.zeros(sg.size, dtype=bool)
        mask[:s] = ~non_sink[self.jclass[:s]]
        assert len(np.unique(self.jclass[mask])) == 1, "a finite semigroup has one minimal ideal"
        return mask

    # ---------------------------------------------------------------- paths
    def right_path(self, source: int, target: int) -> Word:
        """A shortest word u with s_source·u = s_target (BFS on the right Cayley graph)."""
        return _bfs(self.semigroup, self.semigroup.right, source, target, reverse=False)

    def left_path(self, source: int, target: int) -> Word:
        """A shortest word u with u·s_source = s_target (BFS on the left Cayley graph)."""
        return _bfs(self.semigroup, self.semigroup.left, source, target, reverse=True)


def _bfs(
    sg: CayleyGraphs, table: np.ndarray, source: int, target: int, reverse: bool
) -> Word:
    prev: dict[int, tuple[int, int]] = {source: (-1, -1)}
    queue = deque([source])
    while queue:
        v = queue.popleft()
        if v == target:
            codes: list[int] = []
            while prev[v][0] >= 0:
                v, a = prev[v]
                codes.append(a)
            if not reverse:  # right path: letters were appended, collected last-first
                codes.reverse()
            return sg.dfa.alphabet.decode(codes)
        for a, w in enumerate(table[v].tolist()):
            if w not in prev:
                prev[w] = (v, a)
                queue.append(w)
    raise ValueError(f"element {target} is not reachable from {source}")
