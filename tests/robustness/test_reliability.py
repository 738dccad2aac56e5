"""Issue 28 items 3, 4 and 9: huge seeds, limits that are errors, capped echoes, clear messages."""

from __future__ import annotations

import warnings

import pytest

from expressivity.cli import main
from expressivity.errors import (
    ECHO_LIMIT,
    ConfigError,
    ExpressivityWarning,
    FormulaLimitError,
    FormulaSyntaxError,
)
from expressivity.layouts import parse_heads
from expressivity.resolve import resolve
from expressivity.sweeps.spec import parse_sweep
from expressivity.training.spec import MAX_SEED, RunSpec


def _error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Traceback" not in err, err
    return err


# ---- item 3: a seed the store cannot hold is refused before any training ----------------------
def test_a_seed_beyond_the_store_is_refused_before_training() -> None:
    assert RunSpec("LT-2", seed=MAX_SEED).seed == MAX_SEED
    with pytest.raises(ConfigError, match="MAX_SEED = 2\\*\\*63 - 1"):
        RunSpec("LT-2", seed=MAX_SEED + 1)
    text = ('[sweep]\nname = "x"\nprofile = "tiny"\n[axes]\nlanguages = ["LT-2"]\n'
            f"seeds = [0, {2**63}]\n")
    with pytest.raises(ConfigError, match="6:13: seed: 9223372036854775808 is above"):
        parse_sweep(text).expand()


# ---- item 4: text that fails as a formula only because of a limit is that error ----------------
@pytest.mark.parametrize("command", ["compile", "classify", "sample"])
def test_a_formula_over_the_depth_limit_is_never_read_as_a_regex(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    within = " | ".join(["a"] * 201)
    assert resolve(within, "a,b").kind == "formula"
    beyond = " | ".join(["a"] * 202)
    with pytest.raises(FormulaLimitError, match="formula too deep"):
        resolve(beyond, "a,b")
    assert resolve("re:" + beyond, "a,b").kind == "regex"  # asked for: the regex reading
    out = ["--out", "unused"] if command == "sample" else []
    argv = [command, beyond, "--alphabet", "a,b", *out]
    assert "formula too deep" in _error(argv, capsys)


def test_a_shift_over_its_limit_is_never_read_as_a_regex() -> None:
    with pytest.raises(FormulaLimitError, match="Y\\^k needs k <="):
        resolve("Y^99999 a", "a,b")


# ---- item 9: errors repeat at most ECHO_LIMIT characters of the input -------------------------
def test_errors_cap_the_echo_of_long_input(capsys: pytest.CaptureFixture[str]) -> None:
    long = "(" * 5 + "a & " * 2_000 + "&"
    with pytest.raises(FormulaSyntaxError) as info:
        resolve(long, "a,b")
    message = str(info.value)
    assert len(message) < 3 * ECHO_LIMIT + 400, len(message)
    assert "…" in message and "8006 characters" in message
    err = _error(["compile", long, "--alphabet", "a,b"], capsys)
    assert max(len(line) for line in err.splitlines()) < ECHO_LIMIT + 200


def test_the_caret_still_points_at_the_failing_character() -> None:
    text = "a & " * 100 + "@ b"
    with pytest.raises(FormulaSyntaxError) as info:
        resolve("ltl:" + text, "a,b")
    _, src, caret = str(info.value).splitlines()[:3]
    assert src[caret.index("^")] == "@"


@pytest.mark.parametrize(("text", "constant"), [
    ("eos", "{ε}"), ("!a & !b", "{ε}"), ("start", "Σ*"), ("a | b", "Σ⁺"), ("Y a", "∅"),
])
def test_at_start_every_anchor_made_constant_warns(text: str, constant: str) -> None:
    with pytest.warns(ExpressivityWarning, match=f"denotes the constant language {constant}"):
        resolve("ltl:" + text, "a,b", at="start")


@pytest.mark.parametrize("text", ["true", "false", "a & !a", "a", "X a"])
def test_at_start_no_warning_for_constants_of_both_anchors_or_languages(text: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        resolve("ltl:" + text, "a,b", at="start")


@pytest.mark.parametrize(("text", "named"), [
    ("4xG,,4xL1", "head group 2 of 3 is empty"), ("G+", "pattern 'g+': an empty atom"),
    ("2x(G", "1 '(' without a closing ')'"), ("G;;L1", "layer 2 of 3 is empty"),
    ("4xG,4xL1)", "the ')' at column 9 closes no '('"), ("(G)", "head group '(g)' has a paren"),
    ("hybrid-1:g=", "preset 'hybrid' is spelled hybrid-k or hybrid-k:g=G"),
    ("3x(8xG);", "layer 2 of 2 is empty"), ("x G", "unknown atom 'XG'"),
])
def test_layout_errors_name_the_failing_part(text: str, named: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_heads(text, 5, 8)
    assert named in str(info.value)


@pytest.mark.parametrize("argv", [
    ["classify", "X" * 3_000], ["classify", "PT-2", "--alphabet", "X" * 3_000],
    ["train", "SUFFIX-a", "--layout", "X" * 3_000, "--profile", "tiny"],
])
def test_the_cli_never_repeats_a_long_argument_whole(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    err = _error(argv, capsys)
    assert "X" * 200 not in err and "(3000 characters)" in err
