"""The parallel scans vs their sequential references, and an SSM training step vs attention.

Two tables, every ratio from this one run. *Scan*: `models.ssm.parallel_scan` (Hillis–Steele,
log depth) and `chunked_scan` (O(T) work in ~2√T steps) against `sequential_scan` (one step
per position) on a selective-SSM state
(batch 1, 64 channels × 16 states, float32) at lengths 64 to 16k; then the delta rule's
`parallel_delta` vs `sequential_delta` (batch 1, 2 heads of width 8). *Step*: forward +
backward of one mixer layer of width 64 (the selective SSM, its signed variant, S4D real and
complex, the delta rule; Mamba's sizes d_state 16, expand 2, and the experiment's d_state 4,
expand 1) against one strict global attention layer of the same width (4 heads,
`models.attention.dense_attention`), batch 8 at length 128. Times are process CPU time, the
best of a few runs taken in turns (robust on a shared machine). *Training step*: a whole step
of `training.loop` (encode, forward, BCE, backward, clipping, AdamW) of the standard profile's
mixer models as the tables train them (2 layers, width 32, 4 states, language LAST, the run's
own uniform batches of lengths ≤ 40), each layout once with the scan ``"chunked"`` (the
default) and once ``"fused"`` (`models.ssm.fused`: the hand-written gradient), timed in
interleaved rounds, median per step (`benchmarks/train_step.py`'s `measure`). *Batches*: the
same step with the fused scan on the run's own batches under each sampler of
`training.batching`, "uniform" (the tables') and "bucketed" (lengths of about one bucket per
batch: the recurrence's loop is as long as the batch's longest word), same initialisation.

    python benchmarks/ssm.py            # lengths 64 .. 16k
    python benchmarks/ssm.py --quick    # lengths 64 .. 1k
    python benchmarks/ssm.py --steps    # the training-step table alone
    python benchmarks/ssm.py --batching # the sampler table alone
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path

import torch

from expressivity.models import Recognizer
from expressivity.models.attention import dense_attention
from expressivity.models.masks import add_sink, global_mask
from expressivity.models.ssm import (
    DeltaRule,
    DiagonalSSM,
    SelectiveSSM,
    chunked_scan,
    parallel_delta,
    parallel_scan,
    sequential_delta,
    sequential_scan,
)
from expressivity.training import run_spec
from expressivity.training.prepare import prepare
from expressivity.training.train_config import Batching

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository: the step helpers
from benchmarks.train_step import batches, make_step, measure

WIDTH, HEADS = 64, 4


def best(fn: Callable[[], object], repeats: int) -> float:
    """Least process CPU time of ``repeats`` calls (seconds)."""
    times = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def scan_table(lengths: list[int]) -> None:
    gen = torch.Generator().manual_seed(0)
    print("| length | sequential (ms) | parallel (ms) | chunked (ms) | seq / parallel | "
          "seq / chunked |")
    print("|---:|---:|---:|---:|---:|---:|")
    for t in lengths:
        a = torch.rand(1, t, 64, 16, generator=gen)
        b = torch.randn(1, t, 64, 16, generator=gen)
        reps = 3 if t <= 4096 else 1
        seq = best(lambda a=a, b=b: sequential_scan(a, b), reps)
        par = best(lambda a=a, b=b: parallel_scan(a, b), reps)
        chk = best(lambda a=a, b=b: chunked_scan(a, b), reps)
        print(f"| {t} | {seq * 1e3:.1f} | {par * 1e3:.1f} | {chk * 1e3:.1f} | {seq / par:.2f} | "
              f"{seq / chk:.2f} |")
    print()
    print("| length | delta sequential (ms) | delta parallel (ms) | ratio |")
    print("|---:|---:|---:|---:|")
    for t in [x for x in lengths if x <= 4096]:
        q, k, v = (torch.randn(1, 2, t, 8, generator=gen) for _ in range(3))
        k = torch.nn.functional.normalize(k, dim=-1)
        beta, alpha = 2 * torch.rand(1, 2, t, generator=gen), torch.rand(1, 2, t, generator=gen)
        seq = best(lambda q=q, k=k, v=v, be=beta, al=alpha: sequential_delta(q, k, v, be, al), 2)
        par = best(lambda q=q, k=k, v=v, be=beta, al=alpha: parallel_delta(q, k, v, be, al), 2)
        print(f"| {t} | {seq * 1e3:.1f} | {par * 1e3:.1f} | {seq / par:.2f} |")


class Attention(torch.nn.Module):
    """One strict global attention layer of width ``WIDTH`` (the baseline)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv, self.o = torch.nn.Linear(WIDTH, 3 * WIDTH), torch.nn.Linear(WIDTH, WIDTH)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = (y.view(b, t, HEADS, -1).transpose(1, 2) for y in self.qkv(x).chunk(3, -1))
        out = dense_attention(q, k, v, add_sink(global_mask(t)), check_empty=False)
        return self.o(out.transpose(1, 2).reshape(b, t, WIDTH))


