"""SSM atoms and presets in the layout grammar: spellings, sizes, and the errors."""

from __future__ import annotations

import pytest

from expressivity.errors import ConfigError
from expressivity.layouts import KINDS, parse_spelling
from expressivity.layouts.mixer import is_mixer

SSM = ("M", "MS", "SD", "SDC", "DR")


def _kinds(text: str, n_layers: int, n_heads: int) -> list[list[str]]:
    rows = parse_spelling(text).sized(n_layers, n_heads)
    return [["+".join(str(a) for a in head) for head in row] for row in rows]


def test_every_ssm_atom_is_registered_as_a_mixer() -> None:
    for letter in SSM:
        assert is_mixer(KINDS[letter])
    assert not any(is_mixer(k) for letter, k in KINDS.items() if letter not in SSM)


@pytest.mark.parametrize(("text", "layers"), [
    ("mamba", [["M"] * 2] * 4),
    ("mamba-signed", [["MS"] * 2] * 4),
    ("s4d", [["SD"] * 2] * 4),
    ("deltanet", [["DR"] * 2] * 4),
    ("samba-2", [["M"] * 2, ["L2"] * 2, ["M"] * 2, ["L2"] * 2]),
    ("jamba-2", [["M"] * 2, ["G"] * 2, ["M"] * 2, ["G"] * 2]),
    ("jamba-4", [["M"] * 2, ["M"] * 2, ["G"] * 2, ["M"] * 2]),
    ("1xM,1xL1", [["M", "L1"]] * 4),
    ("M;G;MS;SDC", [["M"] * 2, ["G"] * 2, ["MS"] * 2, ["SDC"] * 2]),
])
def test_spellings(text: str, layers: list[list[str]]) -> None:
    assert _kinds(text, 4, 2) == layers


@pytest.mark.parametrize(("text", "why"), [
    ("M+G", "head pattern of its own"),
    ("L2+MS", "head pattern of its own"),
    ("M2", "takes 0 number"),
    ("jamba-1", "n >= 2"),
    ("mamba-3", "takes 0 number"),
    ("samba", "samba"),
])
def test_errors_say_what_and_how(text: str, why: str) -> None:
    with pytest.raises(ConfigError, match=why):
        parse_spelling(text).sized(4, 2)


def test_jamba_smallest_size_has_its_global_layer() -> None:
    assert parse_spelling("jamba-8").smallest == (5, 1)
    assert parse_spelling("samba-1").smallest == (2, 1)
