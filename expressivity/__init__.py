"""expressivity: which attention pattern can recognize which formal language?

The public API a researcher uses from Python (imported on first use, so that ``import
expressivity`` stays cheap)::

    import expressivity as ex

    source = ex.language("LT-2")                        # catalogue name, formula or regex
    verdicts = ex.classify(source.dfa)                  # classes and predicted attention layouts
    record = ex.run(ex.run_spec("LT-2", "local-2", "tiny")).record   # splits, training, metrics

The stages (`parse`, `compile`, `classify`, `make_splits`, `train`, `evaluate`) are those of
`expressivity.pipeline`; see its docstring for the flow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from expressivity._version import __version__
from expressivity.lazy import lazy_getattr

if TYPE_CHECKING:
    from expressivity.algebra.classification import Classification
    from expressivity.alphabet import Alphabet
    from expressivity.automata.dfa import DFA
    from expressivity.catalogue import Language, get_language, load_catalogue
    from expressivity.data.split_config import SplitConfig
    from expressivity.data.splits import DatasetSplits
    from expressivity.logic.syntax import Formula
    from expressivity.models.config import ModelConfig
    from expressivity.pipeline import (
        Result,
        classify,
        compile,
        evaluate,
        language,
        make_splits,
        parse,
        run,
        train,
    )
    from expressivity.resolve import Source
    from expressivity.sweeps.grid import SweepSpec
    from expressivity.sweeps.spec import load_sweep
    from expressivity.sweeps.store import ResultsStore
    from expressivity.training.spec import RunRecord, RunSpec, TrainConfig, run_spec

_HOMES = {
    "Classification": "algebra.classification",
    "Alphabet": "alphabet",
    "DFA": "automata.dfa",
    "Language": "catalogue",
    "get_language": "catalogue",
    "load_catalogue": "catalogue",
    "DatasetSplits": "data.splits",
    "SplitConfig": "data.split_config",
    "Formula": "logic.syntax",
    "ModelConfig": "models.config",
    "Result": "pipeline",
    "classify": "pipeline",
    "compile": "pipeline",
    "evaluate": "pipeline",
    "language": "pipeline",
    "make_splits": "pipeline",
    "parse": "pipeline",
    "run": "pipeline",
    "train": "pipeline",
    "Source": "resolve",
    "SweepSpec": "sweeps.grid",
    "load_sweep": "sweeps.spec",
    "ResultsStore": "sweeps.store",
    "RunRecord": "training.spec",
    "RunSpec": "training.spec",
    "TrainConfig": "training.spec",
    "run_spec": "training.spec",
}

__all__ = [
    "DFA",
    "Alphabet",
    "Classification",
    "DatasetSplits",
    "Formula",
    "Language",
    "ModelConfig",
    "Result",
    "ResultsStore",
    "RunRecord",
    "RunSpec",
    "Source",
    "SplitConfig",
    "SweepSpec",
    "TrainConfig",
    "__version__",
    "classify",
    "compile",
    "evaluate",
    "get_language",
    "language",
    "load_catalogue",
    "load_sweep",
    "make_splits",
    "parse",
    "run",
    "run_spec",
    "train",
]


__getattr__ = lazy_getattr(__name__, _HOMES, cache=globals())


def __dir__() -> list[str]:
    return sorted(__all__)
