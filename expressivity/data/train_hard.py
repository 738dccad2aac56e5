"""Hard examples for training: edit-distance-1 pairs and adversarial-family pairs at train lengths.

A training lever (issue 34), off by default. ``SplitConfig.train_hard_pairs`` adds up to that
many edit-distance-1 negatives: for a member drawn uniformly at a length drawn like the
training set's, a non-member one edit away (`negatives.hard_negative`; the member is added
too unless train holds it already); where too few members of a length have such a neighbour
(LT-1's need exactly one ``a``), the rest are anchored at uniform non-members as the held-out
hard pairs are (`adversarial.nonmember_anchored_pairs`; until issue 36 they were not, and
the lever found 30 of 256 pairs for LT-1); ``train_adversarial_pairs`` adds up to that many [LC25]
pairs and, per window of ``lc26_windows``, [LC26] pairs, with both words' lengths in
``train_lengths``. They join the train split *before* any held-out split is drawn, so every
held-out split excludes them (held-out splits exclude every train word); and since the
held-out adversarial pairs are drawn at ``adversarial_lengths`` (41..500 by default) and the
equal-type pairs avoid train words, no held-out pair is trained on. Words already in train are
not added again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from expressivity.data.adversarial import nonmember_anchored_pairs
from expressivity.data.dataset import Dataset, DatasetProvenance
from expressivity.data.heldout import Columns, Keys, Sources, seen
from expressivity.data.negatives import hard_negative
from expressivity.data.pairs import AdversarialPair, lc25_pairs, lc26_pairs
from expressivity.data.sampling import code_dtype, sample_lengths, within_class

if TYPE_CHECKING:
    from expressivity.data.split_config import SplitConfig

__all__ = ["hard_training_set"]


def _remember(keys: Keys, word: np.ndarray, label: bool) -> None:
    keys.setdefault((word.size, label), set()).add(word.tobytes())


def _add_pair(cols: Columns, keys: Keys, member: np.ndarray, nonmember: np.ndarray,
              dtype: type[np.signedinteger]) -> None:
    """Add a hard pair to train: the member unless train holds it, the non-member as "hard"."""
    if not seen(keys, member, True, dtype):
        cols.add([member], True, "positive")
        _remember(keys, member, True)
    cols.add([nonmember], False, "hard", edits=1, distance=1)
    _remember(keys, nonmember, False)


def hard_training_set(
    src: Sources, config: SplitConfig, provenance: DatasetProvenance, train_keys: Keys,
    rng: np.random.Generator,
) -> tuple[Dataset, tuple[str, ...]]:
    """The hard training examples (see the module docstring); ``train_keys`` gains their keys."""
    dfa, cols, notes = src.dfa, Columns(), []
    dtype = code_dtype(dfa.n_symbols)
    lo, hi = config.train_lengths
    span = range(lo, hi + 1)
    found = anchored = 0
    if config.train_hard_pairs and any(src.positives.count(n) for n in span):
        lengths = sample_lengths(src.positives, span, config.train_hard_pairs, rng,
                                 within_class(config.length_distribution))
        for n, count in zip(span, np.bincount(lengths - lo, minlength=len(span)).tolist(),
                            strict=True):
            if not count:
                continue
            here = 0
            for w in src.positives.sample(n, 4 * count, rng):
                h = hard_negative(dfa, w, rng, config.hard_edits)  # type: ignore[arg-type]
                if h is None or seen(train_keys, h, False, dtype):
                    continue
                _add_pair(cols, train_keys, w.astype(dtype), h.astype(dtype), dtype)
                found, here = found + 1, here + 1
                if here == count:
                    break
            # members rarely one edit from a non-member (LT-1): anchor the rest at non-members
            for member, nonmember in nonmember_anchored_pairs(src, n, count - here, config,
                                                              train_keys, rng):
                if seen(train_keys, member, True, dtype) or seen(train_keys, nonmember, False,
                                                                 dtype):
                    continue  # drawn twice in this length's fallback
                _add_pair(cols, train_keys, member, nonmember, dtype)
                found, anchored = found + 1, anchored + 1
        if anchored:
            notes.append(f"train hard pairs: {anchored} anchored at a uniform non-member (its "
                         "members rarely have a non-member neighbour at that length)")
        if found < config.train_hard_pairs:
            notes.append(f"train hard negatives: {found} of {config.train_hard_pairs} found")
    pairs: list[AdversarialPair] = []
    if config.train_adversarial_pairs:
        pairs = lc25_pairs(dfa, (lo, hi), config.train_adversarial_pairs)
        for k in config.lc26_windows:
            pairs += lc26_pairs(dfa, k, (lo, hi), config.train_adversarial_pairs)
    kept = 0
    for p in pairs:
        member, nonmember = p.member.astype(dtype), p.nonmember.astype(dtype)
        if seen(train_keys, member, True, dtype) or seen(train_keys, nonmember, False, dtype):
            continue
        meta = {"family": p.family, "fragment": p.fragment, "depth": p.depth}
        cols.add([member], True, "adversarial", **meta)
        cols.add([nonmember], False, "adversarial", **meta)
        _remember(train_keys, member, True)
        _remember(train_keys, nonmember, False)
        kept += 1
    if config.train_adversarial_pairs:
        notes.append(f"train adversarial pairs: {kept} (lc25 and lc26 at lengths {lo}..{hi})")
    return cols.dataset(dfa.alphabet, "train", provenance), tuple(notes)