def step_table(repeats: int) -> None:
    x = torch.randn(8, 128, WIDTH, generator=torch.Generator().manual_seed(1))
    layers: dict[str, torch.nn.Module] = {
        "global attention (baseline)": Attention(),
        "selective SSM (M)": SelectiveSSM(WIDTH, WIDTH),
        "signed selective SSM (MS)": SelectiveSSM(WIDTH, WIDTH, signed=True),
        "S4D real (SD)": DiagonalSSM(WIDTH, WIDTH),
        "S4D complex (SDC)": DiagonalSSM(WIDTH, WIDTH, complex_=True),
        "delta rule (DR)": DeltaRule(WIDTH, WIDTH, n_heads=HEADS, d_head=WIDTH // HEADS),
        "selective SSM, d_state 4, expand 1": SelectiveSSM(WIDTH, WIDTH, d_state=4, expand=1),
        "S4D real, d_state 4, expand 1": DiagonalSSM(WIDTH, WIDTH, d_state=4, expand=1),
    }

    def step(layer: torch.nn.Module) -> None:
        layer.zero_grad()
        layer(x).square().mean().backward()

    times = {name: best(lambda m=m: step(m), repeats) for name, m in layers.items()}
    base = times["global attention (baseline)"]
    print("| layer (width 64, batch 8, length 128) | fwd+bwd (ms) | / attention |")
    print("|---|---:|---:|")
    for name, t in times.items():
        print(f"| {name} | {t * 1e3:.1f} | {t / base:.2f} |")


MIXER_LAYOUTS = ("mamba", "mamba-signed", "s4d", "samba-1", "jamba-2")


def compare_steps(rounds: int, per_round: int, title: str,
                  variants: dict[str, tuple[str, Batching]]) -> None:
    """A training step of each mixer model under two variants, each a (scan, sampler) pair:
    one row per layout, the median ms per step of each and their ratio (module docstring)."""
    (a, _), (b, _) = variants.items()
    print(f"| layout (standard profile, 2 layers{title}) | {a} (ms) | {b} (ms) | {a} / {b} |")
    print("|---|---:|---:|---:|")
    for layout in MIXER_LAYOUTS:
        run = prepare(run_spec("LAST", layout, profile="standard", model={"n_layers": 2}))
        steps = {name: make_step(Recognizer(dataclasses.replace(run.model_config, ssm_scan=scan),
                                            len(run.source.alphabet), seed=0),
                                 run, batches(run, sampler, rounds * per_round + 1))
                 for name, (scan, sampler) in variants.items()}
        times = measure(steps, rounds, per_round)
        print(f"| {layout} | {times[a] * 1e3:.1f} | {times[b] * 1e3:.1f} | "
              f"{times[a] / times[b]:.2f} |")


def mixer_step_table(rounds: int, per_round: int) -> None:
    """A training step of each mixer model, scan "chunked" vs "fused" (uniform batches)."""
    compare_steps(rounds, per_round, "", {"chunked": ("chunked", "uniform"),
                                          "fused": ("fused", "uniform")})


def batching_step_table(rounds: int, per_round: int) -> None:
    """A training step of each mixer model (fused scan), uniform vs bucketed batches."""
    compare_steps(rounds, per_round, ", fused", {"uniform": ("fused", "uniform"),
                                                 "bucketed": ("fused", "bucketed")})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="lengths 64 .. 1k only")
    parser.add_argument("--steps", action="store_true", help="the training-step table alone")
    parser.add_argument("--batching", action="store_true", help="the sampler table alone")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.steps:
        mixer_step_table(7, 10)
        return
    if args.batching:
        batching_step_table(7, 10)
        return
    top = 1024 if args.quick else 16384
    scan_table([t for t in (64, 256, 1024, 4096, 16384) if t <= top])
    print()
    step_table(3 if args.quick else 5)
    print()
    mixer_step_table(3 if args.quick else 7, 10)
    print()
    batching_step_table(3 if args.quick else 7, 10)


if __name__ == "__main__":
    main()
