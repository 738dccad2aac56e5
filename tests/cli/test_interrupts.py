"""Ctrl-C on the command line: the first stops cleanly, a second at any moment after is ignored."""

from __future__ import annotations

import argparse
import signal
from collections.abc import Iterator
from typing import Any

import pytest

import expressivity.cli as cli
from expressivity.interrupts import stop_on_first_interrupt


@pytest.fixture(autouse=True)
def _default_sigint() -> Iterator[None]:
    """Each test starts and ends with Python's own Ctrl-C handler."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _parser_with(func: Any) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="expressivity")
    parser.add_argument("-v", "--verbose", action="store_true")
    parser.add_argument("--catalogue", action="append")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("stop").set_defaults(func=func)
    return parser


def test_a_second_ctrl_c_right_after_the_first_cannot_break_the_clean_stop(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The worst moment: the second Ctrl-C arrives before the code that caught the first has
    run a single line of its clean-up."""
    cleaned: list[bool] = []

    def stop(args: argparse.Namespace) -> int:
        try:
            signal.raise_signal(signal.SIGINT)  # the first Ctrl-C
        except KeyboardInterrupt:
            signal.raise_signal(signal.SIGINT)  # the second, before any clean-up
            cleaned.append(True)
            print("interrupted: cleaned up")
            return 130
        return 0

    monkeypatch.setattr(cli, "build_parser", lambda: _parser_with(stop))
    assert cli.main(["stop"]) == 130
    assert cleaned == [True]
    out, err = capsys.readouterr()
    assert out == "interrupted: cleaned up\n" and err == ""
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # until the process exits


def test_a_command_that_is_not_interrupted_leaves_the_handler_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen: list[object] = []
    monkeypatch.setattr(cli, "build_parser", lambda: _parser_with(
        lambda args: seen.append(signal.getsignal(signal.SIGINT))))
    assert cli.main(["stop"]) == 0
    assert seen == [stop_on_first_interrupt]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # e.g. a background job of a shell
    assert cli.main(["stop"]) == 0
    assert seen[-1] == signal.SIG_IGN and signal.getsignal(signal.SIGINT) == signal.SIG_IGN
