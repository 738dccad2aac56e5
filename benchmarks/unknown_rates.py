"""How often `classify` answers "unknown", per layout of the full table, on seeded random languages.

Issue 31 ("Fewer unknowns"): an audit measured the unknown rate of each layout on 300 random
languages; this script makes that measurement reproducible. The languages are drawn from one
seed (`numpy.random.default_rng(seed)`, no global RNG), a third each as random regexes, random
past-time formulas (P, Y, Y^k, Y<=k, H, S) and random minimal DFAs of 3..6 states, over 2 or 3
letters, the way the audit drew them. Each is classified once with every layout of the full
table (the 11 of `experiments/catalogue.toml` plus longformer-1-1 and bigbird-2-1-1) at the
default bounds of `classify` (depth 4, 20,000 states), and the script prints, per layout, the
rate of yes / no / unknown and which bound the unknowns hit.

Run: ``python benchmarks/unknown_rates.py [--n 300] [--seed 0] [--show LAYOUT] [--per-seed L]``
(about 3-5 minutes of one core for 300 languages). Same seed, same languages, same table.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Sequence

import numpy as np

from expressivity.algebra.classify import classify
from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.automata.ops import minimize
from expressivity.errors import ExpressivityError
from expressivity.models.depth import SEEDS, seed_certificates
from expressivity.resolve import resolve

#: The full table's layouts (experiments/catalogue.toml) with longformer-1-1 and bigbird-2-1-1.
LAYOUTS: tuple[str, ...] = (
    "global", "local-1", "local-2", "local-4", "hybrid-1", "hybrid-2", "hybrid-4",
    "longformer-1-1", "longformer-2-1", "bigbird-2-1-1", "bigbird-2-2-1", "dilated-2-2",
    "block-4",
)
#: The layouts `classify` answers from ``ks`` = (1, 2, 4); the others are passed as spellings.
NAMED = frozenset(LAYOUTS[:7])


def random_regex(rng: np.random.Generator, letters: Sequence[str], depth: int) -> str:
    """A random regex (union, concatenation, star, option) of nesting depth <= ``depth``."""
    roll = rng.random()
    if depth == 0 or roll < 0.3:
        return str(rng.choice(letters))
    if roll < 0.55:
        return (f"{random_regex(rng, letters, depth - 1)} "
                f"{random_regex(rng, letters, depth - 1)}")
    if roll < 0.75:
        return (f"({random_regex(rng, letters, depth - 1)}|"
                f"{random_regex(rng, letters, depth - 1)})")
    if roll < 0.9:
        return f"({random_regex(rng, letters, depth - 1)})*"
    return f"({random_regex(rng, letters, depth - 1)})?"


def random_formula(rng: np.random.Generator, letters: Sequence[str], depth: int) -> str:
    """A random past-time formula of operator depth <= ``depth`` in the toolkit's syntax."""
    roll = rng.random()
    if depth == 0 or roll < 0.2:
        return str(rng.choice([*letters, "true", "start"]))
    sub = random_formula(rng, letters, depth - 1)
    if roll < 0.3:
        return f"!({sub})"
    if roll < 0.45:
        op = "&" if rng.random() < 0.5 else "|"
        return f"({sub}) {op} ({random_formula(rng, letters, depth - 1)})"
    if roll < 0.6:
        return f"P({sub})"
    if roll < 0.72:
        return f"Y({sub})"
    if roll < 0.8:
        return f"Y^{int(rng.integers(2, 4))}({sub})"
    if roll < 0.88:
        return f"Y<={int(rng.integers(2, 4))}({sub})"
    if roll < 0.94:
        return f"H({sub})"
    return f"({sub}) S ({random_formula(rng, letters, depth - 1)})"


def random_dfa(rng: np.random.Generator, letters: Sequence[str]) -> DFA:
    """A random complete DFA of 3..6 states over ``letters``, minimized."""
    n = int(rng.integers(3, 7))
    table = rng.integers(0, n, (n, len(letters)))
    return minimize(DFA(Alphabet(tuple(letters)), table, rng.random(n) < 0.5))


