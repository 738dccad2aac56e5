"""The registry property test: every registered atom kind's mask rule equals the key sets of
the operator it denotes, on numpy and torch alike, for all lengths <= 12.

It iterates `KINDS`, so an atom kind added later (one file in `expressivity/layouts/atoms/`)
is covered without editing this file; its parameters are drawn from its ``small`` ranges.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from expressivity.errors import ConfigError
from expressivity.layouts import GRAMMAR, KINDS, Atom, AtomKind, atoms, parse_spelling
from expressivity.layouts.encoder_kind import EncoderKind
from expressivity.layouts.registry import discover
from expressivity.layouts.spec import parse_atom
from expressivity.models.layouts import Pattern

MAX_LENGTH = 12


def _params(kind: AtomKind) -> st.SearchStrategy[tuple[int, ...]]:
    assert len(kind.small) == kind.arity, f"{kind.letter}: one small range per number"
    return st.tuples(*(st.integers(low, high) for low, high in kind.small))


def _rows(allowed: np.ndarray) -> list[frozenset[int]]:
    return [frozenset(int(m) for m in np.flatnonzero(row)) for row in allowed]


def _operator_keys(kind: AtomKind, n: int, length: int, params: tuple[int, ...]) -> set[int]:
    """The symbols (token indices 1..length−1) the operator of `AtomKind.reads` lets row n
    read, when it is exact; the seed-free part of seeded kinds is checked apart."""
    reads = kind.reads(params)
    if reads.hubs:
        return set(range(1, length)) if n < reads.hubs else set(range(1, min(reads.hubs, length)))
    return set() if reads.head is None or n < 1 else set(reads.head.keys(n))


def test_every_atom_file_is_registered() -> None:
    found = [importlib.import_module(f"{atoms.__name__}.{m.name}").ATOM
             for m in pkgutil.iter_modules(atoms.__path__)]
    assert sorted(a.letter for a in found) == sorted(KINDS)
    assert len(KINDS) >= 6 and {"G", "L", "D", "B", "R", "T"} <= set(KINDS)
    for kind in KINDS.values():
        assert f"{kind.spelling} ({kind.meaning})" in GRAMMAR


@pytest.mark.parametrize("letter", list(KINDS))
@settings(max_examples=20)
@given(data=st.data(), seed=st.integers(0, 3))
def test_mask_rows_are_the_operator_key_sets(letter: str, data: st.DataObject, seed: int) -> None:
    kind = KINDS[letter]
    params = data.draw(_params(kind), label="params")
    for length in range(1, MAX_LENGTH + 1):
        idx = np.arange(length)
        got = kind.allowed(idx[:, None], idx[None, :], params, seed, length)
        assert got.shape == (length, length) and got.dtype == np.bool_
        rows = _rows(got)
        for n in range(length):
            keys = kind.keys(n, length, params, seed)
            assert rows[n] == keys, (letter, params, seed, length, n)
            symbols = set(keys) - {0}
            encoder = isinstance(kind, EncoderKind)
            if encoder:  # bidirectional, the query included: no causal operator to match
                assert n in keys  # (the encoder theory reads the masks; tests/layouts/
                # test_encoder_atoms.py holds the rule to the spelling table)
            elif kind.reads(params).seeded:  # a drawn subset; the seed-free part: a key or none
                head = kind.reads(params).head
                assert symbols <= set(range(1, n))
                assert bool(symbols) == bool(head is not None and head.keys(n)), (n, keys)
            else:
                assert symbols == _operator_keys(kind, n, length, params), (letter, params, n)
            if kind.causal:  # strict, or (encoder kinds) the query itself as well
                assert all(m < n or (encoder and m == n) for m in keys)
            band = kind.band(params)
            if band is not None:
                assert all(n - band <= m for m in keys)
        t = torch.arange(length)
        tensor = kind.allowed(t[:, None], t[None, :], params, seed, length)
        assert tensor.dtype == torch.bool and np.array_equal(tensor.numpy(), got)
        atom = Atom(letter, params)
        seeded = Pattern((atom,), seed).allowed(t[:, None], t[None, :], length=length)
        assert np.array_equal(seeded.numpy(), got)  # the model's masks read the same rule


@pytest.mark.parametrize("letter", list(KINDS))
@given(data=st.data())
def test_every_atom_spells_back(letter: str, data: st.DataObject) -> None:
    kind = KINDS[letter]
    atom = Atom(letter, data.draw(_params(kind)))
    assert parse_atom(str(atom), str(atom)) == atom
    assert parse_atom(str(atom).lower(), str(atom)) == atom
    layout = parse_spelling(str(atom))
    assert layout.patterns == ((atom,),) and layout.sized(2, 3) == (((atom,),) * 3,) * 2


def test_a_new_atom_is_one_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A package of atom files is read by `discover`: one file with ``ATOM`` is one more kind
    (letters [A-Z]+), ranked into the grammar order; a repeated letter is refused."""
    package = tmp_path / "more_atoms"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "copy_of_local.py").write_text(
        "from expressivity.layouts.atoms.local import Local\n"
        "ATOM = Local(letter='SW', arity=1, spelling='SWk', meaning='a window', label='{}-sw',"
        " rank=50, small=((1, 3),))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = discover(importlib.import_module("more_atoms"))
    assert list(found) == ["SW"] and found["SW"].band((3,)) == 3
    (package / "again.py").write_text("from more_atoms.copy_of_local import ATOM\n")
    importlib.invalidate_caches()
    with pytest.raises(ConfigError, match="defined twice"):
        discover(importlib.import_module("more_atoms"))
