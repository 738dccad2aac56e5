"""References for the sparse-pattern tests: formulas over head operators, DFAs of formulas,
and depth-r types computed straight from the attention masks (no operator translation)."""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Hashable, Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import torch

from expressivity.algebra.operators import Fragment
from expressivity.algebra.type_automata import type_machines
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.errors import ConfigError
from expressivity.layouts import parse_spelling
from expressivity.models.layouts import Pattern, parse_layout

Formula = tuple[Any, ...]


def random_formula(rng: np.random.Generator, fragment: Fragment, letters: Sequence[str],
                   depth: int, nest_e: bool = True) -> Formula:
    """A random formula over the fragment's operators with at most ``depth`` nested heads.
    E is not nested inside E (no loss: nested E's are word constants, docs/theory.md)."""
    heads = fragment.operators
    roll = rng.random()
    if depth == 0 or roll < 0.25:
        atoms: list[Formula] = [("a", s) for s in letters] + [("eos",)]
        atoms += [("empty", i) for i in range(len(heads))]
        atoms += [("hub",)] if fragment.hubs > 1 else []
        return atoms[int(rng.integers(len(atoms)))]
    if roll < 0.4:
        return ("not", random_formula(rng, fragment, letters, depth, nest_e))
    if roll < 0.6:
        op = "and" if rng.random() < 0.5 else "or"
        return (op, random_formula(rng, fragment, letters, depth, nest_e),
                random_formula(rng, fragment, letters, depth - 1, nest_e))
    if fragment.summary and nest_e and roll < 0.7:
        return ("E", random_formula(rng, fragment, letters, depth - 1, False))
    i = int(rng.integers(len(heads)))
    if heads[i].flag_only:
        return ("empty", i)
    return ("dia", i, random_formula(rng, fragment, letters, depth - 1, nest_e))


def holds(f: Formula, word: Sequence[str], fragment: Fragment) -> list[bool]:
    """Truth of ``f`` at positions 1..N+1 of ``word``, from the definitions of the heads."""
    heads, size = fragment.operators, len(word) + 1
    kind = f[0]
    if kind == "a":
        return [n <= len(word) and word[n - 1] == f[1] for n in range(1, size + 1)]
    if kind == "eos":
        return [n == size for n in range(1, size + 1)]
    if kind == "empty":
        return [not heads[f[1]].keys(n) for n in range(1, size + 1)]
    if kind == "hub":
        return [n < fragment.hubs for n in range(1, size + 1)]
    if kind == "not":
        return [not v for v in holds(f[1], word, fragment)]
    if kind in ("and", "or"):
        a, b = holds(f[1], word, fragment), holds(f[2], word, fragment)
        return [(x and y) if kind == "and" else (x or y) for x, y in zip(a, b, strict=True)]
    inner = holds(f[-1], word, fragment)
    if kind == "E":
        return [any(inner)] * size
    return [any(inner[m - 1] for m in heads[f[1]].keys(n)) for n in range(1, size + 1)]


def formula_depth(f: Formula) -> int:
    inner = max((formula_depth(c) for c in f[1:] if isinstance(c, tuple)), default=0)
    return inner + (1 if f[0] == "dia" else 0)


@lru_cache(maxsize=64)
def _machine(fragment: Fragment, n_symbols: int, depth: int) -> Any:
    return list(type_machines(fragment, n_symbols, depth))[-1]


def _e_args(f: Formula) -> list[Formula]:
    if f[0] == "E":
        return [f[1]]
    return [g for c in f[1:] if isinstance(c, tuple) for g in _e_args(c)]


def formula_dfa(f: Formula, fragment: Fragment, alphabet: Alphabet, depth: int) -> DFA:
    """The minimal DFA of L(f) (E not nested): the depth-``depth`` type machine times, for each
    E-argument χ, whether χ held so far; χ at a position is read off a representative word of
    its type, and each product state is labelled by the formula on a representative word."""
    machine = _machine(fragment, len(alphabet), depth)
    k, chis = len(alphabet), list(dict.fromkeys(_e_args(f)))
    state_rep: dict[int, tuple[str, ...]] = {0: ()}
    todo = deque([0])
    while todo:
        m = todo.popleft()
        for a in range(k):
            nxt = int(machine.delta[m, a])
            if nxt not in state_rep:
                state_rep[nxt] = state_rep[m] + (alphabet.symbols[a],)
                todo.append(nxt)
    bits = {  # (m, a) -> which χ hold at the position reading letter a from state m
        (m, a): sum(1 << i for i, chi in enumerate(chis)
                    if holds(chi, (*rep, alphabet.symbols[a]), fragment)[-2])
        for m, rep in state_rep.items() for a in range(k)
    }
    start = (0, 0)
    index, reps, rows = {start: 0}, [()], []
    queue = deque([start])
    while queue:
        m, seen = queue.popleft()
        row = []
        for a in range(k):
            nxt = (int(machine.delta[m, a]), seen | bits[m, a])
            if nxt not in index:
                index[nxt] = len(index)
                reps.append(reps[index[(m, seen)]] + (alphabet.symbols[a],))
                queue.append(nxt)
            row.append(index[nxt])
        rows.append(row)
    accepting = [holds(f, w, fragment)[-1] for w in reps]
    return minimize(DFA(alphabet, np.array(rows), np.array(accepting), 0))


def words(letters: Sequence[str], max_len: int) -> list[tuple[str, ...]]:
    return [w for n in range(max_len + 1) for w in itertools.product(letters, repeat=n)]


def _patterns(layout: str, seed: int) -> list[Pattern]:
    """The distinct head patterns of ``layout`` at 5 × 8 when it fits, else at its smallest size."""
    unsized = parse_spelling(layout)
    try:
        size = (5, 8)
        unsized.sized(*size)
    except ConfigError:
        size = unsized.smallest
    out = {p: None for row in parse_layout(layout, *size, seed=seed).layers for p in row}
    return list(out)


def mask_types(word: Sequence[str], layout: str, depth: int, seed: int = 0) -> list[Hashable]:
    """Depth-r types of tokens [BOS, w1..wN, EOS] straight from the layout's masks (sink rule
    applied): each distinct head pattern reads the set of depth-(r−1) types at its keys."""
    tokens: list[Hashable] = ["<bos>", *word, "<eos>"]
    masks = [p.mask(len(tokens)) for p in _patterns(layout, seed)]
    keys = [[torch.nonzero(mk[n]).flatten().tolist() for mk in masks] for n in range(len(tokens))]
    types: list[Hashable] = list(tokens)
    for _ in range(depth):
        types = [(tokens[n], tuple(frozenset(types[m] for m in ks) for ks in keys[n]))
                 for n in range(len(tokens))]
    return types


def mask_stable_agree(u: Sequence[str], v: Sequence[str], layout: str, max_depth: int = 24,
                      seed: int = 0) -> bool:
    """u and v share their EOS type (from the masks) at every depth: the partition of all their
    tokens stops refining with equal EOS types (see `operators.stable_pair_depth`)."""
    prev = None
    for depth in range(max_depth + 1):
        tu, tv = mask_types(u, layout, depth, seed), mask_types(v, layout, depth, seed)
        ids: dict[Hashable, int] = {}
        part = [ids.setdefault(t, len(ids)) for t in [*tu, *tv]]
        if prev is not None and len(set(part)) == len(set(prev)):
            return tu[-1] == tv[-1]
        prev = part
    raise AssertionError(f"mask types of {u}, {v} did not stabilize by depth {max_depth}")
