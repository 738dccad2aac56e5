"""Which channels of a trained selective mixer step, shut or flip: paying against free ones.

`train.step_penalty_channels` = f lets the first ⌈f·E⌉ of each selective mixer's E channels pay
the step-size penalty and leaves the rest free (docs/theory.md §19.7). Whether training puts a
latch in the paying channels and a counter in the free ones, as the remark allows, is read off
the weights on words: for each mixer and each group of channels (paying, free), over every
letter position of the words,

* *mean Δ*: the mean step size;
* *shut*: how many channels never step above `SHUT` (such a channel keeps at least
  exp(−SHUT·|A|) of its state and writes at most SHUT·|B u| per letter: it is all but unused);
* *flip*: how many channels of a signed mixer take a gate 2·exp(−Δ|A_n|) − 1 below `FLIP` at
  some letter and some state n (a sign flip, the step of a parity counter, §19.4).

These are exact properties of the weights on the words measured, not of the recognizer's
decision; `python -m expressivity.analysis.channel_steps STORE --out FILE.md` writes them for
every completed penalized run of a store whose checkpoint is beside it.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np
import pandas as pd
import torch

from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer
from expressivity.training.step_penalty import paying_channels, record_step_sizes, selective_mixers

__all__ = ["FLIP", "SHUT", "channel_steps", "channel_steps_store", "channel_steps_summary"]

#: A channel whose step size stays below this at every letter is *shut*.
SHUT = 1e-3
#: A signed gate below this at some letter and state is a *flip*.
FLIP = -0.5


def _words(n_letters: int, words: int, length: int) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.integers(0, n_letters, length) for _ in range(words)]


@torch.no_grad()
def channel_steps(model: Recognizer, n_letters: int, fraction: float = 1.0, *, words: int = 16,
                  length: int = 200) -> list[dict[str, object]]:
    """One row per selective mixer (in module order) and channel group of ``model`` (paying:
    the first `paying_channels` at ``fraction``; free: the rest, when any): its channels, mean
    step size, shut and flipping channels over every letter of ``words`` uniform random words of
    ``length`` letters over ``n_letters`` letters (seed 0)."""
    tokens, lengths = encode_batch(_words(n_letters, words, length), n_letters)
    was_training = model.training
    model.train()  # the mixers keep their step sizes in training mode only
    record_step_sizes(model)
    try:
        model(tokens, lengths)
        rows: list[dict[str, object]] = []
        for index, mixer in enumerate(selective_mixers(model)):
            delta = mixer.step_sizes
            assert delta is not None
            delta = delta[:, 1:length + 1, :]  # the letters: BOS and EOS left out
            k = paying_channels(delta.shape[-1], fraction)
            magnitudes = torch.exp(mixer.A_log)  # |A|, (E, N)
            for group, channels in (("paying", slice(0, k)), ("free", slice(k, None))):
                part = delta[..., channels]
                if part.shape[-1] == 0:
                    continue
                flips: int | None = None
                if mixer.signed:  # the most negative gate: the largest Δ·|A_n| of the channel
                    largest = part.amax(dim=(0, 1)) * magnitudes[channels].amax(dim=-1)
                    flips = int((2 * torch.exp(-largest) - 1 < FLIP).sum())
                rows.append({"mixer": index, "group": group, "channels": part.shape[-1],
                             "mean Δ": float(part.mean()),
                             "shut": int((part.amax(dim=(0, 1)) < SHUT).sum()),
                             "flip": flips})
        return rows
    finally:
        record_step_sizes(model, on=False)
        model.train(was_training)


def channel_steps_store(db: str, *, words: int = 16, length: int = 200) -> pd.DataFrame:
    """`channel_steps` of every completed run of ``db`` with a step-size penalty whose
    checkpoint is found (`extraction.runs.load_run`), one row per run, mixer and group; runs
    without a checkpoint are left out."""
    from expressivity.errors import StoreError
    from expressivity.extraction.runs import load_run
    from expressivity.sweeps.store import ResultsStore

    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    rows = []
    for run in runs[runs["status"] == "completed"].itertuples():
        try:
            stored = load_run(db, str(run.run_id))
        except StoreError:
            continue
        train = stored.spec.train
        if not train.step_penalty:
            continue
        model = stored.model
        for row in channel_steps(model, model.alphabet_size, train.step_penalty_channels,
                                 words=words, length=length):
            rows.append({"language": run.language, "layout": run.layout, "run": run.run_id,
                         "seed": run.seed, "fraction": train.step_penalty_channels,
                         "recognized": bool(run.recognized), **row})
    return pd.DataFrame(rows)


def channel_steps_summary(table: pd.DataFrame) -> list[str]:
    """The generated page's summary: per channel fraction and group, the channels measured and
    how many of them are shut and flip, over every run and mixer of ``table``."""
    if not len(table):
        return []
    lines = ["| fraction | group | runs | channels | shut | flip |",
             "|---:|---|---:|---:|---:|---:|"]
    for (fraction, group), part in table.groupby(["fraction", "group"], sort=True):
        flips = "" if part["flip"].isna().all() else str(int(part["flip"].fillna(0).sum()))
        lines.append(f"| {fraction:g} | {group} | {part['run'].nunique()} | "
                     f"{int(part['channels'].sum())} | {int(part['shut'].sum())} | {flips} |")
    return ["Over every run and mixer:", "", *lines, ""]


def main(argv: Sequence[str] | None = None) -> int:
    """Write `channel_steps_store`'s table as Markdown, with the command and the runs digest."""
    from expressivity.analysis.provenance import runs_digest, write_page
    from expressivity.sweeps.report import to_markdown
    from expressivity.sweeps.store import ResultsStore

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--out", required=True)
    parser.add_argument("--words", type=int, default=16, help="random words (default 16)")
    parser.add_argument("--length", type=int, default=200, help="letters a word (default 200)")
    args = parser.parse_args(argv)
    table = channel_steps_store(args.store, words=args.words, length=args.length)
    with ResultsStore(args.store, create=False) as store:
        digest = runs_digest(store.runs())
    options = ("" if args.words == 16 else f" --words {args.words}") + (
        "" if args.length == 200 else f" --length {args.length}")
    command = (f"python -m expressivity.analysis.channel_steps {args.store} --out {args.out}"
               f"{options}")
    if len(table):
        table["mean Δ"] = [f"{v:.4f}" for v in table["mean Δ"]]
    write_page(args.out, "Which channels step, shut or flip", command,
               f"the store's runs digest `{digest}` and the checkpoints beside it", [
        "Per completed run with a step-size penalty whose checkpoint is beside the store "
        f"(`expressivity.analysis.channel_steps`), per selective mixer (0: the first) and "
        "channel group (*paying*: the first ⌈f·E⌉ channels, `train.step_penalty_channels` = f; "
        f"*free*: the rest), over every letter of {args.words} uniform random words of "
        f"{args.length} letters (seed 0): the mean step size Δ; *shut*, the channels whose Δ "
        f"never exceeds {SHUT:g} (they keep their state and write next to nothing); *flip*, the "
        f"channels of a signed mixer whose gate 2·exp(−Δ|A|) − 1 falls below {FLIP:g} at some "
        "letter (a sign flip). Exact properties of the weights on these words, not of the "
        "decision.", "",
        *channel_steps_summary(table),
        to_markdown(table) if len(table) else "No completed penalized run has a checkpoint.",
        "",
    ])
    print(f"{table['run'].nunique() if len(table) else 0} runs measured; written to {args.out}")
    return 0


if __name__ == "__main__":
    from expressivity.errors import script_status

    raise SystemExit(script_status(main))