def random_languages(n: int, seed: int) -> list[tuple[str, DFA]]:
    """``n`` random languages (label, minimal DFA), a third of each kind, from ``seed`` alone.
    Languages that the toolkit refuses (e.g. a regex over a letter outside Σ) are redrawn."""
    rng = np.random.default_rng(seed)
    out: list[tuple[str, DFA]] = []
    while len(out) < n:
        letters = ("a", "b", "c")[: int(rng.integers(2, 4))]
        kind = len(out) % 3
        sigma = ",".join(letters)
        if kind == 2:
            dfa = random_dfa(rng, letters)
            out.append((f"dfa:{dfa.n_states} states over {{{sigma}}}", dfa))
            continue
        text = ("re:" + random_regex(rng, letters, 5) if kind == 0
                else random_formula(rng, letters, 4))
        try:
            out.append((f"{text} over {{{sigma}}}", resolve(text, sigma).dfa))
        except ExpressivityError:
            continue
    return out


def bound_hit(reason: str) -> str:
    """Which bound an "unknown" hit, read from its reason."""
    if "random keys" in reason or "seed" in reason:
        return "seed (random keys)"
    if "state bound" in reason:
        return "state bound"
    if "depth bound" in reason:
        return "depth bound"
    return "other"


def measure(n: int, seed: int, show: str | None = None,
            per_seed: int = 0) -> dict[str, Counter[str]]:
    """Classify ``n`` random languages with every layout; the counts of each answer. With
    ``per_seed`` = L > 0, each random-key unknown is also checked per mask seed (`SEEDS`) at
    exactly L layers × 4 heads (`models.depth.seed_certificates`): how many seeds have a
    raw-mask "no at this size" certificate."""
    counts: dict[str, Counter[str]] = {layout: Counter() for layout in LAYOUTS}
    extra = [layout for layout in LAYOUTS if layout not in NAMED]
    slowest = (0.0, "")
    for label, dfa in random_languages(n, seed):
        t = time.perf_counter()
        try:
            c = classify(dfa, (1, 2, 4), layouts=extra, synthesize=False)
        except ExpressivityError as err:  # e.g. a semigroup over the size bound
            for layout in LAYOUTS:
                counts[layout]["error"] += 1
            print(f"  error on {label}: {type(err).__name__}")
            continue
        slowest = max(slowest, (time.perf_counter() - t, label))
        for layout in LAYOUTS:
            r = c.recognizer(layout)
            counts[layout][r.status] += 1
            if r.status == "unknown":
                counts[layout]["unknown: " + bound_hit(r.reason)] += 1
                if per_seed and "random keys" in r.reason:
                    found = seed_certificates(dfa, layout, per_seed, n_heads=4)
                    hits = sum(c is not None for c in found.values())
                    counts[layout][f"per seed: no for {hits} of {len(SEEDS)} seeds"] += 1
                if layout == show:
                    print(f"  {layout} unknown on {label}: {r.reason[:160]}")
    print(f"slowest language: {slowest[0]:.2f} s ({slowest[1]})")
    return counts


def report(counts: dict[str, Counter[str]], n: int) -> None:
    """One line per layout: yes / no / unknown rates and the bounds the unknowns hit."""
    print(f"{'layout':<16}{'yes':>7}{'no':>7}{'unknown':>9}  bounds hit by the unknowns")
    for layout, c in counts.items():
        hits = ", ".join(f"{k.split(': ')[1]} {v}" for k, v in sorted(c.items())
                         if k.startswith("unknown: "))
        print(f"{layout:<16}{100 * c['yes'] / n:6.1f}%{100 * c['no'] / n:6.1f}%"
              f"{100 * c['unknown'] / n:8.1f}%  {hits}")
        seeds = ", ".join(f"{k.split(': ')[1]}: {v}" for k, v in sorted(c.items())
                          if k.startswith("per seed: "))
        if seeds:
            print(f"{'':<16}per mask seed at the given depth: {seeds}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300, help="random languages (default 300)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the languages (default 0)")
    parser.add_argument("--show", default=None, help="print each unknown of this layout")
    parser.add_argument("--per-seed", type=int, default=0, metavar="L",
                        help="check random-key unknowns per mask seed at exactly L layers")
    args = parser.parse_args()
    start = time.perf_counter()
    counts = measure(args.n, args.seed, args.show, args.per_seed)
    report(counts, args.n)
    print(f"{args.n} languages (seed {args.seed}) in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
