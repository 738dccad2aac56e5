"""Forward+backward time and peak memory of sparse attention: linear-memory kernels vs dense.

Two tables. *Every sparse family* (window, dilated, block, global tokens, random keys, and
BigBird's union): the toolkit's linear-memory kernel for the pattern (banded for band
patterns, gathered keys for random-key and global-token patterns: `models.gather`; the plan
built once per length, reported apart) against dense masked SDPA with the (T, T) mask.
*k-local*: three kernels for one strict k-local layer.

Kernels: the banded kernel (`models.attention.banded_attention`, plan cached per length as
the model does; the one-time plan build is reported apart), dense masked SDPA
(`dense_attention` with the (T, T) mask), and lucidrains' `local-attention` (PyPI,
``exact_windowsize=True``; skipped with a message when not installed). Shapes: batch 1, 4 heads
of width 16, float32. Every cell is the best of a few runs taken in turns with the other
kernels; ratios are from this one run. Times are process CPU time (robust on a shared machine).
Peak memory is the rise of the process's resident high-water mark (Linux ``VmHWM``, reset
before each cell through ``/proc/self/clear_refs``; the script re-executes itself with a fixed
glibc mmap threshold so that freed tensors leave the resident set); "?" where unavailable.

    python benchmarks/attention.py            # n = 1k, 4k, 16k; k = 4 (a few minutes)
    python benchmarks/attention.py --quick    # n = 1k, 4k: a smoke run
    python benchmarks/attention.py --full     # families to 64k; k = 1, 4, 64 to 256k
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

from expressivity.models.attention import band_plan, banded_attention, dense_attention
from expressivity.models.gather import gather_attention, gather_plan, key_padding
from expressivity.models.layouts import Pattern, parse_layout
from expressivity.models.masks import add_sink, grid, local_allowed

#: One member of each sparse family (docs/theory.md §6), spelled as layout atoms.
FAMILIES = {"window (L4)": "L4", "dilated (D4.2)": "D4.2", "block (B16)": "B16",
            "global tokens (L2+T1)": "L2+T1", "random (R2)": "R2", "BigBird (L2+R2+T1)": "L2+R2+T1"}

HEADS, WIDTH = 4, 16
Kernel = Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor]


def _status(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def measure(kernel: Kernel, length: int, runs: int) -> tuple[float, float | None]:
    """Best CPU seconds of forward+backward over ``runs``, and the peak memory rise in bytes."""
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, HEADS, length, WIDTH, generator=gen).requires_grad_()
               for _ in range(3))
    grad = torch.randn(1, HEADS, length, WIDTH, generator=gen)  # dense, like a real backward
    gc.collect()
    base = _status("VmRSS")
    can_peak = _reset_peak()
    best = float("inf")
    for _ in range(runs):
        for t in (q, k, v):
            t.grad = None
        start = time.process_time()  # CPU time: robust to a machine shared with other work
        kernel(q, k, v).backward(grad)
        best = min(best, time.process_time() - start)
    peak = _status("VmHWM")
    rise = None if not can_peak or peak is None or base is None else max(peak - base, 0)
    return best, rise


def banded(length: int, window: int) -> tuple[Kernel, float]:
    start = time.perf_counter()

    def allowed(n: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
        return local_allowed(n, m, window)

    plan = band_plan(length, window, allowed)
    return (lambda q, k, v: banded_attention(q, k, v, plan)), time.perf_counter() - start


def dense(length: int, window: int) -> Kernel:
    mask = add_sink(local_allowed(*grid(length), window))[None, None]
    return lambda q, k, v: dense_attention(q, k, v, mask, check_empty=False)


def lucidrains(window: int) -> Kernel | None:
    try:
        from local_attention import LocalAttention
    except ImportError:
        return None
    layer = LocalAttention(window_size=window, causal=True, look_backward=1, look_forward=0,
                           exact_windowsize=True, autopad=True)
    return lambda q, k, v: layer(q, k, v)


def fmt_time(t: float | None) -> str:
    return "-" if t is None else f"{t * 1e3:,.1f}"


def fmt_mem(b: float | None) -> str:
    return "?" if b is None else f"{b / 2**20:,.0f}"


def main() -> None:
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:  # large tensors: mmap, returned on free
        env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"}
        os.execve(sys.executable, [sys.executable, *sys.argv], env)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="n = 1k, 4k only")
    size.add_argument("--full", action="store_true", help="n up to 256k")
    parser.add_argument("--windows", default=None,
                        help="comma list of k (default 4; --full: 1,4,64)")
    parser.add_argument("--dense-max", type=int, default=16384, help="longest n for dense")
    parser.add_argument("--threads", type=int, default=1,
                        help="intra-op threads (1: the runs' own setting, COMPUTE_THREADS)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    lengths = [1024, 4096] if args.quick else [1024, 4096, 16384]
    if args.full:
        lengths.append(65536)
    measure(banded(1024, 4)[0], 1024, 1)  # warm-up: one-time allocations stay out of the table
    verdicts = families(lengths, args.dense_max, args.threads)
    if args.full:
        lengths.append(262144)
    windows = [int(x) for x in (args.windows or ("1,4,64" if args.full else "4")).split(",")]
    if lucidrains(1) is None:
        print("local-attention is not installed (pip install -c constraints.txt '.[bench]'): "
              "its column is skipped")
    print(f"strict k-local attention, forward+backward, batch 1 x {HEADS} heads x width "
          f"{WIDTH}, float32, {args.threads} threads; times in ms, peak memory rise in MiB")
    print("| k | n | banded | plan (once) | dense | local-attention | dense / banded | "
          "local-attention / banded | banded MiB | dense MiB | local-attention MiB |")
    print("|---" * 11 + "|")
    for window in windows:
        for length in lengths:
            verdicts += row(window, length, args.dense_max)
    print("targets: " + ("all met" if not verdicts else "MISSED: " + "; ".join(verdicts)))


def linear(pattern: Pattern, length: int) -> tuple[Kernel, float]:
    """The pattern's linear-memory kernel at ``length`` and its plan's build seconds."""
    start = time.perf_counter()
    if pattern.band is not None:
        plan = band_plan(length, pattern.band, pattern.allowed)
        return (lambda q, k, v: banded_attention(q, k, v, plan)), time.perf_counter() - start
    gplan = gather_plan(pattern, length)
    key_ok = key_padding(torch.tensor([length - 2]), length)  # one string filling the length
    return (lambda q, k, v: gather_attention(q, k, v, gplan, key_ok)), time.perf_counter() - start


def families(lengths: list[int], dense_max: int, threads: int) -> list[str]:
    """The every-family table; the targets it misses (memory linear in n; >= 10x at 16k)."""
    print(f"every sparse family, forward+backward, batch 1 x {HEADS} heads x width {WIDTH}, "
          f"float32, {threads} threads; times in ms, peak memory rise in MiB")
    print("| family | n | linear kernel | plan (once) | dense | dense / linear | "
          "linear MiB | dense MiB |\n|---|---|---|---|---|---|---|---|")
    missed: list[str] = []
    for name, spec in FAMILIES.items():
        pattern = parse_layout(spec, 1, 1).layers[0][0]
        mems: list[tuple[int, float]] = []
        for length in lengths:
            kernel, plan_s = linear(pattern, length)
            rounds = 3 if length <= 16384 else 1
            t_lin, m_lin = min(measure(kernel, length, 1) for _ in range(rounds))
            t_dense = m_dense = None
            if length <= dense_max:
                mask = pattern.mask(length)[None, None]
                t_dense, m_dense = measure(
                    lambda q, k, v, mask=mask: dense_attention(q, k, v, mask, check_empty=False),
                    length, 1)
                del mask
            ratio = None if t_dense is None else t_dense / t_lin
            print(f"| {name} | {length:,} | {fmt_time(t_lin)} | {fmt_time(plan_s)} | "
                  f"{fmt_time(t_dense)} | {'-' if ratio is None else f'{ratio:.1f}x'} | "
                  f"{fmt_mem(m_lin)} | {fmt_mem(m_dense) if t_dense else '-'} |", flush=True)
            if m_lin is not None:
                mems.append((length, m_lin))
            if ratio is not None and length == 16384 and ratio < 10.0:
                missed.append(f"{name} n={length}: under 10x faster than dense")
        if len(mems) >= 2 and mems[-1][1] > 2.0 * mems[-1][0] / mems[0][0] * max(mems[0][1], 2**20):
            missed.append(f"{name}: memory grows faster than n")
    return missed


def row(window: int, length: int, dense_max: int) -> list[str]:
    """Measure and print one table row; return the targets it misses.

    The kernels take turns, one run each per round, and each keeps its best round: on a busy
    machine a stall then hurts one round, not one kernel.
    """
    rounds = 5 if length <= 16384 else (3 if length <= 65536 else 1)
    band_kernel, plan_s = banded(length, window)
    kernels: dict[str, tuple[Kernel, int]] = {"banded": (band_kernel, rounds)}
    dense_note = ""
    if length <= dense_max:
        kernels["dense"] = (dense(length, window), 3 if length <= 1024 else 1)
    else:
        dense_note = f"n/a ({length**2 / 2**30:.0f} GiB mask)"
    la = lucidrains(window)
    if la is not None:
        kernels["local-attention"] = (la, rounds)
    best: dict[str, float] = {}
    peak: dict[str, float | None] = {}
    for r in range(rounds):
        for name, (kernel, its_rounds) in kernels.items():
            if r < its_rounds:
                t, m = measure(kernel, length, 1)
                best[name] = min(best.get(name, float("inf")), t)
                peak.setdefault(name, m)
    t_band, m_band = best["banded"], peak["banded"]
    t_dense, m_dense = best.get("dense"), peak.get("dense")
    t_la, m_la = best.get("local-attention"), peak.get("local-attention")
    ratio_d = None if t_dense is None else t_dense / t_band
    ratio_l = None if t_la is None else t_la / t_band
    print(f"| {window} | {length:,} | {fmt_time(t_band)} | {fmt_time(plan_s)} | "
          f"{dense_note or fmt_time(t_dense)} | {fmt_time(t_la)} | "
          f"{'-' if ratio_d is None else f'{ratio_d:.1f}x'} | "
          f"{'-' if ratio_l is None else f'{ratio_l:.2f}x'} | {fmt_mem(m_band)} | "
          f"{fmt_mem(m_dense) if t_dense else '-'} | {fmt_mem(m_la) if t_la else '-'} |",
          flush=True)
    missed = []
    if ratio_l is not None and length >= 4096 and ratio_l < 1.0:
        missed.append(f"k={window} n={length}: slower than local-attention")
    if ratio_d is not None and length == 16384 and ratio_d < 20.0:
        missed.append(f"k={window} n={length}: under 20x faster than dense")
    return missed

if __name__ == "__main__":
    main()
