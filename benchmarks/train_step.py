"""A training step of the quick and standard profiles: bucketed vs uniform batches, vs torch.

For each profile one real run is prepared (language ``LAST``, seed 0, layout ``hybrid-1``) and
its training step (encode, forward, BCE, backward, clipping, AdamW: what `training.loop` does)
is timed on that run's own batches of steps ``0 .. S-1`` under both samplers of
`training.batching`, on one thread (`COMPUTE_THREADS`), with ``nn.TransformerEncoder`` of the
same size on the uniform batches beside them. The three are timed in interleaved rounds
(A/B/C, A/B/C, ...) in process CPU time and the median round of each is compared, so that
the ratios hold under load. Achieved GFLOP/s counts the step's FLOPs with
`torch.utils.flop_counter.FlopCounterMode` (matmuls and attention); the peak is a 1024^3 fp32
matmul timed in the same process.

    python benchmarks/train_step.py            # short: 5 rounds x 8 steps per profile
    python benchmarks/train_step.py --full     # 15 rounds x 32 steps
    python benchmarks/train_step.py --scales   # also length-aware logits (log-n, ssmax)
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.flop_counter import FlopCounterMode

from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.masks import global_mask
from expressivity.models.tokens import vocab_size
from expressivity.training import run_spec
from expressivity.training.batching import train_batch
from expressivity.training.optim import adamw
from expressivity.training.prepare import Prepared, derived_seed, prepare
from expressivity.training.state import COMPUTE_THREADS
from expressivity.training.state import SEED_BATCHES as _BATCHES
from expressivity.training.train_config import Batching

Step = Callable[[int], None]


class EncoderBaseline(nn.Module):
    """`nn.TransformerEncoder` with the recognizer's embedding, global mask and EOS classifier."""

    def __init__(self, config: ModelConfig, alphabet: int) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab_size(alphabet), config.d_model)
        layer = nn.TransformerEncoderLayer(
            config.d_model, config.n_heads, config.d_ff, dropout=0.0, activation="gelu",
            batch_first=True, norm_first=True,
        )
        self.encoder = nn.TransformerEncoder(
            layer, config.n_layers, norm=nn.LayerNorm(config.d_model), enable_nested_tensor=False
        )
        self.classifier = nn.Linear(config.d_model, 1)

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        blocked = ~global_mask(tokens.shape[1])  # nn.MultiheadAttention: True = may NOT attend
        h = self.encoder(self.embed(tokens), mask=blocked)
        return self.classifier(h[torch.arange(len(lengths)), lengths + 1]).squeeze(-1)


Stream = list[tuple[list[np.ndarray], np.ndarray]]


def batches(run: Prepared, batching: Batching, steps: int, width: int | None = None) -> Stream:
    """The run's training batches (words, labels) of steps 0 .. steps-1 under ``batching``."""
    cfg = dataclasses.replace(run.spec.train, batching=batching,
                              bucket_width=width or run.spec.train.bucket_width)
    data, seed = run.splits["train"], derived_seed(run.spec.seed, _BATCHES)
    return [data.batch(train_batch(cfg, seed, t, data.lengths)) for t in range(steps)]


def make_step(model: nn.Module, run: Prepared,
              stream: Stream) -> Step:
    """One step of `training.loop` on ``stream[t % len(stream)]``."""
    opt = adamw(model, run.spec.train)
    size = len(run.source.alphabet)

    def step(t: int) -> None:
        words, labels = stream[t % len(stream)]
        tokens, lengths = encode_batch(words, size)
        loss = F.binary_cross_entropy_with_logits(model(tokens, lengths),
                                                  torch.from_numpy(labels.astype(np.float32)))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), run.spec.train.grad_clip)
        opt.step()

    return step


def step_flops(step: Step, steps: int) -> float:
    """Mean FLOPs of one step over steps 0 .. steps-1 (FlopCounterMode: matmuls, attention)."""
    with FlopCounterMode(display=False) as counter:
        for t in range(steps):
            step(t)
    return counter.get_total_flops() / steps


