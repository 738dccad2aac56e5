"""Benchmark: formula → minimal DFA, this toolkit against ltlf2dfa + MONA, in the same run.

Usage::

    python benchmarks/compile.py [--count 120] [--seed 0] [--max-len 6] [--timeout 30]

A fixed, seeded suite of random pure-past formulas (sizes 5–40 syntax-tree nodes, alphabets
of 2–4 symbols) is compiled by `expressivity.automata.compile_formula` and by the reference,
ltlf2dfa's PPLTL translation into a MONA program run by the MONA binary (benchmark-only
dependencies: ``pip install ltlf2dfa``, ``apt-get install mona``).

Encoding for the reference (checked, not assumed: both automata must agree on every word up
to ``--max-len``). A word w1…wN becomes the trace w1…wN·EOS over propositions Σ ∪ {eos};
the trace must hold exactly one proposition per position, ``eos`` exactly at its last position,
and the formula is evaluated there (ltlf2dfa evaluates at the last trace position). Our strict
operators map to ltlf2dfa's non-strict ones: P ψ = Y O ψ (ltlf2dfa's ``P`` is *past release*,
its once is ``O``), H ψ = WY H ψ, ψ1 S ψ2 = Y(ψ1 S ψ2), Y^k = Y…Y, Y^{≤k} ψ = ⋁_j Y^j ψ,
start = WY false.

Timed: ours, AST → canonical minimal DFA; the reference, its AST → MONA program text → MONA
run (the ``mona -q -u -w`` call ltlf2dfa makes, without a shell, and without ltlf2dfa's
sympy post-processing of the output into DOT, which would only slow it down). Each tool gets
the same time budget per formula and reports its best run: at least ``--repeat`` runs and at
least ``--budget`` seconds of them (timeit's autorange idea), which is three or four MONA runs
and a few dozen of ours. Our first runs after each MONA process are slowed by cold caches
(best of 3 about 15% above best of 20 in one measurement); a MONA run starts a process each
time, so that cost is its own. Printed: per-size medians, the overall median speedup, the worst
case, two formulas with 30 temporal subformulas (the first seeded random formula with
exactly 30 distinct ones, and a chain of 30 alternating P and Y), and the time until
`StateExplosionError` for a formula built to blow up (target < 1 s).

The LTLf dialect (``--logic ltlf``, `expressivity.logic.ltlf`) is checked the same way: a
seeded suite of random future formulas (X, WX, F, G, U and connectives; ``--ltlf-count``) is
compiled through the toolkit's translation and by ltlf2dfa's own LTLf translation into MONA,
the word w1…wN being the trace of N positions with exactly the proposition wi at position i
(no EOS: LTLf reads the letters only), the empty word included. Printed: how many agree on
every word up to ``--max-len``, and the median times of both.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from expressivity.alphabet import Alphabet
from expressivity.automata.compile import DEFAULT_MAX_STATES, compile_formula
from expressivity.automata.dfa import DFA
from expressivity.errors import StateExplosionError
from expressivity.logic import syntax as s
from expressivity.logic import temporal as tl
from expressivity.logic.ltlf import language_formula

BUCKETS = ((5, 10), (11, 20), (21, 30), (31, 40))
UNARY = ("!", "P", "Y", "H", "Y^k", "Y<=k")
BINARY = ("&", "|", "->", "S")


def random_formula(rng: np.random.Generator, size: int, symbols: Sequence[str]) -> s.Formula:
    """A random pure-past formula with exactly ``size`` syntax-tree nodes."""
    if size == 1:
        if rng.random() < 0.9:
            return s.Symbol(symbols[int(rng.integers(len(symbols)))])
        return s.TRUE if rng.random() < 0.5 else s.START
    ops = UNARY if size == 2 else UNARY + BINARY + ("&", "|")
    op = ops[int(rng.integers(len(ops)))]
    if op in BINARY:
        left = int(rng.integers(1, size - 1))
        a, b = random_formula(rng, left, symbols), random_formula(rng, size - 1 - left, symbols)
        return {"&": s.And, "|": s.Or, "->": s.Implies, "S": tl.Since}[op](a, b)
    a = random_formula(rng, size - 1, symbols)
    if op == "Y^k":
        return tl.Yesterday(a, int(rng.integers(2, 4)))
    if op == "Y<=k":
        return tl.BoundedPast(a, int(rng.integers(2, 4)))
    return {"!": s.Not, "P": tl.Past, "Y": tl.Yesterday, "H": tl.Historically}[op](a)


def suite(count: int, seed: int) -> list[tuple[s.Formula, Alphabet]]:
    """``count`` formulas; sizes sweep 5..40 and alphabets cycle through 2..4 symbols."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        size = 5 + (i * 36) // count
        sigma = Alphabet(tuple("abcd"[: 2 + i % 3]))
        out.append((random_formula(rng, size, sigma.symbols), sigma))
    return out


