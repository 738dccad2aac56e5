"""Benchmark `algebra.classify`: the whole catalogue, then random DFAs with growing semigroups.

Targets (issue 4): the catalogue in < 5 s in total; a semigroup of about 10^5 elements
enumerated and classified in < 30 s. Run: ``python benchmarks/classify.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from expressivity.algebra.classify import classify
from expressivity.algebra.monoid import transition_semigroup
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.catalogue import load_catalogue
from expressivity.errors import SemigroupTooLargeError


def bench_catalogue() -> float:
    """Classify every regular catalogue language; print one line each and the total."""
    start = time.perf_counter()
    for name, lang in load_catalogue().items():
        if not lang.is_regular:
            continue
        t = time.perf_counter()
        c = classify(lang.dfa(), name=lang.name)
        layouts = " ".join(f"{r.layout}={r.status}" for r in c.recognizers)
        print(f"  {name:<12} |S|={c.semigroup_size:<5} {time.perf_counter() - t:6.3f}s  {layouts}")
    total = time.perf_counter() - start
    print(f"catalogue: {total:.2f}s in total (target < 5 s)")
    return total


def random_dfas(rng: np.random.Generator, n: int, k: int = 3) -> DFA:
    """A random complete DFA on n states over k letters, minimized."""
    sigma = Alphabet(tuple("abcdefgh"[:k]))
    return minimize(DFA(sigma, rng.integers(0, n, (n, k)), rng.random(n) < 0.5))


def bench_growing(seed: int, largest: int) -> None:
    """Random 3-letter DFAs of 6..11 states: classify one per size band (×/÷3 around 10^j)."""
    rng = np.random.default_rng(seed)
    bands = [b for b in (10**2, 10**3, 10**4, 10**5) if b <= largest]
    rows: list[tuple[int, int, float, float]] = []
    for _ in range(1000):
        if len(rows) == len(bands):
            break
        dfa = random_dfas(rng, int(rng.integers(6, 12)))
        try:
            t = time.perf_counter()
            size = transition_semigroup(dfa, max_size=3 * largest).semigroup_size
            enum = time.perf_counter() - t
        except SemigroupTooLargeError:
            continue
        done = {band for band, *_ in ((_band(r[1], bands), r) for r in rows)}
        band = _band(size, bands)
        if band is None or band in done:
            continue
        t = time.perf_counter()
        c = classify(dfa, max_size=3 * largest)
        rows.append((dfa.n_states, c.semigroup_size, enum, time.perf_counter() - t))
    print(f"{'states':>6} {'|S|':>8} {'enumerate':>10} {'classify':>9}  (target < 30 s at ~10^5)")
    for n, size, enum, cls in sorted(rows, key=lambda r: r[1]):
        print(f"{n:>6} {size:>8} {enum:>9.2f}s {cls:>8.2f}s")


def _band(size: int, bands: list[int]) -> int | None:
    return next((b for b in bands if b // 3 <= size <= 3 * b), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="stop at semigroups of ~10^4")
    args = parser.parse_args()
    bench_catalogue()
    bench_growing(args.seed, 10**4 if args.quick else 10**5)


if __name__ == "__main__":
    main()
