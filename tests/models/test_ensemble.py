"""EnsembleRecognizer: bit-identical initial weights, logits equal to each member alone."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from expressivity.errors import ConfigError
from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.ensemble import EnsembleRecognizer

ALPHABET = 3


def _batches(m_sz: int, b_sz: int, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    """One batch per member of random words (lengths 0..14), padded to a common width."""
    rng = np.random.default_rng(seed)
    enc = [encode_batch([rng.integers(0, ALPHABET, rng.integers(0, 15)) for _ in range(b_sz)],
                        ALPHABET) for _ in range(m_sz)]
    width = max(t.shape[1] for t, _ in enc)
    tokens = torch.full((m_sz, b_sz, width), ALPHABET + 2, dtype=torch.long)
    for i, (t, _) in enumerate(enc):
        tokens[i, :, : t.shape[1]] = t
    return tokens, torch.stack([n for _, n in enc])


LAYOUTS = ["global", "local-1", "hybrid-1", "longformer-2-1", "bigbird-2-1-1", "dilated-2-2"]


def _configs(layouts: list[str], **kw: object) -> list[ModelConfig]:
    base = {"n_layers": 2, "d_model": 16, "n_heads": 2, "d_ff": 32, **kw}
    return [ModelConfig.from_dict({**base, "layout": layout}) for layout in layouts]


def test_initial_weights_are_bit_identical() -> None:
    configs = _configs(LAYOUTS)
    seeds = [11 * i + 3 for i in range(len(configs))]
    ens = EnsembleRecognizer(configs, ALPHABET, seeds)
    for i, (c, s) in enumerate(zip(configs, seeds, strict=True)):
        single = Recognizer(c, ALPHABET, seed=s).state_dict()
        member = ens.member_state(i)
        assert member.keys() == single.keys()
        for name, value in single.items():
            assert torch.equal(member[name], value), name


@pytest.mark.parametrize(
    "extra",
    [
        {},
        {"kernel": "banded"},
        {"kernel": "sparse"},
        {"kernel": "sparse", "positional": "alibi"},
        {"positional": "rope"},
        {"positional": "alibi"},
        {"positional": "learned", "max_len": 64},
        {"positional": "sinusoidal", "activation": "relu"},
        {"positional": "periodic-sinusoidal", "periods": (2, 3)},
        {"positional": "periodic-rope", "periods": (2,)},
        {"positional": "periodic-rope", "periods": (3,), "rope_unrotated": 2},
        {"positional": "rope", "rope_unrotated": 4},
        {"norm": "none", "bias": False},
        {"strict": False},
        {"attention_scale": "log-n"},
        {"attention_scale": "ssmax", "kernel": "banded"},
        {"attention_scale": "ssmax", "positional": "alibi"},
    ],
)
def test_logits_equal_each_member_alone(extra: dict[str, object]) -> None:
    configs = _configs(LAYOUTS, **extra)
    seeds = list(range(len(configs)))
    ens = EnsembleRecognizer(configs, ALPHABET, seeds)
    tokens, lengths = _batches(len(configs), 5)
    with torch.no_grad():
        logits = ens(tokens, lengths)
        for i, (c, s) in enumerate(zip(configs, seeds, strict=True)):
            alone = Recognizer(c, ALPHABET, seed=s)(tokens[i], lengths[i])
            torch.testing.assert_close(logits[i], alone, rtol=1e-5, atol=1e-6)
        sub = ens(tokens[[4, 1]], lengths[[4, 1]], members=[4, 1])
        torch.testing.assert_close(sub, logits[[4, 1]], rtol=1e-5, atol=1e-6)


def test_ssmax_members_use_their_own_scales() -> None:
    configs = _configs(LAYOUTS, attention_scale="ssmax")
    seeds = list(range(len(configs)))
    singles = [Recognizer(c, ALPHABET, seed=s) for c, s in zip(configs, seeds, strict=True)]
    ens = EnsembleRecognizer(configs, ALPHABET, seeds)
    gen = torch.Generator().manual_seed(5)
    with torch.no_grad():
        for name, stacked in zip(ens.names, ens.stacked, strict=True):
            if name.endswith("length_scale"):
                stacked.copy_(0.5 + 2 * torch.rand(stacked.shape, generator=gen))
                for i, single in enumerate(singles):
                    dict(single.named_parameters())[name].copy_(stacked[i])
        tokens, lengths = _batches(len(configs), 5)
        logits = ens(tokens, lengths)
        for i, single in enumerate(singles):
            torch.testing.assert_close(logits[i], single(tokens[i], lengths[i]),
                                       rtol=1e-5, atol=1e-6)


def test_every_positional_encoding_is_checked_and_matters() -> None:
    """Each encoding is in the parametrization above, and changes the logits of one model
    (with the same weights) at this size: a member that dropped it would be caught."""
    import inspect
    from typing import get_args

    from expressivity.models.config import Positional

    params = inspect.getsource(inspect.getmodule(_configs))  # type: ignore[arg-type]
    tokens, lengths = _batches(1, 5)
    base = Recognizer(_configs(["global"])[0], ALPHABET, seed=0)
    with torch.no_grad():
        nope = base(tokens[0], lengths[0])
    for name in get_args(Positional):
        if name == "none":
            continue
        assert f'"positional": "{name}"' in params, name
        extra = {"periods": (2,)} if name.startswith("periodic-") else {}
        config = _configs(["global"], positional=name, max_len=64, **extra)[0]
        model = Recognizer(config, ALPHABET, seed=0)
        model.load_state_dict(base.state_dict(), strict=False)
        with torch.no_grad():
            assert not torch.allclose(model(tokens[0], lengths[0]), nope, rtol=1e-5,
                                      atol=1e-6), name


def test_gradients_stay_per_member() -> None:
    configs = _configs(["global", "local-1", "hybrid-1"])
    ens = EnsembleRecognizer(configs, ALPHABET, [0, 1, 2])
    tokens, lengths = _batches(3, 4, seed=1)
    ens(tokens, lengths)[1].sum().backward()
    for p in ens.stacked:
        assert p.grad is not None
        assert not p.grad[[0, 2]].any()
    single = Recognizer(configs[1], ALPHABET, seed=1)
    single(tokens[1], lengths[1]).sum().backward()
    for (name, q), p in zip(single.named_parameters(), ens.stacked, strict=True):
        assert q.grad is not None
        torch.testing.assert_close(p.grad[1], q.grad, rtol=1e-4, atol=1e-7, msg=name)


def test_select_and_member_round_trip() -> None:
    configs = _configs(["global", "local-1", "hybrid-1"])
    ens = EnsembleRecognizer(configs, ALPHABET, [5, 6, 7])
    sub = ens.select([2, 0])
    assert sub.size == 2 and sub.configs == (configs[2], configs[0])
    for name, value in sub.member_state(0).items():
        assert torch.equal(value, ens.member_state(2)[name])
    tokens, lengths = _batches(1, 3)
    with torch.no_grad():
        torch.testing.assert_close(ens.member(1)(tokens[0], lengths[0]),
                                   Recognizer(configs[1], ALPHABET, seed=6)(tokens[0], lengths[0]))


def test_incompatible_shapes_name_the_field() -> None:
    configs = _configs(["global", "local-1"])
    wider = _configs(["global"], d_ff=64)[0]
    with pytest.raises(ConfigError, match=r"model\.d_ff.*member 2"):
        EnsembleRecognizer([*configs, wider], ALPHABET, [0, 1, 2])
    with pytest.raises(ConfigError, match=r"model\.dropout"):
        EnsembleRecognizer(_configs(["global"], dropout=0.1), ALPHABET, [0])
    with pytest.raises(ConfigError, match="seeds"):
        EnsembleRecognizer(configs, ALPHABET, [0])
