"""Hand-set SSM recognizers against their DFAs: every short word, long random words, fp32 gates."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from expressivity.algebra.mixers import KINDS, mixer_verdict, two_groups
from expressivity.algebra.monoid import transition_semigroup
from expressivity.algebra.varieties import DECISIONS
from expressivity.automata.regex import compile_regex
from expressivity.models.ssm.construct import CONSTRUCTIONS, Construction, channel, delayed
from expressivity.models.tokens import encode_batch


def _decide(c: Construction, words: list[tuple[str, ...]]) -> np.ndarray:
    tokens, lengths = encode_batch([c.alphabet.encode(w) for w in words], len(c.alphabet))
    return c.accepts(tokens, lengths).numpy()


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_all_short_words(name: str) -> None:
    c = CONSTRUCTIONS[name]
    dfa = compile_regex(c.regex, c.alphabet)
    words = [w for n in range(11) for w in itertools.product(c.alphabet.symbols, repeat=n)]
    got = _decide(c, words)
    want = np.array([dfa.accepts(w) for w in words])
    assert want.any() and not want.all()
    bad = [w for w, g, e in zip(words, got, want, strict=True) if g != e]
    assert not bad, bad[:5]


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_long_random_words(name: str) -> None:
    c = CONSTRUCTIONS[name]
    dfa = compile_regex(c.regex, c.alphabet)
    rng = np.random.default_rng(len(name))
    words = []
    for length in (257, 1000, 4093, 4096):
        for _ in range(6):
            w = list(rng.choice(c.alphabet.symbols, length))
            words.append(tuple(w))
            if name.startswith(("dyck", "aa-star-ab")):  # members are rare: perturb a member
                member = list("ab" * (length // 2)) if name.startswith("dyck") else ["a"] * length
                words.append(tuple(member))
                j = int(rng.integers(length))
                member[j] = "b" if member[j] == "a" else "a"
                words.append(tuple(member))
    got = _decide(c, words)
    want = np.array([dfa.accepts(w) for w in words])
    assert (got == want).all()


@pytest.mark.parametrize("name", sorted(CONSTRUCTIONS))
def test_the_classifier_agrees_the_kinds_suffice(name: str) -> None:
    """Each construction's language gets "yes" for its SSM kind (a check on the theory)."""
    c = CONSTRUCTIONS[name]
    sg = transition_semigroup(compile_regex(c.regex, c.alphabet))
    found = {cls: decide(sg) for cls, decide in DECISIONS.items()}
    found["two_groups"] = two_groups(sg)
    member = {k: v is True for k, v in found.items()}
    ssm = frozenset(k for k in c.kinds if k in KINDS)
    assert mixer_verdict(name, ssm, None, True, member, found).status == "yes"


def test_the_gates_are_exact_in_float32() -> None:
    z = torch.tensor([[-200.0, 200.0]])
    delta = torch.nn.functional.softplus(z)
    assert delta[0, 0].item() == 0.0 and torch.exp(-delta)[0, 1].item() == 0.0
    assert (2 * torch.exp(-delta) - 1)[0].tolist() == [1.0, -1.0]
    h = channel(torch.full((1, 5), 200.0), torch.ones(1, 5) / 200.0, signed=True)
    assert h[0].tolist() == [1.0, 0.0, 1.0, 0.0, 1.0]  # b = 1 with a = −1: 1, 0, 1, ...


def test_delay_reads_yesterday() -> None:
    f = torch.tensor([[True, False, True, True, False, False, True] * 300])
    y = delayed(f)
    assert not y[0, 0] and torch.equal(y[0, 1:], f[0, :-1])
