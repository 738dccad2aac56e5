"""Training and evaluation: `train(spec) -> RunRecord`, profiles, checkpoints and aggregation."""

from expressivity.training.evaluate import aggregate, length_table
from expressivity.training.loop import train
from expressivity.training.profiles import PROFILES, Profile, get_profile
from expressivity.training.spec import (
    AdversarialMetric,
    LengthMetric,
    RunRecord,
    RunSpec,
    TrainConfig,
    run_grid,
    run_spec,
)

__all__ = [
    "PROFILES",
    "AdversarialMetric",
    "LengthMetric",
    "Profile",
    "RunRecord",
    "RunSpec",
    "TrainConfig",
    "aggregate",
    "get_profile",
    "length_table",
    "run_grid",
    "run_spec",
    "train",
]
