"""The one training loop: `drive(members, stepper)` steps a list of members until all are done.

The loop is written once for every way of training; a `Stepper` says how a step is taken and
where the weights live:

- `training.loop.SingleStepper`: one run, its `Recognizer` and torch AdamW (a single run is
  the drive of one member);
- `training.ensemble.EnsembleStepper`: an `EnsembleRecognizer` and `StackedAdamW`, stepping
  member by member (a CPU: bitwise the single runs) or batched (a GPU).

Each step the driver asks the stepper for the active members' gradients (a stepper may report
failed members instead: the driver drops them and the step is redone without them), for the
update, counts
it in each `RunState`, runs the validations that are due (`Member.validation_due`) and the
stopping rules (`state.note_validation`), lets finished members leave (the stepper compacts),
asks for a periodic checkpoint, updates the progress bar and calls ``on_step``. On Ctrl-C the
stepper writes a checkpoint if the step was complete, and the interrupt propagates.

Adding a stepper (say, a new batched mode) costs one class with the `Stepper` methods below;
validation, stopping, compaction, checkpoints, Ctrl-C and progress come with the driver.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np

from expressivity.training.member import VALIDATION, Member
from expressivity.training.state import note_validation

__all__ = ["Stepper", "drive"]

#: Per member: (batch accuracy, loss) of the step, or the failures {member index: error}.
Outcome = list[tuple[float, float]] | dict[int, str]


class Stepper(Protocol):
    """How a drive takes its steps; every method gets the active members, in drive order."""

    def gradients(self, members: Sequence[Member], step: int) -> tuple[Outcome, list[int]]:
        """The gradients of every member's batch of ``step`` (no weight changes yet): the
        outcome and each member's real tokens."""
        ...

    def update(self, members: Sequence[Member], step: int) -> None:
        """The optimiser step of every member (after `gradients` succeeded)."""
        ...

    def predict(self, members: Sequence[Member], splits: Sequence[str]
                ) -> dict[int, dict[str, np.ndarray]]:
        """Decisions of ``members`` on ``splits`` (by member index, then split)."""
        ...

    def fail(self, member: Member, error: str) -> None:
        """``member`` failed at its current step with ``error`` (a message)."""
        ...

    def finish(self, members: Sequence[Member]) -> None:
        """``members`` are done (budget or stopping rule): record them."""
        ...

    def leave(self, keep: Sequence[Member]) -> None:
        """Only ``keep`` stay active (the stepper compacts its weights)."""
        ...

    def checkpoint(self, members: Sequence[Member], step: int) -> None:
        """The periodic checkpoint after ``step`` (``train.checkpoint_every``) of ``members``."""
        ...

    def interrupted(self, members: Sequence[Member]) -> None:
        """Ctrl-C after a complete step: write what a resume needs."""
        ...

    def close(self, members: Sequence[Member]) -> None:
        """Every member has left (``members``: all of the drive)."""
        ...


def drive(
    members: Sequence[Member], stepper: Stepper, *, desc: str, quiet: bool = True,
    on_step: Callable[[int], None] | None = None,
) -> None:
    """Train ``members`` (not yet done) until each is done or failed; see the module docstring."""
    from tqdm import tqdm  # not tqdm.auto: it warns in a kernel without ipywidgets

    everyone = list(members)
    active = [m for m in everyone if not m.state.done and m.state.step < m.steps]
    step = active[0].state.step if active else 0
    bar = tqdm(total=max((m.steps for m in everyone), default=0), initial=step, desc=desc,
               unit="step", disable=quiet, dynamic_ncols=True, mininterval=0.5)
    consistent = True  # False from the weight update until the step's bookkeeping is done
    try:
        while active:
            tick = time.perf_counter()
            outcome, tokens = stepper.gradients(active, step)
            if isinstance(outcome, dict):  # drop the failed members, redo the step
                for m in active:
                    if m.index in outcome:
                        stepper.fail(m, outcome[m.index])
                active = [m for m in active if m.index not in outcome]
                stepper.leave(active)
                continue
            consistent = False
            stepper.update(active, step)
            share = (time.perf_counter() - tick) / len(active)
            for m, (accuracy, loss), n in zip(active, outcome, tokens, strict=True):
                m.state.took_step(accuracy, loss, n, share)
            step += 1
            _validate([m for m in active if m.validation_due()], stepper)
            for m in active:
                m.state.done = m.state.done or m.state.step >= m.steps
            finished = [m for m in active if m.state.done]
            if finished:
                stepper.finish(finished)
                active = [m for m in active if not m.state.done]
                stepper.leave(active)
            every = active[0].run.spec.train.checkpoint_every if active else 0
            if every and step % every == 0:
                stepper.checkpoint(active, step)
            bar.update(1)
            if len(everyone) == 1 and (step % 10 == 0 or not active):
                state = everyone[0].state
                bar.set_postfix(loss=f"{outcome[0][1]:.4f}", acc=f"{state.batch_accuracy:.3f}",
                                tok_s=f"{state.tokens / max(state.train_seconds, 1e-9):.0f}",
                                refresh=False)
            consistent = True
            if on_step is not None:
                on_step(step)
        stepper.close(everyone)
    except KeyboardInterrupt:
        if consistent:
            stepper.interrupted(active)
        raise
    finally:
        bar.close()


def _validate(due: list[Member], stepper: Stepper) -> None:
    """Validation accuracies of the ``due`` members and their stopping rules."""
    if not due:
        return
    preds = stepper.predict(due, VALIDATION)
    for m in due:
        note_validation(m.run, m.state, {name: m.accuracy(name, preds[m.index].get(name))
                                         for name in VALIDATION})
