"""Which runs the plateau rule stopped while they were still improving (issue 34).

`training.loop` stops a run after ``plateau`` consecutive stale validations. Under the
original rule ("gain") a validation is stale unless it raises the best mean validation
accuracy by ``plateau_delta``, so a run that improves slowly, or whose loss still falls, is
stopped. `plateau_audit` replays every stored run's validation history (``extra["history"]``)
under the "improving" rule (`training.stopping`, the rule's one home: stale only without any
accuracy gain and without a loss below (1 − plateau_delta) × the lowest so far) and says, for
each run the old rule stopped, whether the new rule would have let it continue
(``improving_at_stop``).
"""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd

from expressivity.training.spec import RunSpec
from expressivity.training.stopping import Plateau, after_validation, perfect_validation

__all__ = ["PLATEAU_COLUMNS", "plateau_audit"]

#: Columns of `plateau_audit`.
PLATEAU_COLUMNS = ("run_id", "language", "alphabet", "layout", "seed", "steps", "recognized",
                   "improving_at_stop")


def _stale_at_end(history: list[dict[str, float]], spec: RunSpec) -> int:
    """The stale count of the "improving" rule after the last validation of ``history``."""
    cfg = replace(spec.train, plateau_rule="improving")
    plateau = Plateau()
    for h in history:
        mean = (float(h["val_short"]) + float(h["val_long"])) / 2
        perfect = perfect_validation(h)
        plateau = after_validation(cfg, plateau, mean, float(h["loss"]), perfect=perfect)
    return plateau.stale


def plateau_audit(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per completed run of a `ResultsStore.runs` frame that the plateau rule stopped
    (`PLATEAU_COLUMNS`); ``improving_at_stop``: the "improving" rule would not have stopped it
    there (its stale count was below ``plateau``)."""
    rows = []
    done = runs[runs["status"] == "completed"]
    for run in done.itertuples(index=False):
        extra = json.loads(str(run.extra) or "{}")
        if not extra.get("plateaued"):
            continue
        spec = RunSpec.from_dict(json.loads(str(run.spec)))
        stale = _stale_at_end(extra.get("history", []), spec)
        rows.append({
            "run_id": run.run_id, "language": run.language,
            "alphabet": "" if pd.isna(run.alphabet) else run.alphabet, "layout": run.layout,
            "seed": run.seed, "steps": run.steps, "recognized": bool(run.recognized),
            "improving_at_stop": stale < spec.train.plateau,
        })
    return pd.DataFrame(rows, columns=list(PLATEAU_COLUMNS))
