"""Benchmark: exact uniform positives of length 40 from a 20-state DFA, against two baselines.

Draws 1,000,000 positives with `WordSampler` and, in the same run, measures vectorized
rejection sampling (uniform words filtered by the DFA) and automata-lib's exact
`DFA.random_word` (PyPI ``automata-lib``, the ``bench`` extra). The baselines are timed on
fewer words and compared per output symbol. Targets (issue 5): ≥ 2 M symbols/s and ≥ 10×
automata-lib. Run: ``python benchmarks/sampling.py [--n 1000000] [--baseline-n 2000]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.data.sampling import WordSampler

LENGTH = 40


def benchmark_dfa() -> DFA:
    """Over {a,b,c}: #a ≡ 0 (mod 5) and #b ≡ 1 (mod 4) — 20 states, density ≈ 1/20."""
    table = [
        [((i + 1) % 5) * 4 + j, i * 4 + (j + 1) % 4, i * 4 + j] for i in range(5) for j in range(4)
    ]
    accepting = [i == 0 and j == 1 for i in range(5) for j in range(4)]
    return minimize(DFA(Alphabet(("a", "b", "c")), table, accepting, 0))


def ours(dfa: DFA, n: int, seed: int) -> tuple[float, float, np.ndarray]:
    t0 = time.perf_counter()
    sampler = WordSampler.build(dfa, LENGTH)
    t1 = time.perf_counter()
    words = sampler.sample(LENGTH, n, np.random.default_rng(seed))
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, words


def rejection(dfa: DFA, n: int, seed: int) -> tuple[float, int]:
    """Uniform random words in batches of 65,536, kept when accepted (vectorized)."""
    rng = np.random.default_rng(seed)
    kept, drawn = 0, 0
    t0 = time.perf_counter()
    while kept < n:
        batch = rng.integers(0, dfa.n_symbols, size=(1 << 16, LENGTH), dtype=np.int8)
        kept += int(dfa.accepts_codes(batch).sum())
        drawn += batch.shape[0]
    return time.perf_counter() - t0, drawn


def automata_lib(dfa: DFA, n: int, seed: int) -> float | None:
    try:
        from automata.fa.dfa import DFA as LibDFA
    except ImportError:
        return None
    syms = dfa.alphabet.symbols
    lib = LibDFA(
        states=set(range(dfa.n_states)),
        input_symbols=set(syms),
        transitions={
            q: {s: int(dfa.transitions[q, a]) for a, s in enumerate(syms)}
            for q in range(dfa.n_states)
        },
        initial_state=dfa.initial,
        final_states={int(q) for q in np.flatnonzero(dfa.accepting)},
    )
    lib.random_word(LENGTH, seed=seed)  # fill its count cache outside the timing
    t0 = time.perf_counter()
    for i in range(n):
        lib.random_word(LENGTH, seed=seed + i)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000, help="positives drawn by WordSampler")
    parser.add_argument("--baseline-n", type=int, default=2_000, help="words drawn by automata-lib")
    parser.add_argument("--rejection-n", type=int, default=100_000, help="positives by rejection")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    dfa = benchmark_dfa()
    build, draw, words = ours(dfa, args.n, args.seed)
    assert dfa.accepts_codes(words).all()
    rate = args.n * LENGTH / draw
    print(
        f"DFA: {dfa.n_states} states over {dfa.alphabet}; {args.n:,} positives of length {LENGTH}"
    )
    print(
        f"WordSampler   : build {build * 1e3:7.1f} ms, draw {draw:7.3f} s"
        f"  -> {rate / 1e6:8.2f} M symbols/s"
    )

    rej_time, drawn = rejection(dfa, args.rejection_n, args.seed)
    rej_rate = args.rejection_n * LENGTH / rej_time
    print(
        f"rejection     : {args.rejection_n:,} positives from {drawn:,} uniform words"
        f" in {rej_time:6.3f} s"
        f"  -> {rej_rate / 1e6:8.2f} M symbols/s   (WordSampler is {rate / rej_rate:6.1f}x)"
    )
    lib_time = automata_lib(dfa, args.baseline_n, args.seed)
    if lib_time is None:
        print("automata-lib  : not installed (pip install -c constraints.txt automata-lib)")
        ok_lib = False
    else:
        lib_rate = args.baseline_n * LENGTH / lib_time
        ok_lib = rate >= 10 * lib_rate
        print(
            f"automata-lib  : {args.baseline_n:,} random_word calls in {lib_time:6.3f} s"
            f"  -> {lib_rate / 1e6:8.3f} M symbols/s   (WordSampler is {rate / lib_rate:6.1f}x)"
        )
    ok_rate = rate >= 2e6
    print(
        f"targets: >= 2 M symbols/s: {'PASS' if ok_rate else 'FAIL'};"
        f"  >= 10x automata-lib: {'PASS' if ok_lib else 'FAIL'}"
    )


if __name__ == "__main__":
    main()
