"""The adversarial split: edit-distance-1 pairs and fragment-fooling pairs, none seen in train."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from expressivity.data.dataset import Dataset, DatasetProvenance
from expressivity.data.heldout import Columns, Keys, Sources, seen
from expressivity.data.negatives import distance_to_language, hard_negative, hard_positive
from expressivity.data.pairs import AdversarialPair, equal_type_pair, lc25_pairs, lc26_pairs
from expressivity.data.sampling import code_dtype, sample_lengths, within_class
from expressivity.logic.operators import Fragment

if TYPE_CHECKING:
    from expressivity.data.split_config import SplitConfig

__all__ = ["adversarial_set", "nonmember_anchored_pairs"]


def _hard_pairs(
    src: Sources,
    n: int,
    count: int,
    config: SplitConfig,
    train_keys: Keys,
    rng: np.random.Generator,
) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """Up to ``count`` (member, non-member, anchored-at-non-member) pairs one edit apart.

    Anchored at uniform members of length ``n``; if too few of those have an unseen
    non-member neighbour, at uniform non-members of length ``n``. Neither word is in train.
    """
    dtype = code_dtype(src.dfa.n_symbols)
    ops = config.hard_edits
    out: list[tuple[np.ndarray, np.ndarray, bool]] = []
    for w in src.positives.sample(n, 4 * count + 4, rng):
        h = None if seen(train_keys, w, True, dtype) else hard_negative(src.dfa, w, rng, ops)  # type: ignore[arg-type]
        if h is not None and not seen(train_keys, h, False, dtype):
            out.append((w, h.astype(dtype), False))
            if len(out) == count:
                return out
    found = nonmember_anchored_pairs(src, n, count - len(out), config, train_keys, rng)
    return out + [(member, nonmember, True) for member, nonmember in found]


def nonmember_anchored_pairs(
    src: Sources,
    n: int,
    count: int,
    config: SplitConfig,
    train_keys: Keys,
    rng: np.random.Generator,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Up to ``count`` (member, non-member) pairs one edit apart (``config.hard_edits``),
    anchored at uniform non-members of length ``n``, neither word in train when drawn; none
    when the language has no non-member of that length. The fallback of the held-out hard
    pairs and of the hard training pairs (`data.train_hard`) for languages whose members
    rarely have a non-member neighbour (LT-1: a member needs exactly one ``a``)."""
    dtype = code_dtype(src.dfa.n_symbols)
    out: list[tuple[np.ndarray, np.ndarray]] = []
    if count <= 0 or src.negatives.count(n) == 0:
        return out
    for h in src.negatives.sample(n, 4 * count + 4, rng):
        w = (None if seen(train_keys, h, False, dtype)
             else hard_positive(src.dfa, h, rng, config.hard_edits))  # type: ignore[arg-type]
        if w is not None and not seen(train_keys, w, True, dtype):
            out.append((w.astype(dtype), h))
            if len(out) == count:
                break
    return out


def adversarial_set(
    src: Sources,
    config: SplitConfig,
    provenance: DatasetProvenance,
    train_keys: Keys,
    rng: np.random.Generator,
) -> tuple[Dataset, tuple[str, ...]]:
    """Hard (edit-distance-1) pairs, then LC25, LC26 and equal-type pairs; none seen in train."""
    dfa, cols, notes = src.dfa, Columns(), []
    dtype = code_dtype(dfa.n_symbols)
    lo, hi = config.adversarial_lengths
    pair_id = 0
    lengths = (
        sample_lengths(
            src.positives, range(lo, hi + 1), config.hard_pairs, rng,
            within_class(config.length_distribution),
        )
        if config.hard_pairs and any(src.positives.count(n) for n in range(lo, hi + 1))
        else np.empty(0, np.int64)
    )
    missing = anchored = 0
    wanted = (
        np.bincount(lengths - lo, minlength=hi - lo + 1) if lengths.size else np.zeros(0, np.int64)
    )
    for n, count in zip(range(lo, hi + 1), wanted.tolist(), strict=False):
        if not count:
            continue
        found = _hard_pairs(src, n, count, config, train_keys, rng)
        missing += count - len(found)
        for member, nonmember, from_negative in found:
            anchored += from_negative
            cols.add([member], True, "positive", pair_id=pair_id)
            cols.add([nonmember], False, "hard", edits=1, distance=1, pair_id=pair_id)
            pair_id += 1
    if anchored:
        notes.append(
            f"{anchored} hard pairs anchored at a uniform non-member (its members rarely have a "
            "non-member neighbour at that length)"
        )
    if missing:
        notes.append(f"{missing} hard pairs not found (no unseen member/non-member one edit apart)")
    pairs: list[AdversarialPair] = lc25_pairs(dfa, (lo, hi), config.adversarial_per_family)
    if not pairs:
        notes.append(
            "lc25: no pair (the language is R-trivial, i.e. in LTL[P], or lengths too short)"
        )
    for k in config.lc26_windows:
        periodic = lc26_pairs(dfa, k, (lo, hi), config.adversarial_per_family)
        if not periodic:
            notes.append(
                f"lc26: no (a b^{k - 1})^r a / (a b^{k - 1})^r pair is separated by the language"
            )
        pairs.extend(periodic)
    for text in config.type_fragments:
        frag = Fragment.parse(text)
        pair = equal_type_pair(
            dfa,
            frag,
            config.type_depth,
            max_len=config.type_max_len,
            max_nodes=config.type_max_nodes,
            avoid=lambda w, label: seen(train_keys, np.asarray(w), label, dtype),
        )
        if pair is None:
            notes.append(
                f"type: no unseen {frag} depth-{config.type_depth} pair"
                f" up to length {config.type_max_len}"
            )
        else:
            pairs.append(pair)
    for p in pairs:
        if seen(train_keys, p.member, True, dtype) or seen(train_keys, p.nonmember, False, dtype):
            notes.append(f"{p.family} {p.fragment} depth {p.depth}: dropped (a word is in train)")
            continue
        meta = {"pair_id": pair_id, "family": p.family, "fragment": p.fragment, "depth": p.depth}
        dist = distance_to_language(dfa, p.nonmember) if config.distance_for != "none" else -1
        cols.add([p.member.astype(dtype)], True, "adversarial", **meta)
        cols.add([p.nonmember.astype(dtype)], False, "adversarial", distance=dist, **meta)
        pair_id += 1
    return cols.dataset(dfa.alphabet, "adversarial", provenance), tuple(notes)