def peak_gflops(size: int = 1024, reps: int = 5) -> float:
    """The same process's fp32 matmul throughput on one thread (median of ``reps``)."""
    a, b = torch.randn(size, size), torch.randn(size, size)
    a @ b
    times = []
    for _ in range(reps):
        start = time.process_time()
        a @ b
        times.append(time.process_time() - start)
    return 2 * size**3 / statistics.median(times) / 1e9


def measure(steps: dict[str, Step], rounds: int, per_round: int) -> dict[str, float]:
    """Median CPU seconds per step of each, timed in interleaved rounds."""
    for step in steps.values():
        step(0)
    times: dict[str, list[float]] = {name: [] for name in steps}
    for r in range(rounds):
        for name, step in steps.items():
            start = time.process_time()
            for t in range(per_round):
                step(r * per_round + t)
            times[name].append((time.process_time() - start) / per_round)
    return {name: statistics.median(ts) for name, ts in times.items()}


def profile_table(profile: str, rounds: int, per_round: int, width: int | None,
                  scales: bool = False) -> None:
    run = prepare(run_spec("LAST", "hybrid-1", profile=profile))
    n_steps = rounds * per_round + 1
    streams = {"bucketed": batches(run, "bucketed", n_steps, width),
               "uniform": batches(run, "uniform", n_steps)}
    size = len(run.source.alphabet)
    torch.manual_seed(0)  # the baseline's own initialisation uses the global RNG
    models: dict[str, tuple[nn.Module, str]] = {
        "Recognizer, bucketed": (Recognizer(run.model_config, size, seed=0), "bucketed"),
        "Recognizer, uniform": (Recognizer(run.model_config, size, seed=0), "uniform"),
        "nn.TransformerEncoder, uniform": (EncoderBaseline(run.model_config, size), "uniform"),
    }
    for scale in ("log-n", "ssmax") if scales else ():  # length-aware logits (models.scaling)
        scaled = dataclasses.replace(run.model_config, attention_scale=scale)
        models[f"Recognizer {scale}, uniform"] = (Recognizer(scaled, size, seed=0), "uniform")
    steps = {name: make_step(m, run, streams[s]) for name, (m, s) in models.items()}
    flops = {name: step_flops(make_step(m, run, streams[s]), min(n_steps, 16))
             for name, (m, s) in models.items()}
    secs = measure(steps, rounds, per_round)
    pad = {name: 1 - sum(int((np.array([len(w) for w in ws]) + 2).sum()) for ws, _ in st)
           / sum((max(len(w) for w in ws) + 2) * len(ws) for ws, _ in st)
           for name, st in streams.items()}
    base = secs["Recognizer, uniform"]
    print(f"\n{profile}: {run.model_config.n_layers} layers, width {run.model_config.d_model}, "
          f"batch {run.spec.train.batch_size}, bucket width {width or run.spec.train.bucket_width}"
          f"; padding: bucketed {pad['bucketed']:.0%}, "
          f"uniform {pad['uniform']:.0%} of the tokens")
    print("| step | ms/step (CPU) | MFLOP/step | GFLOP/s | speed vs uniform |")
    print("|---|---|---|---|---|")
    for name, s in secs.items():
        print(f"| {name} | {s * 1e3:.1f} | {flops[name] / 1e6:.0f} | "
              f"{flops[name] / s / 1e9:.1f} | {base / s:.2f}x |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="15 rounds x 32 steps")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--steps", type=int, default=None, help="steps per timed round")
    parser.add_argument("--profiles", default="quick,standard")
    parser.add_argument("--bucket-width", type=int, default=None,
                        help="bucket width of the bucketed sampler (default: the profile's)")
    parser.add_argument("--scales", action="store_true",
                        help="also time attention_scale log-n and ssmax (on uniform batches)")
    args = parser.parse_args()
    rounds = args.rounds or (15 if args.full else 5)
    per_round = args.steps or (32 if args.full else 8)
    torch.set_num_threads(COMPUTE_THREADS)
    print(f"one thread; median of {rounds} interleaved rounds x {per_round} steps; "
          f"peak fp32 matmul (1024^3) in this process: {peak_gflops():.1f} GFLOP/s")
    for profile in args.profiles.split(","):
        profile_table(profile, rounds, per_round, args.bucket_width, args.scales)


if __name__ == "__main__":
    main()
