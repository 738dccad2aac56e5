"""Extraction time of trained models on catalogue languages, against one batched membership pass.

Trains each (language, layout) cell with the ``quick`` profile (one thread, no checkpoint),
then times `extraction.extract` with the longest test length as length bound and the run's
adversarial and test words as extra equivalence words. The baseline, measured in the same run,
is one batched membership pass (`extraction.agreement.logits`, the batching the oracle uses) over
as many fresh uniform words, of the same lengths, as the extraction ran through the model:
the ratio says how much the learning loop (many small batches, the target comparison,
classification and the agreement check) costs over the model work it needs. Target: under
2 minutes per extraction on 2 cores for targets of at most 10 states.

    python benchmarks/extract.py [--quick] [--cells LT-2:global,SUFFIX-a:local-1]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from expressivity.extraction import extract
from expressivity.extraction.agreement import logits
from expressivity.extraction.runs import StoredRun
from expressivity.training.loop import train
from expressivity.training.spec import run_spec

CELLS = "SUFFIX-a:local-1,LT-2:hybrid-1,LT-2:global,LAST:global"


def _cell(language: str, layout: str, steps: int | None, threads: int, root: Path) -> None:
    changes = {"steps": steps} if steps else {}
    spec = run_spec(language, layout, "quick", threads=threads, **changes)
    tick = time.perf_counter()
    record = train(spec, out_dir=root, quiet=True)
    trained = time.perf_counter() - tick
    run = StoredRun(spec.run_id, spec, Path(record.checkpoint))
    target, bound = run.source.dfa, run.max_test_length
    tick = time.perf_counter()
    result = extract(run.model, target, length_bound=bound, extra_words=run.adversarial_words())
    seconds = time.perf_counter() - tick
    c = result.counts
    rng = np.random.default_rng(0)
    sizes = rng.integers(0, bound + 1, size=c.model_words)
    codes = rng.integers(0, target.n_symbols, size=(c.model_words, int(sizes.max())))
    tick = time.perf_counter()
    logits(run.model, codes, sizes)
    baseline = time.perf_counter() - tick
    status = "complete" if result.complete else f"incomplete: {result.stop_reason}"
    print(f"{language} / {layout}: target {target.n_states} states; trained to "
          f"{record.test_accuracy:.1%} test accuracy in {trained:.1f}s; extracted "
          f"{result.dfa.n_states} states ({status}), equals target: {result.equals_target}")
    print(f"  queries: {c.learner} learner ({c.learner_distinct} distinct), {c.model_words} "
          f"model words in {c.batches} batches, {result.rounds} hypotheses")
    print(f"  extract {seconds:.1f}s vs one batched pass over {c.model_words} words "
          f"{baseline:.2f}s: ratio {seconds / baseline:.1f}x; "
          f"{'under' if seconds < 120 else 'OVER'} the 2-minute target", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", default=CELLS, help="LANGUAGE:LAYOUT,... (quick profile)")
    parser.add_argument("--quick", action="store_true", help="300 training steps per cell")
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        for cell in args.cells.split(","):
            language, layout = cell.split(":")
            _cell(language, layout, 300 if args.quick else None, args.threads, Path(tmp))


if __name__ == "__main__":
    main()
