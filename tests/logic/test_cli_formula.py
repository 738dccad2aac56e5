"""The ``expressivity formula`` command."""

from __future__ import annotations

import pytest

from expressivity.cli import main


def test_report_with_words(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["formula", "P(b ∧ Y a)", "--alphabet", "a,b,c", "--word", "cab", "-w", "ba"])
    out = capsys.readouterr().out
    assert status == 0
    assert "formula    P(b & Y a)" in out
    assert "unicode    P(b ∧ Y a)" in out
    assert "fragment   LTL[P,Y]" in out
    assert "depth      2" in out and "size       5" in out
    assert "operators  P, Y" in out
    assert "word cab (N = 3): in L(φ)" in out
    assert "word ba (N = 2): not in L(φ)" in out
    lines = out.splitlines()
    block = lines[lines.index("word cab (N = 3): in L(φ)") :]
    assert block[1].split() == ["position", "1", "2", "3", "4"]
    assert block[2].split() == ["symbol", "c", "a", "b", "EOS"]
    assert block[3].split() == ["φ", "0", "0", "0", "1"]


def test_empty_word_multi_character_symbols_and_subformulas(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["formula", "Y<=2 b0", "-a", "a1,b0", "-w", "", "-w", "b0 a1 a1", "--subformulas"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "fragment   LTL[Y^{≤2}]" in out
    assert "word ε (N = 0): not in L(φ)" in out
    assert "word b0 a1 a1 (N = 3): not in L(φ)" in out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[-3:]}
    assert rows["symbol"] == ["b0", "a1", "a1", "EOS"]
    assert rows["φ"] == ["0", "1", "1", "0"]


def test_alphabet_defaults_to_the_formula_symbols(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["formula", "a S b", "--word", "bab"]) == 0
    out = capsys.readouterr().out
    assert "alphabet   {a,b}" in out and "word bab (N = 3): in L(φ)" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["formula", "P(b & Ya)"], "unknown operator 'Ya'"),
        (["formula", "P(b &", "-a", "a,b"], "unexpected end of formula at line 1, column 6"),
        (["formula", "P d", "-a", "a,b,c"], "symbol 'd' at line 1, column 3"),
        (["formula", "P a", "-a", "a,b", "-w", "abc"], "'c' is not in the alphabet"),
        (["formula", "true", "-w", "ab"], "give the words' --alphabet"),
    ],
)
def test_errors_are_reported_not_raised(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err


def test_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["formula", "--help"])
    assert info.value.code == 0
    assert "--word" in capsys.readouterr().out
