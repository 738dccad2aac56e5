"""Issue 15 items 7-8: hostile inputs end in a clear error within bounded time and memory.

Every case runs through the CLI inside ONE child process (`hostile.py`) limited to
`MEMORY` bytes of address space and `TIMEOUT` seconds in all; none may let a traceback, a
RecursionError or a MemoryError escape.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEMORY = 3 * 2**30  # bytes of address space for the child (torch alone maps ~1 GiB)
TIMEOUT = 240  # seconds for all cases of one test together


def _run(cases: list[list[str]]) -> list[dict[str, object]]:
    out = subprocess.run(
        [sys.executable, "-m", "tests.robustness.hostile", str(MEMORY), json.dumps(cases)],
        capture_output=True, text=True, timeout=TIMEOUT, cwd=ROOT, check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    results = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    assert len(results) == len(cases), out.stdout[-2000:]
    return results


def _clear_errors(cases: list[list[str]], *wanted: str) -> None:
    for argv, got in zip(cases, _run(cases), strict=True):
        err = str(got["err"])
        shown = f"{argv[0]} {argv[1][:40]!r}: rc={got['rc']} {got['escaped']} {err[-300:]}"
        assert got["escaped"] == "" and "Traceback" not in err, shown
        assert got["rc"] == 2 and err.startswith("error:"), shown
        assert any(w in err for w in wanted), shown


DEEP = [
    "!" * 10_000 + "a",
    "P " * 10_000 + "a",
    "Y " * 500 + "a",  # the state-explosion path: its error message used to recurse
]


@pytest.mark.parametrize("command", ["formula", "compile", "construct", "classify"])
def test_deep_formulas_are_a_located_too_deep_error(command: str) -> None:
    cases = [[command, text, "--alphabet", "a,b"] for text in DEEP]
    if command == "formula":
        cases.append(["formula", " | ".join(["a"] * 10_000), "--alphabet", "a,b"])
    if command == "construct":
        cases.append(["construct", "P " * 3_000 + "a", "--alphabet", "a,b"])
    _clear_errors(cases, "formula too deep: operators nest more than 200 levels (limit 200)")


def test_deep_regexes_are_a_located_too_deep_error() -> None:
    cases = [
        ["compile", "re:a" + "*" * 10_000, "--alphabet", "a,b"],
        ["compile", "re:" + "(" * 5_000 + "a" + ")*" * 5_000, "--alphabet", "a,b"],
    ]
    _clear_errors(cases, "regular expression too deep", "column")


def test_long_regex_chains_are_not_deep() -> None:
    from expressivity.automata.regex import compile_regex

    assert compile_regex("a " * 3_000, "a,b").n_states == 3_002  # a chain is one level
    assert compile_regex("|".join(["a b"] * 3_000), "a,b").n_states == 4


def test_huge_shifts_windows_and_lengths_are_bounded_errors(tmp_path: Path) -> None:
    shifts = [["compile", text, "--alphabet", "a,b"] for text in (
        "Y^99999999999999999999999 a",  # reached 8.4 GB in 30 s before any state check
        "Y^100000 a", "Y<=100000 a", "Y^1000 a",  # hung or took 30 s
    )]
    _clear_errors(shifts, "needs k <= 256 here (limit 256")
    _clear_errors([["classify", "LT-2", "--ks", "100000"]], "--ks: window sizes up to 8 (limit 8")
    _clear_errors([["classify", "LT-2", "--max-depth", "-5"]], "--max-depth: must be >= 0")
    sample = ["sample", "LT-2", "--split", "test", "--out", str(tmp_path / "s"),
              "--set", "test_lengths=[1000000,1000000]"]  # died at 5.9 GB
    _clear_errors([sample], "lengths up to 10,000 (limit MAX_LENGTH")


def test_a_step_budget_beyond_the_limit_is_a_config_error() -> None:
    from expressivity.errors import ConfigError
    from expressivity.training.spec import MAX_STEPS, TrainConfig

    TrainConfig(steps=MAX_STEPS)
    with pytest.raises(ConfigError, match=r"steps: at most 1,000,000,000 \(limit MAX_STEPS"):
        TrainConfig(steps=2**63 - 1)


def test_a_semigroup_too_large_to_decide_on_is_a_clear_error() -> None:
    """`classify "Y^12 a"` (4,096 states, 8,191 elements) ran for minutes, then MemoryError."""
    _clear_errors([["classify", "Y^12 a", "--alphabet", "a,b"]],
                  "exceeds max_cells=1000000 (elements × states)")
    _clear_errors([["classify", "Y^9 a", "--alphabet", "a,b", "--max-cells", "0"]],
                  "--max-cells: must be a positive integer")


def test_classify_scales_with_letters_that_act_alike() -> None:
    """`classify "P(a0 & Y a1)"` over 50 symbols hung: 48 of them act alike on the DFA."""
    sigma = ",".join(f"a{i}" for i in range(50))
    (got,) = _run([["classify", "P(a0 & Y a1)", "--alphabet", sigma, "--json"]])
    assert got["rc"] == 0 and got["escaped"] == "", got
    out = json.loads(str(got["out"]))
    status = {layout: r["status"] for layout, r in out["recognizers"].items()}
    assert status["hybrid-1"] == "yes" and status["global"] == status["local-1"] == "no"
    assert out["alphabet"][:3] == ["a0", "a1", "a2"] and len(out["alphabet"]) == 50
