"""Exact, reproducible data: uniform members and non-members, hard and adversarial pairs, splits."""

from expressivity.data.dataset import COLUMNS, KINDS, Dataset, DatasetProvenance
from expressivity.data.sampling import WordSampler, sample_distinct, sample_lengths
from expressivity.data.splits import SPLITS, DatasetSplits, SplitConfig, make_splits

__all__ = [
    "COLUMNS",
    "KINDS",
    "SPLITS",
    "Dataset",
    "DatasetProvenance",
    "DatasetSplits",
    "SplitConfig",
    "WordSampler",
    "make_splits",
    "sample_distinct",
    "sample_lengths",
]
