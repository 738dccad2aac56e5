"""Issue 28 items 6-7: every layout number, alphabet, dimension and bound is checked before work.

The CLI cases run in ONE memory-limited child (`hostile.py`, as in test_bounds): each must end
in a clear error (or bounded work) with no traceback escaping.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from expressivity.algebra.synthesis import MAX_SUFFIX_STATES, synthesize_past, tree_size
from expressivity.automata.regex import compile_regex
from expressivity.cli import main
from expressivity.data.split_config import MAX_LENGTH
from expressivity.errors import ConfigError, SynthesisTooLargeError
from expressivity.extraction.agreement import MAX_ALL_WORDS, all_words, longest_enumerable
from expressivity.layouts import LIMITS, parse_heads, parse_preset
from expressivity.logic.syntax import And, Symbol
from tests.robustness.test_bounds import _clear_errors, _run

HUGE = [
    "local-100000000", "block-100000000", "longformer-100000-100000", "1000000000xG",
    "T99999999", "2000000000x(G)", "dilated-3-100000", "bigbird-2-2-100000",
    "local-" + "9" * 5_000,
]


def test_the_window_limit_is_the_longest_sampled_word() -> None:
    assert LIMITS["window"] == MAX_LENGTH + 1
    assert parse_heads(f"L{LIMITS['window']}", 1, 1)[0][0][0].params == (LIMITS["window"],)
    for text in (f"L{LIMITS['window'] + 1}", f"B{LIMITS['block'] + 1}", "D2.6000",
                 f"R{LIMITS['window'] + 1}", f"T{LIMITS['window'] + 1}"):
        with pytest.raises(ConfigError, match=r"above the limit .*layouts\.LIMITS"):
            parse_heads(text, 1, 1)
    with pytest.raises(ConfigError, match="asks for 9 heads but the model has 8"):
        parse_heads("9xG", 1, 8)
    with pytest.raises(ConfigError, match="above the limit"):
        parse_preset("dilated-2-100000000")


def test_huge_layouts_are_clear_errors_before_any_allocation() -> None:
    cases = [["classify", "SUFFIX-a", "--layouts", text] for text in HUGE]
    cases += [["construct", "Y a", "--alphabet", "a,b", "--layout", text]
              for text in ("dilated-2-100000000", "block-100000000", "block-14")]
    cases += [["train", "SUFFIX-a", "--layout", text, "--profile", "tiny", "--steps", "1",
               "--no-resume", "-q"] for text in HUGE[:5]]
    _clear_errors(cases, "above the limit", "heads but the model has",
                  "repeats a layer", "digits, more than any layout limit", "MAX_BLOCK")


def test_rope_range_dimension_and_work_are_bounded() -> None:
    _clear_errors([["rope-range", "--dim", "1000000"], ["rope-range", "--dim", "10000"],
                   ["rope-range", "--dim", "1024", "--limit", "10000000"]],
                  "MAX_DIM", "MAX_CELLS")


def test_extract_arguments_are_checked_first(tmp_path: Path) -> None:
    db = str(tmp_path / "none.db")
    _clear_errors([["extract", "abc", "--db", db, "--seed", "-1"],
                   ["extract", "abc", "--db", db, "--length-bound", "100000"]],
                  "--seed: must be a non-negative integer", "MAX_LENGTH_BOUND")


def test_long_regexes_over_large_alphabets_end_in_bounded_work() -> None:
    chain = "re:" + " ".join(["a"] * 400)
    big = ",".join(["a"] + [f"s{i}" for i in range(400)])
    cases = [["classify", chain, "--alphabet", "a,b"], ["construct", chain, "--alphabet", "a,b"],
             ["construct", "P a", "--alphabet", big, "-q"]]
    results = _run(cases)
    for argv, got in zip(cases, results, strict=True):
        err = str(got["err"])
        assert got["escaped"] == "" and "Traceback" not in err, (argv[:2], got)
        assert got["rc"] in (0, 1, 2), (argv[:2], got)
    assert results[1]["rc"] == 2 and "MAX_SYNTHESIS_SIZE" in str(results[1]["err"])


def test_synthesis_bounds_are_named() -> None:
    dfa = compile_regex(" ".join(["a"] * 30), "a,b")
    with pytest.raises(SynthesisTooLargeError, match="MAX_SYNTHESIS_SIZE"):
        synthesize_past(dfa)
    assert MAX_SUFFIX_STATES >= 100
    shared = Symbol("a")
    for _ in range(40):  # a DAG of 41 nodes that is 2^41 nodes written out
        shared = And(shared, shared)
    assert tree_size(shared, limit=10**6) > 10**6


def test_checking_every_word_is_bounded() -> None:
    assert longest_enumerable(2) == 8 and longest_enumerable(401) == 2
    with pytest.raises(ConfigError, match="MAX_ALL_WORDS"):
        all_words(401, 4)
    assert len(all_words(2, 8)[1]) == 511 <= MAX_ALL_WORDS


def test_figures_into_a_file_or_a_read_only_folder_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from expressivity.analysis.example import write_example_store

    db = write_example_store(tmp_path / "example.db")
    existing = tmp_path / "a-file"
    existing.write_text("x", "utf-8")
    assert main(["figures", str(db), "--out", str(existing), "--formats", "svg"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "a file, but figures go to a folder" in err

    def read_only(self: Path, *args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "mkdir", read_only)
    assert main(["figures", str(db), "--out", str(tmp_path / "out"), "--formats", "svg"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Permission denied" in err and "Traceback" not in err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes into read-only folders")
def test_figures_beside_a_store_in_a_read_only_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from expressivity.analysis.example import write_example_store

    folder = tmp_path / "ro"
    folder.mkdir()
    db = write_example_store(folder / "example.db")
    folder.chmod(0o555)
    try:
        assert main(["figures", str(db), "--formats", "svg"]) == 2
    finally:
        folder.chmod(0o755)
    assert "cannot write the figures" in capsys.readouterr().err