def thirty_temporal(seed: int) -> tuple[s.Formula, Alphabet]:
    """The first seeded random formula over {a,b,c} with exactly 30 temporal subformulas."""
    rng = np.random.default_rng(seed)
    sigma = Alphabet(("a", "b", "c"))
    while True:
        f = random_formula(rng, 64, sigma.symbols)
        if sum(1 for g in set(f.subformulas()) if g.temporal) == 30:
            return f, sigma


def chain(depth: int) -> tuple[s.Formula, Alphabet]:
    """P(a ∧ Y(b ∧ P(c ∧ Y(a ∧ …)))): ``depth`` nested operators, alternately P and Y."""
    f: s.Formula = s.TRUE
    for i in range(depth - 1, -1, -1):
        step = tl.Past if i % 2 == 0 else tl.Yesterday
        f = step(s.And(s.Symbol("abc"[i % 3]), f))
    return f, Alphabet(("a", "b", "c"))


def random_future_formula(rng: np.random.Generator, size: int, symbols: Sequence[str]) -> s.Formula:
    """A random LTLf formula (future operators and connectives) with ``size`` tree nodes."""
    if size == 1:
        if rng.random() < 0.85:
            return s.Symbol(symbols[int(rng.integers(len(symbols)))])
        return s.TRUE if rng.random() < 0.5 else s.FALSE
    unary = ("!", "X", "WX", "F", "G")
    ops = unary if size == 2 else (*unary, "&", "|", "->", "<->", "U", "U")
    op = ops[int(rng.integers(len(ops)))]
    if op in unary:
        a = random_future_formula(rng, size - 1, symbols)
        return {"!": s.Not, "X": tl.Next, "WX": tl.WeakNext, "F": tl.Eventually,
                "G": tl.Globally}[op](a)
    left = int(rng.integers(1, size - 1))
    a = random_future_formula(rng, left, symbols)
    b = random_future_formula(rng, size - 1 - left, symbols)
    return {"&": s.And, "|": s.Or, "->": s.Implies, "<->": s.Iff, "U": tl.Until}[op](a, b)


def ltlf_suite(count: int, seed: int) -> list[tuple[s.Formula, Alphabet]]:
    """``count`` random LTLf formulas of 2..16 nodes over alphabets of 2..3 symbols."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        sigma = Alphabet(tuple("abc"[: 2 + i % 2]))
        out.append((random_future_formula(rng, 2 + (i * 15) // count, sigma.symbols), sigma))
    return out


# ------------------------------------------------------------------ the reference


def to_ltlf2dfa(f: s.Formula) -> Any:
    """An LTLf formula of our AST as ltlf2dfa's LTLf AST (the same operators, same meaning)."""
    from ltlf2dfa import ltlf as x

    match f:
        case s.Symbol(name):
            return x.LTLfAtomic(name)
        case s.Top():
            return x.LTLfTrue()
        case s.Bottom():
            return x.LTLfFalse()
        case s.Not(a):
            return x.LTLfNot(to_ltlf2dfa(a))
        case s.And(a, b):
            return x.LTLfAnd([to_ltlf2dfa(a), to_ltlf2dfa(b)])
        case s.Or(a, b):
            return x.LTLfOr([to_ltlf2dfa(a), to_ltlf2dfa(b)])
        case s.Implies(a, b):
            return x.LTLfImplies([to_ltlf2dfa(a), to_ltlf2dfa(b)])
        case s.Iff(a, b):
            return x.LTLfEquivalence([to_ltlf2dfa(a), to_ltlf2dfa(b)])
        case tl.Next(a):
            return x.LTLfNext(to_ltlf2dfa(a))
        case tl.WeakNext(a):
            return x.LTLfWeakNext(to_ltlf2dfa(a))
        case tl.Eventually(a):
            return x.LTLfEventually(to_ltlf2dfa(a))
        case tl.Globally(a):
            return x.LTLfAlways(to_ltlf2dfa(a))
        case tl.Until(a, b):
            return x.LTLfUntil([to_ltlf2dfa(a), to_ltlf2dfa(b)])
    raise TypeError(f"not an LTLf formula node of ltlf2dfa: {f!r}")


