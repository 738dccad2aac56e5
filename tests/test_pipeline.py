"""`expressivity.pipeline`: the stages composed by hand, by `run`, and by `training.train`."""

from __future__ import annotations

import expressivity
from expressivity import pipeline
from expressivity.automata.ops import equivalent
from expressivity.training import RunRecord, run_spec, train


def _metrics(r: RunRecord) -> tuple[object, ...]:
    return (r.status, r.steps, r.lengths, r.adversarial, r.train_accuracy, r.val_accuracy,
            r.n_parameters, r.max_train_length, r.extra["accuracy"], r.extra["history"],
            r.extra["dataset_hash"], r.extra["class_balance"])


def test_run_gives_the_same_record_as_training_train() -> None:
    spec = run_spec("SUFFIX-a", "local-1", "tiny", steps=30, patience=0)
    expected = train(spec, quiet=True)
    result = pipeline.run(spec)
    assert expected.status == "completed", expected.error
    assert result.record.run_id == expected.run_id and result.record.spec == spec
    assert _metrics(result.record) == _metrics(expected)
    assert result.classification is not None
    assert result.classification.recognizer("local-1").status == "yes"  # Σ*a: the last letter


def test_the_stages_compose_by_hand() -> None:
    spec = run_spec("SUFFIX-a", "local-1", "tiny", steps=20, patience=0)
    source = pipeline.language("SUFFIX-a")
    formula = pipeline.parse("Y a", source.alphabet)  # the last letter is a
    assert equivalent(pipeline.compile(formula, source.alphabet), source.dfa)
    from expressivity.training.prepare import check_spec

    _, model, data = check_spec(spec)
    splits = pipeline.make_splits(source.dfa, data, 0, name=source.name)
    fitted = pipeline.train(splits, model, spec.train, 0, source=source)
    record = pipeline.evaluate(fitted)
    # the default identity differs from `spec` (no profile overrides): the metrics do not
    assert _metrics(record) == _metrics(train(spec, quiet=True))


def test_the_package_exports_the_pipeline() -> None:
    for name in ("language", "parse", "compile", "classify", "make_splits", "train", "evaluate",
                 "run", "RunSpec", "run_spec", "DFA", "Alphabet", "ModelConfig", "TrainConfig",
                 "SplitConfig"):
        assert hasattr(expressivity, name), name
    assert expressivity.train is pipeline.train
