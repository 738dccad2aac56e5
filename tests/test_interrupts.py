"""The command line's Ctrl-C handler: one `KeyboardInterrupt`, then nothing, and it says so."""

from __future__ import annotations

import signal
from collections.abc import Iterator

import pytest

from expressivity.interrupts import stop_on_first_interrupt, stop_requested


@pytest.fixture(autouse=True)
def _default_sigint() -> Iterator[None]:
    yield
    signal.signal(signal.SIGINT, signal.default_int_handler)


def test_the_first_ctrl_c_interrupts_and_every_later_one_is_ignored() -> None:
    signal.signal(signal.SIGINT, stop_on_first_interrupt)
    assert not stop_requested()
    with pytest.raises(KeyboardInterrupt):
        signal.raise_signal(signal.SIGINT)
    assert stop_requested()
    for _ in range(3):  # at any moment after the first: nothing happens
        signal.raise_signal(signal.SIGINT)
    assert stop_requested()


def test_no_stop_is_requested_under_other_handlers() -> None:
    for handler in (signal.default_int_handler, signal.SIG_IGN):
        signal.signal(signal.SIGINT, handler)
        assert not stop_requested()