def ltlf_disagreement(
    dfa: DFA, mona_out: str, sigma: Alphabet, max_len: int
) -> tuple[str, ...] | None:
    """The first word of length ≤ ``max_len`` (in length, then alphabet order) on which our
    DFA and MONA's automaton of an LTLf formula disagree, else None; a word is the trace with
    exactly its letter true at each position."""
    accepts = Mona.acceptor(mona_out)
    for n in range(max_len + 1):
        for w in itertools.product(sigma.symbols, repeat=n):
            if accepts([{letter: True} for letter in w]) != dfa.accepts(w):  # type: ignore[arg-type]
                return w
    return None


def to_ppltl(f: s.Formula) -> Any:
    """Our AST (strict operators) as an ltlf2dfa PPLTL AST (non-strict), see the docstring."""
    from ltlf2dfa import ppltl as p

    def before(x: Any, k: int = 1) -> Any:
        for _ in range(k):
            x = p.PPLTLBefore(x)
        return x

    match f:
        case s.Symbol(name):
            return p.PPLTLAtomic(name)
        case s.Top():
            return p.PPLTLTrue()
        case s.Bottom():
            return p.PPLTLFalse()
        case s.Start():
            return p.PPLTLWeakBefore(p.PPLTLFalse())
        case s.Eos():
            return p.PPLTLAtomic("eos")
        case s.Not(a):
            return p.PPLTLNot(to_ppltl(a))
        case s.And(a, b):
            return p.PPLTLAnd([to_ppltl(a), to_ppltl(b)])
        case s.Or(a, b):
            return p.PPLTLOr([to_ppltl(a), to_ppltl(b)])
        case s.Implies(a, b):
            return p.PPLTLImplies([to_ppltl(a), to_ppltl(b)])
        case s.Iff(a, b):
            return p.PPLTLEquivalence([to_ppltl(a), to_ppltl(b)])
        case tl.Past(a):
            return before(p.PPLTLOnce(to_ppltl(a)))
        case tl.Yesterday(a, k):
            return before(to_ppltl(a), k)
        case tl.BoundedPast(a, k):
            inner = to_ppltl(a)
            terms = [before(inner, j) for j in range(1, k + 1)]
            return terms[0] if k == 1 else p.PPLTLOr(terms)
        case tl.Historically(a):
            return p.PPLTLWeakBefore(p.PPLTLHistorically(to_ppltl(a)))
        case tl.Since(a, b):
            return before(p.PPLTLSince([to_ppltl(a), to_ppltl(b)]))
    raise TypeError(f"not a pure-past formula node: {f!r}")


def reference_formula(f: s.Formula, sigma: Alphabet) -> Any:
    """φ ∧ "exactly one proposition per position" ∧ "eos exactly at the last position"."""
    from ltlf2dfa import ppltl as p

    props = [*sigma.symbols, "eos"]
    one = p.PPLTLOr(
        [
            p.PPLTLAnd(
                [p.PPLTLAtomic(x) if x == y else p.PPLTLNot(p.PPLTLAtomic(x)) for x in props]
            )
            for y in props
        ]
    )
    eos = p.PPLTLAtomic("eos")
    last = p.PPLTLAnd([eos, p.PPLTLWeakBefore(p.PPLTLHistorically(p.PPLTLNot(eos)))])
    return p.PPLTLAnd([to_ppltl(f), p.PPLTLHistorically(one), last])


