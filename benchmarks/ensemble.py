"""Runs·steps per second of ensembles vs the same runs one after another (`quick` profile).

For M = 8 and M = 32 runs of the quick profile (layouts global, local-1 and hybrid-1, four
seeds, three learning rates), one configuration per subprocess:

- one by one: each run builds its `Recognizer` and AdamW and takes the training steps of
  `training.loop` (its own batches: sampling, encoding, forward, backward, clipping, update);
- ensemble: the same runs as one `EnsembleRecognizer` taking `train_ensemble`'s steps, as
  the device does by default (on a CPU member by member, bitwise the single runs; on a GPU one
  batched step);
- batched: the ensemble's batched step (one forward and backward for all members), forced.

First it measures the premise of batching: one run's training step on a batch 8× larger,
as a ratio of time to the profile's batch (1 = batching is free, 8 = the step is compute-bound
and stacking members cannot share work).

Each run takes ``--warmup`` untimed and ``--steps`` timed steps; the rate is runs·steps per
second of the timed steps, the ratio ensemble / one by one. Peak memory per member is the
subprocess's peak RSS above its RSS before the first step, divided by M for the ensemble (one
by one, a run's memory is freed before the next: its peak is that of one run). Targets (issue 16,
2 CPU cores): >= 3x at M = 8, >= 5x at M = 32. On a CUDA device (``--device cuda``) the issue's
target is >= 20x at M >= 64 with the paper profile (``--profile paper --members 64``).

    python benchmarks/ensemble.py [--members 8 32] [--steps 10] [--threads 2] [--quick]
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import time

TARGETS = {8: 3.0, 32: 5.0}


def _specs(members: int, profile: str, device: str) -> list:
    from expressivity.training import run_spec

    grid = [(layout, seed, lr) for lr in (1e-3, 3e-4, 5e-4) for seed in range(4)
            for layout in ("global", "local-1", "hybrid-1")]
    return [run_spec("SUFFIX-ab", layout, profile=profile, seed=seed, lr=lr, device=device,
                     patience=0)
            for layout, seed, lr in (grid * math.ceil(members / len(grid)))[:members]]


def _rss_mb() -> float:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def _single_steps(run, steps: int, warmup: int) -> float:
    """Seconds of ``steps`` timed training steps of one run, as `training.loop` takes them."""
    import numpy as np
    import torch
    import torch.nn.functional as F

    from expressivity.models import Recognizer, encode_batch
    from expressivity.training.optim import adamw, batch_indices, learning_rate
    from expressivity.training.prepare import derived_seed
    from expressivity.training.state import SEED_BATCHES as _BATCHES
    from expressivity.training.state import SEED_INIT as _INIT

    cfg, device = run.spec.train, torch.device(run.spec.train.device)
    model = Recognizer(run.model_config, len(run.source.alphabet),
                       seed=derived_seed(run.spec.seed, _INIT)).to(device)
    opt = adamw(model, cfg)
    data, seed = run.splits["train"], derived_seed(run.spec.seed, _BATCHES)

    def step(t: int) -> None:
        words, labels = data.batch(batch_indices(seed, t, cfg.batch_size, len(data)))
        tokens, lengths = encode_batch(words, len(run.source.alphabet))
        target = torch.from_numpy(labels.astype(np.float32)).to(device)
        for group in opt.param_groups:
            group["lr"] = learning_rate(cfg, t)
        loss = F.binary_cross_entropy_with_logits(model(tokens.to(device), lengths.to(device)),
                                                  target)
        float(loss.item())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        float(torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip))
        opt.step()

    for t in range(warmup):
        step(t)
    _sync(device)
    tick = time.perf_counter()
    for t in range(warmup, warmup + steps):
        step(t)
    _sync(device)
    return time.perf_counter() - tick


def _batch_scaling(steps: int, warmup: int, threads: int, profile: str, device: str
                   ) -> dict[str, float]:
    """Seconds per step of one model at the profile's batch B and at 8B (random words)."""
    import torch
    import torch.nn.functional as F

    from expressivity.models import Recognizer
    from expressivity.training.profiles import get_profile

    torch.set_num_threads(threads)
    prof = get_profile(profile)
    model = Recognizer(prof.model_config("global"), 3, seed=0).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(0)
    out = {}
    for name, b_sz in (("base", prof.train.batch_size), ("x8", 8 * prof.train.batch_size)):
        tokens = torch.randint(0, 3, (b_sz, 42), generator=gen).to(device)
        lengths = torch.full((b_sz,), 40, device=device)
        target = torch.randint(0, 2, (b_sz,), generator=gen).float().to(device)

        def step(tokens: torch.Tensor, lengths: torch.Tensor, target: torch.Tensor) -> None:
            loss = F.binary_cross_entropy_with_logits(model(tokens, lengths), target)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        for _ in range(warmup):
            step(tokens, lengths, target)
        _sync(torch.device(device))
        tick = time.perf_counter()
        for _ in range(steps):
            step(tokens, lengths, target)
        _sync(torch.device(device))
        out[name] = (time.perf_counter() - tick) / steps
    return out


