"""The final evaluation of the table's attention layouts, with the key counts of a scale-free
head computed (as before they were lazy) and not computed, in the same run.

A head with ``attention_scale = "none"`` does not read N, the keys per row; counting them from
an encoder's (B, H, T, T) mask was half of `bigbird-enc-2-1-1`'s evaluation at the test lengths
41-500. `models.attend._scaled` takes the count as a thunk and calls it only for a scale. This
script times `training.evaluate.predict` on the test split of TOMITA-2 (seed 0) at the table
v9's spec of each layout, an untrained model, one thread, in interleaved rounds: the baseline
forces the count (the old path, by wrapping `_scaled`), then the lazy path; it prints the median
seconds of each and their ratio, and checks that both give the same decisions.

    python benchmarks/eval_scale.py bigbird-enc-2-1-1 swin-2 full --rounds 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from expressivity.models import attend  # noqa: E402
from expressivity.models.transformer import Recognizer  # noqa: E402
from expressivity.sweeps.spec import load_sweep  # noqa: E402
from expressivity.training import evaluate as ev  # noqa: E402
from expressivity.training.prepare import prepare  # noqa: E402

SPEC = ROOT / "experiments" / "table-v9.toml"


@contextmanager
def eager_counts() -> Iterator[None]:
    """`attend._scaled` with its key counts computed whether a scale reads them or not."""
    lazy = attend._scaled

    def eager(q: torch.Tensor, counts: Callable[[], torch.Tensor], *rest: Any) -> torch.Tensor:
        computed = counts()
        return lazy(q, lambda: computed, *rest)

    attend._scaled = eager  # type: ignore[assignment]
    try:
        yield
    finally:
        attend._scaled = lazy  # type: ignore[assignment]


def time_layout(layout: str, rounds: int, language: str = "TOMITA-2"
                ) -> tuple[float, float, bool]:
    """Median seconds of the test split's evaluation, eager then lazy, and whether the two
    paths decide every word alike."""
    spec = next(r for r in load_sweep(SPEC).expand()
                if r.layout == layout and r.language == language and r.seed == 0)
    run = prepare(spec)
    size = len(run.source.alphabet)
    model = Recognizer(run.model_config, size, seed=0)
    words, _ = run.splits["test"].batch(np.arange(len(run.splits["test"])))
    batch = spec.train.eval_batch_size
    times: dict[str, list[float]] = {"eager": [], "lazy": []}
    decisions: dict[str, np.ndarray] = {}
    for _ in range(rounds):
        for name in ("eager", "lazy"):
            with eager_counts() if name == "eager" else nullcontext():
                start = time.perf_counter()
                decisions[name] = ev.predict(model, words, size, batch_size=batch)
                times[name].append(time.perf_counter() - start)
    same = bool((decisions["eager"] == decisions["lazy"]).all())
    return statistics.median(times["eager"]), statistics.median(times["lazy"]), same


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("layouts", nargs="+", help="layouts of experiments/table-v9.toml")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (default 3)")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    print("| layout | eager counts (s) | lazy counts (s) | ratio | same decisions |")
    print("|---|---:|---:|---:|---|")
    for layout in args.layouts:
        eager, lazy, same = time_layout(layout, args.rounds)
        print(f"| {layout} | {eager:.2f} | {lazy:.2f} | {eager / lazy:.2f}× | "
              f"{'yes' if same else 'NO'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