class Mona:
    """Runs ltlf2dfa's MONA program for a PPLTL formula and reads the automaton back."""

    def __init__(self, workdir: str, timeout: float) -> None:
        self.path = os.path.join(workdir, "automa.mona")
        self.timeout = timeout
        self.exe = shutil.which("mona") or "mona"

    def compile(self, formula: Any) -> str | None:
        """MONA's output text (``None`` on timeout); this is the timed part."""
        from ltlf2dfa.base import MonaProgram

        with open(self.path, "w", encoding="utf-8") as fh:
            fh.write(MonaProgram(formula).mona_program())
        try:
            run = subprocess.run(
                [self.exe, "-q", "-u", "-w", self.path],
                capture_output=True,
                text=True,
                timeout=self.timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None
        return run.stdout

    @staticmethod
    def acceptor(output: str) -> Callable[[dict[str, bool]], bool]:
        """Membership of a trace (a list of proposition valuations) in MONA's automaton."""
        names = re.search(r"free variables:\s*(.*)\n", output)
        order = names.group(1).split() if names else []
        accepting = set(re.search(r"Accepting states:(.*)\n", output).group(1).split())  # type: ignore[union-attr]
        rules: dict[str, list[tuple[str, str]]] = {}
        for src, guard, dst in re.findall(r"State (\d+): (\S*) -> state (\d+)", output):
            rules.setdefault(src, []).append((guard, dst))

        def step(state: str, letter: dict[str, bool]) -> str:
            bits = "".join("1" if letter.get(v.lower(), False) else "0" for v in order)
            for guard, dst in rules[state]:
                if all(g in ("X", b) for g, b in zip(guard, bits, strict=False)):
                    return dst
            raise AssertionError(f"no MONA transition from {state} on {bits}")

        def accepts(trace: list[dict[str, bool]]) -> bool:
            state = step("0", {})  # MONA's initial state reads one padding letter
            for letter in trace:
                state = step(state, letter)
            return state in accepting

        return accepts  # type: ignore[return-value]


def same_language(dfa: DFA, mona_out: str, sigma: Alphabet, max_len: int) -> bool:
    """Both automata agree on every word of length ≤ ``max_len``."""
    accepts = Mona.acceptor(mona_out)
    for n in range(max_len + 1):
        for w in itertools.product(sigma.symbols, repeat=n):
            trace: list[dict[str, bool]] = [{x: True} for x in w] + [{"eos": True}]
            if accepts(trace) != dfa.accepts(w):  # type: ignore[arg-type]
                return False
    return True


# ------------------------------------------------------------------ timing and report


def best_of(
    fn: Callable[[], Any], repeat: int, budget: float = 0.0, give_up: float = 2.0
) -> tuple[float, Any]:
    """Best wall time of at least ``repeat`` calls that together take at least ``budget`` s.

    The budget gives both tools the same time to show their steady state (timeit's autorange
    idea): about three MONA runs, or a few dozen of ours, whose first runs after each MONA
    process are slowed by cold caches. One call only when the first exceeds ``give_up`` s.
    """
    best, result, spent, runs = float("inf"), None, 0.0, 0
    while runs < repeat or spent < budget:
        t0 = time.perf_counter()
        result = fn()
        took = time.perf_counter() - t0
        best, spent, runs = min(best, took), spent + took, runs + 1
        if best > give_up:
            break
    return best, result


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--count", type=int, default=120, help="number of random formulas (>= 100)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-len", type=int, default=6, help="check agreement on words up to this")
    ap.add_argument("--repeat", type=int, default=3, help="at least this many runs per tool")
    ap.add_argument(
        "--budget", type=float, default=0.02, help="and at least this many seconds of runs (s)"
    )
    ap.add_argument("--timeout", type=float, default=30.0, help="MONA time limit per formula (s)")
    ap.add_argument("--ltlf-count", type=int, default=300, help="random LTLf formulas to check")
    args = ap.parse_args(argv)

    problems = _reference_problems()
    if problems:
        print(f"REFERENCE UNAVAILABLE: {problems}; timing this toolkit alone.")
    formulas = suite(args.count, args.seed)
    rows = []  # (size, ours, theirs | None, states)
    mismatches = timeouts = 0
    with tempfile.TemporaryDirectory() as tmp:
        mona = Mona(tmp, args.timeout)
        for f, sigma in formulas:
            ours, dfa = best_of(
                lambda f=f, sigma=sigma: compile_formula(f, sigma), args.repeat, args.budget
            )
            theirs = None
            if not problems:
                ref = reference_formula(f, sigma)
                theirs, out = best_of(lambda ref=ref: mona.compile(ref), args.repeat, args.budget)
                if out is None:
                    timeouts, theirs = timeouts + 1, None
                elif not same_language(dfa, out, sigma, args.max_len):
                    mismatches += 1
                    print(f"MISMATCH over {sigma}: {f}")
            rows.append((f.size, ours, theirs, dfa.n_states))
        bigs = [("random", *thirty_temporal(args.seed)), ("P/Y chain", *chain(30))]
        results = []
        for label, big, sigma3 in bigs:
            big_ours, big_dfa = best_of(
                lambda big=big, s3=sigma3: compile_formula(big, s3), args.repeat, args.budget
            )
            big_theirs, big_out = None, None
            if not problems:
                ref = reference_formula(big, sigma3)
                big_theirs, big_out = best_of(
                    lambda ref=ref: mona.compile(ref), args.repeat, args.budget
                )
            results.append((label, big, sigma3, big_ours, big_dfa, big_theirs, big_out))
    _report(rows, args, problems, mismatches, timeouts)
    for label, big, sigma3, big_ours, big_dfa, big_theirs, big_out in results:
        print(
            f"\n30 temporal subformulas, {label} (size {big.size}, Σ = {sigma3}): ours "
            f"{big_ours * 1e3:.1f} ms ({big_dfa.n_states} states, target < 2 s)",
            end="",
        )
        if big_out is not None and big_theirs is not None:
            agree = same_language(big_dfa, big_out, sigma3, args.max_len)
            mismatches += not agree
            print(
                f"; ltlf2dfa+MONA {big_theirs * 1e3:.1f} ms ({big_theirs / big_ours:.0f}x), "
                f"same language up to length {args.max_len}: {agree}"
            )
        else:
            print("; reference: " + ("timed out" if not problems else "unavailable"))
        print(f"  formula: {big}")
    _explosion()
    mismatches += _ltlf_check(args, problems)
    return 1 if mismatches else 0


def _ltlf_check(args: argparse.Namespace, problems: str) -> int:
    """The LTLf dialect against ltlf2dfa + MONA on a seeded suite; returns the mismatches."""
    formulas = ltlf_suite(args.ltlf_count, args.seed)
    ours_times, theirs_times, agree, mismatches = [], [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        mona = Mona(tmp, args.timeout)
        for f, sigma in formulas:
            goal = language_formula(f, logic="ltlf")
            ours, dfa = best_of(lambda g=goal, sg=sigma: compile_formula(g, sg), 1)
            ours_times.append(ours)
            if problems:
                continue
            theirs, out = best_of(lambda f=f: mona.compile(to_ltlf2dfa(f)), 1)
            if out is None:
                continue
            theirs_times.append(theirs)
            word = ltlf_disagreement(dfa, out, sigma, args.max_len)
            if word is None:
                agree += 1
            else:
                mismatches += 1
                print(f"LTLf MISMATCH over {sigma} on {sigma.format_word(word)}: {f}")
    print(f"\nLTLf dialect: {len(formulas)} random future formulas (seed {args.seed}); ours "
          f"median {statistics.median(ours_times) * 1e3:.2f} ms", end="")
    if problems or not theirs_times:
        print("; reference unavailable")
        return 0
    print(f", ltlf2dfa+MONA median {statistics.median(theirs_times) * 1e3:.2f} ms; same "
          f"language on every word up to length {args.max_len} (ε included): "
          f"{agree}/{len(theirs_times)}")
    return mismatches


def blowup() -> tuple[s.Formula, Alphabet]:
    """⋀_{k=1..12} (Y^k a ↔ Y^{k+12} a) over {a,b,c}: its minimal DFA needs about 2^24 states."""
    a = s.Symbol("a")
    f = s.conj(*(s.Iff(tl.Yesterday(a, k), tl.Yesterday(a, k + 12)) for k in range(1, 13)))
    return f, Alphabet(("a", "b", "c"))


def _explosion() -> None:
    """Time until `StateExplosionError` for a formula built to blow up (target < 1 s)."""
    f, sigma = blowup()
    times = []
    for bound in (20_000, DEFAULT_MAX_STATES):
        t0 = time.perf_counter()
        try:
            compile_formula(f, sigma, max_states=bound)
        except StateExplosionError:
            times.append(f"{(time.perf_counter() - t0) * 1e3:.0f} ms with max_states={bound}")
        else:  # pragma: no cover - the bounds are far below 2^24
            raise AssertionError("the blow-up formula compiled within the bound")
    print(
        f"\nStateExplosionError for ⋀_(k=1..12) (Y^k a <-> Y^(k+12) a) over {sigma} (about 2^24 "
        f"states): raised after {', '.join(times)} (target < 1 s)"
    )


def _report(
    rows: list[Any], args: argparse.Namespace, problems: str, mismatches: int, timeouts: int
) -> None:
    print(f"{len(rows)} random pure-past formulas, seed {args.seed}, alphabets of 2-4 symbols")
    print(f"{'size':>7} {'n':>4} {'ours (ms)':>10} {'MONA (ms)':>10} {'speedup':>8} {'states':>7}")
    for lo, hi in BUCKETS:
        sel = [r for r in rows if lo <= r[0] <= hi]
        if not sel:
            continue
        ours = statistics.median(r[1] for r in sel) * 1e3
        states = statistics.median(r[3] for r in sel)
        timed = [r for r in sel if r[2] is not None]
        if timed:
            theirs = statistics.median(r[2] for r in timed) * 1e3
            speed = statistics.median(r[2] / r[1] for r in timed)
            cells = f"{ours:>10.3f} {theirs:>10.2f} {speed:>7.1f}x {states:>7.0f}"
            print(f"{lo:>3}-{hi:<3} {len(sel):>4} {cells}")
        else:
            print(f"{lo:>3}-{hi:<3} {len(sel):>4} {ours:>10.3f} {'-':>10} {'-':>8} {states:>7.0f}")
    all_ours = [r[1] for r in rows]
    print(
        f"ours: median {statistics.median(all_ours) * 1e3:.3f} ms, max {max(all_ours) * 1e3:.1f} ms"
    )
    timed = [r for r in rows if r[2] is not None]
    if problems or not timed:
        return
    speed = [r[2] / r[1] for r in timed]
    worst = min(timed, key=lambda r: r[2] / r[1])
    print(
        f"median speedup {statistics.median(speed):.1f}x over {len(timed)} formulas "
        f"(target >= 20x); worst case {min(speed):.1f}x (size {worst[0]}: ours "
        f"{worst[1] * 1e3:.2f} ms, MONA {worst[2] * 1e3:.2f} ms); best {max(speed):.0f}x"
    )
    print(
        f"languages agree on all words up to length {args.max_len}: "
        f"{len(timed) - mismatches}/{len(timed)}; "
        f"MONA timeouts (> {args.timeout:.0f} s): {timeouts}"
    )


def _reference_problems() -> str:
    missing = []
    try:
        import ltlf2dfa  # noqa: F401
    except ImportError:
        missing.append("Python package ltlf2dfa not installed (pip install ltlf2dfa)")
    if shutil.which("mona") is None:
        missing.append("MONA binary not on PATH (Debian: apt-get install mona)")
    return "; ".join(missing)


if __name__ == "__main__":
    sys.exit(main())