def _sync(device: object) -> None:
    import torch

    if getattr(device, "type", "cpu") == "cuda":
        torch.cuda.synchronize()


def worker(mode: str, members: int, steps: int, warmup: int, threads: int, profile: str,
           device: str) -> dict[str, float]:
    """One configuration in this process: rate, peak RSS growth per member (and GPU peak)."""
    import torch

    from expressivity.training.ensemble import EnsembleStepper
    from expressivity.training.member import Member
    from expressivity.training.prepare import prepare

    torch.set_num_threads(threads)
    specs = _specs(members, profile, device)
    runs = [prepare(s) for s in specs]
    base = _rss_mb()
    if mode == "single":
        seconds = sum(_single_steps(run, steps, warmup) for run in runs)
    else:
        ens = EnsembleStepper(specs, None, True, False)
        ens.batched = True if mode == "batched" else ens.batched
        ens.runs, ens.active = dict(enumerate(runs)), list(range(members))
        ens.build()
        stepping = [Member(i, ens.runs[i], ens.states[i]) for i in ens.active]

        def step(k: int) -> None:
            outcome, _ = ens.gradients(stepping, k)
            assert not isinstance(outcome, dict), f"a member failed: {outcome}"
            ens.update(stepping, k)

        for k in range(warmup):
            step(k)
        _sync(torch.device(device))
        tick = time.perf_counter()
        for k in range(warmup, warmup + steps):
            step(k)
        _sync(torch.device(device))
        seconds = time.perf_counter() - tick
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
    per = 1 if mode == "single" else members  # one by one: one run's memory at a time
    out = {"rate": members * steps / seconds, "mb_per_member": max(0.0, peak - base) / per}
    if device.startswith("cuda"):
        out["gpu_mb_per_member"] = torch.cuda.max_memory_allocated() / 2**20 / members
    return out


def _run(mode: str, members: int, args: argparse.Namespace) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--worker", mode, "--members", str(members),
           "--steps", str(args.steps), "--warmup", str(args.warmup), "--threads",
           str(args.threads), "--profile", args.profile, "--device", args.device]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--steps", type=int, default=10, help="timed steps per run")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps per run first")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--quick", action="store_true", help="M = 4, 3 steps (a smoke run)")
    parser.add_argument("--worker", choices=("single", "ensemble", "batched", "scaling"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker == "scaling":
        print(json.dumps(_batch_scaling(args.steps, args.warmup, args.threads, args.profile,
                                        args.device)))
        return
    if args.worker:
        print(json.dumps(worker(args.worker, args.members[0], args.steps, args.warmup,
                                args.threads, args.profile, args.device)))
        return
    if args.quick:
        args.members, args.steps, args.warmup = [4], 3, 1
    import torch

    print(f"ensemble benchmark: profile {args.profile}, device {args.device}, "
          f"{args.threads} threads, {args.steps} timed steps per run after {args.warmup} warm-up "
          f"(torch {torch.__version__})")
    if args.device == "cpu":
        print("no GPU measured here: the GPU target (>= 20x at M >= 64, paper profile) needs "
              "--device cuda on a machine with one")
    scaling = _run("scaling", 1, args)
    print(f"one {args.profile} step at 8x the batch: {scaling['x8'] / scaling['base']:.2f}x the "
          f"time ({scaling['base'] * 1000:.1f} ms -> {scaling['x8'] * 1000:.1f} ms; 1x = "
          "batching is free, 8x = compute-bound)")
    print(f"{'M':>4} {'one by one':>12} {'ensemble':>10} {'ratio':>7} {'batched':>9} "
          f"{'ratio':>7} {'target':>7} {'MB/member: one by one':>22} {'ensemble':>9} "
          f"{'batched':>8}")
    for m in args.members:
        single, ensemble = _run("single", m, args), _run("ensemble", m, args)
        batched = _run("batched", m, args)
        ratio, ratio_b = (x["rate"] / single["rate"] for x in (ensemble, batched))
        target = TARGETS.get(m) if args.device == "cpu" and args.profile == "quick" else None
        best = max(ratio, ratio_b)
        verdict = "" if target is None else (" met" if best >= target else " MISSED")
        print(f"{m:>4} {single['rate']:>12.1f} {ensemble['rate']:>10.1f} {ratio:>6.2f}x "
              f"{batched['rate']:>9.1f} {ratio_b:>6.2f}x {f'{target:.0f}x' if target else '-':>7} "
              f"{single['mb_per_member']:>22.1f} {ensemble['mb_per_member']:>9.1f} "
              f"{batched['mb_per_member']:>8.1f}{verdict}")
    print("rates in runs·steps/s; peak memory = peak RSS growth over the steps, per member")


if __name__ == "__main__":
    main()
