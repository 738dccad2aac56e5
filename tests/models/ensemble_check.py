"""A shared check of the model tests: ensemble members compute what their single models do."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from expressivity.models import ModelConfig, Recognizer, encode_batch
from expressivity.models.ensemble import EnsembleRecognizer


def assert_members_are_their_single_models(configs: Sequence[ModelConfig],
                                           alphabet: int) -> None:
    """An ensemble of ``configs`` (member i seeded i) gives each member's batch of 4 random
    words (lengths 0..8, padded to a common width) the logits its single model gives it."""
    ens = EnsembleRecognizer(list(configs), alphabet, list(range(len(configs))))
    rng = np.random.default_rng(3)
    batches = [encode_batch([rng.integers(0, alphabet, rng.integers(0, 9)) for _ in range(4)],
                            alphabet) for _ in configs]
    width = max(t.shape[1] for t, _ in batches)
    tokens = torch.full((len(configs), 4, width), alphabet + 2, dtype=torch.long)
    for i, (t, _) in enumerate(batches):
        tokens[i, :, : t.shape[1]] = t
    lengths = torch.stack([n for _, n in batches])
    with torch.no_grad():
        logits = ens(tokens, lengths)
        for i, config in enumerate(configs):
            alone = Recognizer(config, alphabet, seed=i)(tokens[i], lengths[i])
            torch.testing.assert_close(logits[i], alone, rtol=1e-5, atol=1e-6)
