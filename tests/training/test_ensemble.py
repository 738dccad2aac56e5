"""Ensemble training: members equal their single runs; failures, early stops, resume per member."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch.func import functional_call

from expressivity.checkpoint import checkpoint_path, load_checkpoint
from expressivity.errors import ConfigError
from expressivity.models.ensemble import EnsembleRecognizer
from expressivity.models.tokens import encode_batch
from expressivity.models.transformer import Recognizer
from expressivity.training import RunRecord, RunSpec, run_spec, train
from expressivity.training.ensemble import ensemble_checkpoint_path, train_ensemble
from expressivity.training.ensemble_optim import StackedAdamW, clip_per_member
from expressivity.training.ensemble_step import stack_batches
from expressivity.training.prepare import check_spec


def _spec(layout: str, **changes: object) -> RunSpec:
    return run_spec("SUFFIX-a", layout, profile="tiny", **changes)  # type: ignore[arg-type]


def _metrics(r: RunRecord) -> tuple[object, ...]:
    return (r.run_id, r.status, r.steps, r.lengths, r.adversarial, r.train_accuracy,
            r.val_accuracy, r.extra["accuracy"], [h["step"] for h in r.extra["history"]],
            r.extra["stopped_early"])


def _weights(out: Path, spec: RunSpec) -> dict[str, torch.Tensor]:
    return load_checkpoint(checkpoint_path(out, spec.run_id)).model


def _drift(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    """Relative difference ||a - b|| / ||b|| of the parameter vectors, without attention key
    biases: they shift every score of a row alike, so their exact gradient is zero and AdamW
    moves them by rounding noise alone (differently in any two summation orders)."""
    keys = [k for k in b if not k.endswith("attn.k.bias")]
    va, vb = (torch.cat([w[k].flatten() for k in keys]) for w in (a, b))
    return float((va - vb).norm() / vb.norm())


# Members differing in layout, seed, learning rate, schedule, warmup and weight decay.
MIXED = [
    _spec("global", steps=50, patience=0),
    _spec("local-1", seed=1, steps=50, patience=0, lr=3e-3, weight_decay=0.1),
    _spec("hybrid-1", seed=2, steps=50, patience=0, schedule="cosine", warmup_steps=10),
]


@pytest.fixture(scope="module")
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[RunRecord], Path]:
    out = tmp_path_factory.mktemp("ensemble")
    return train_ensemble(MIXED, out_dir=out, quiet=True), out


@pytest.fixture(scope="module")
def singles(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[RunRecord], Path]:
    out = tmp_path_factory.mktemp("singles")
    return [train(spec, out_dir=out, quiet=True) for spec in MIXED], out


def test_members_are_bitwise_their_single_runs_on_a_cpu(
    mixed: tuple[list[RunRecord], Path], singles: tuple[list[RunRecord], Path],
) -> None:
    (records, out), (alone, out_alone) = mixed, singles
    for spec, record, single in zip(MIXED, records, alone, strict=True):
        assert record.run_id == single.run_id == spec.run_id
        assert record.status == single.status == "completed"
        assert _metrics(record) == _metrics(single)
        a, b = _weights(out, spec), _weights(out_alone, spec)
        assert all(torch.equal(a[name], b[name]) for name in b), spec.layout
        assert [h["loss"] for h in record.extra["history"]] == [
            h["loss"] for h in single.extra["history"]]
        assert record.extra["ensemble"]["size"] == 3
        assert set(record.to_dict()) == set(single.to_dict())


def test_the_batched_step_drifts_from_the_single_runs_by_rounding_only(tmp_path: Path) -> None:
    # The uniform sampler: every member's batch has the tiny profile's full width, so the
    # batched and single steps round alike. With bucketed batches of different widths per
    # member the rounding differs more, and the global member (not learning at lr 1e-2)
    # amplifies it chaotically (loss equal to 1e-7 up to step 15, 4 % apart at step 50);
    # the step itself stays exact: `test_the_batched_step_is_exact_on_bucketed_batches`.
    specs = [s.with_train(batching="uniform") for s in MIXED]
    records = train_ensemble(specs, out_dir=tmp_path / "e", quiet=True, batched=True)
    alone = [train(spec, out_dir=tmp_path / "s", quiet=True) for spec in specs]
    out_alone = tmp_path / "s"
    for spec, record, single in zip(specs, records, alone, strict=True):
        assert _metrics(record) == _metrics(single)
        assert _drift(_weights(tmp_path / "e", spec), _weights(out_alone, spec)) < 1e-4
        for a, b in zip(record.extra["history"], single.extra["history"], strict=True):
            assert a["loss"] == pytest.approx(b["loss"], rel=1e-4)


def test_the_batched_step_is_exact_on_bucketed_batches() -> None:
    """Members whose bucketed batches have different widths: the batched forward and backward
    give each member its single model's logits and gradients (to float rounding)."""
    cfgs = [check_spec(s)[1] for s in MIXED]
    model = EnsembleRecognizer(cfgs, 2, [1, 2, 3])
    rng = np.random.default_rng(0)
    encoded, targets = [], []
    for top in (4, 12, 8):  # three widths
        words = [rng.integers(0, 2, size=rng.integers(1, top)) for _ in range(8)]
        encoded.append(encode_batch(words, 2))
        targets.append(torch.from_numpy(rng.random(8) < 0.5).float())
    logits = model(*stack_batches(encoded, 2))
    sum(F.binary_cross_entropy_with_logits(logits[j], targets[j]) for j in range(3)).backward()
    for j, cfg in enumerate(cfgs):
        leaves = {n: p[j].detach().clone().requires_grad_()
                  for n, p in zip(model.names, model.stacked, strict=True)}
        alone = functional_call(Recognizer(cfg, 2), leaves, encoded[j])
        assert torch.allclose(logits[j], alone, atol=1e-6)
        F.binary_cross_entropy_with_logits(alone, targets[j]).backward()
        for n, p in zip(model.names, model.stacked, strict=True):
            if leaves[n].grad is not None:
                assert p.grad is not None and torch.allclose(p.grad[j], leaves[n].grad,
                                                             atol=1e-6), n


def test_an_ensemble_of_one_is_bit_identical_to_the_single_run(tmp_path: Path) -> None:
    spec = MIXED[1]
    (alone,) = train_ensemble([spec], out_dir=tmp_path / "e", quiet=True)
    single = train(spec, out_dir=tmp_path / "s", quiet=True)
    assert _metrics(alone) == _metrics(single)
    assert alone.extra["history"] == single.extra["history"]
    w1, w2 = _weights(tmp_path / "e", spec), _weights(tmp_path / "s", spec)
    assert all(torch.equal(w1[k], w2[k]) for k in w2)


@pytest.mark.parametrize("scale", ["log-n", "ssmax"])
def test_length_aware_members_are_bitwise_their_single_runs(scale: str, tmp_path: Path) -> None:
    specs = [_spec(layout, seed=i, steps=30, patience=0, model={"attention_scale": scale})
             for i, layout in enumerate(("global", "hybrid-1"))]
    records = train_ensemble(specs, out_dir=tmp_path / "e", quiet=True)
    for spec, record in zip(specs, records, strict=True):
        single = train(spec, out_dir=tmp_path / "s", quiet=True)
        assert _metrics(record) == _metrics(single)
        assert record.short_words == single.short_words and record.short_words is not None
        w1, w2 = _weights(tmp_path / "e", spec), _weights(tmp_path / "s", spec)
        assert all(torch.equal(w1[k], w2[k]) for k in w2)
        learned = [k for k in w2 if k.endswith("length_scale")]
        assert bool(learned) == (scale == "ssmax")
        assert all(not torch.equal(w2[k], torch.ones_like(w2[k])) for k in learned)


def test_a_failing_member_never_touches_the_others(mixed: tuple[list[RunRecord], Path]) -> None:
    records, _ = mixed
    bad = _spec("local-1", seed=3, steps=50, patience=0, lr=1e30)
    out = train_ensemble([MIXED[0], bad, MIXED[1], MIXED[2]], quiet=True)
    single = train(bad, quiet=True)
    assert out[1].status == "failed" and out[1].error == single.error
    assert out[1].steps == single.steps
    for got, want in zip([out[0], *out[2:]], records, strict=True):
        assert _metrics(got) == _metrics(want)
        assert got.extra["history"] == want.extra["history"]  # bit for bit without the bad one


def test_members_stop_early_on_their_own(tmp_path: Path) -> None:
    specs = [_spec("global", steps=60), _spec("local-1", steps=60), _spec("local-1", seed=1)]
    records = train_ensemble(specs, quiet=True)
    for spec, record in zip(specs, records, strict=True):
        single = train(spec, quiet=True)
        assert _metrics(record) == _metrics(single)
    assert records[1].extra["stopped_early"] and records[1].steps < records[0].steps


def test_members_give_up_on_a_plateau_on_their_own() -> None:
    specs = [_spec("global", patience=0, plateau=2, plateau_delta=1.0),
             _spec("local-1", patience=0, steps=40)]
    records = train_ensemble(specs, quiet=True)
    for spec, record in zip(specs, records, strict=True):
        single = train(spec, quiet=True)
        assert _metrics(record) == _metrics(single)
        assert record.extra["plateaued"] == single.extra["plateaued"]
    assert records[0].extra["plateaued"] and records[0].steps == 30
    assert not records[1].extra["plateaued"] and records[1].steps == 40


def test_a_resumed_ensemble_continues_as_the_uninterrupted_one(tmp_path: Path) -> None:
    specs = [_spec("global", steps=40, patience=0), _spec("local-1", steps=60),
             _spec("hybrid-1", seed=1, steps=40, patience=0)]
    full = train_ensemble(specs, out_dir=tmp_path / "full", quiet=True)

    def stop(step: int) -> None:
        if step == 33:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_ensemble(specs, out_dir=tmp_path, quiet=True, on_step=stop)
    assert load_checkpoint(ensemble_checkpoint_path(tmp_path, specs)).step == 33
    steps: list[int] = []
    resumed = train_ensemble(specs, out_dir=tmp_path, quiet=True, on_step=steps.append)
    assert steps[0] == 34
    for a, b, spec in zip(full, resumed, specs, strict=True):
        assert _metrics(a) == _metrics(b)
        assert a.extra["history"] == b.extra["history"]
        w1, w2 = _weights(tmp_path / "full", spec), _weights(tmp_path, spec)
        assert all(torch.equal(w1[k], w2[k]) for k in w1)
    # a finished member's own checkpoint resumes as a single run: only re-evaluated
    again = train(specs[1], out_dir=tmp_path, quiet=True)
    assert _metrics(again) == _metrics(full[1])


def test_incompatible_members_are_a_config_error() -> None:
    with pytest.raises(ConfigError, match=r"model\.d_ff"):
        train_ensemble([_spec("global"), _spec("global", model={"d_ff": 64})], quiet=True)
    with pytest.raises(ConfigError, match=r"train\.batch_size"):
        train_ensemble([_spec("global"), _spec("global", batch_size=16)], quiet=True)


def test_stacked_adamw_equals_torch_adamw_per_member() -> None:
    gen = torch.Generator().manual_seed(0)
    shapes = [(3, 4), (4,)]
    members = [[torch.randn(s, generator=gen) for s in shapes] for _ in range(3)]
    lrs, decays, clips = [1e-2, 3e-3, 1e-1], [0.0, 0.1, 0.01], [1.0, 0.05, float("inf")]
    stacked = [torch.nn.Parameter(torch.stack([m[k] for m in members])) for k in range(2)]
    opt = StackedAdamW(stacked, [True, False])
    singles = [[torch.nn.Parameter(t.clone()) for t in m] for m in members]
    torch_opts = [torch.optim.AdamW([{"params": [p[0]], "weight_decay": wd},
                                     {"params": [p[1]], "weight_decay": 0.0}], lr=lr)
                  for p, lr, wd in zip(singles, lrs, decays, strict=True)]
    for _ in range(5):
        grads = [[torch.randn(s, generator=gen) for s in shapes] for _ in range(3)]
        for k, p in enumerate(stacked):
            p.grad = torch.stack([g[k] for g in grads])
        clip_per_member(stacked, torch.tensor(clips, dtype=torch.float64))
        opt.step(torch.tensor(lrs, dtype=torch.float64), torch.tensor(decays, dtype=torch.float64))
        for params, g, o, c in zip(singles, grads, torch_opts, clips, strict=True):
            for p, gk in zip(params, g, strict=True):
                p.grad = gk.clone()
            torch.nn.utils.clip_grad_norm_(params, c)
            o.step()
    for i, params in enumerate(singles):
        for k, p in enumerate(params):  # bitwise: the update follows torch's order of operations
            assert torch.equal(stacked[k][i].detach(), p.detach()), (i, k)


def test_a_member_does_not_depend_on_its_companions(tmp_path: Path) -> None:
    """Grouping is an execution detail: the same run trained beside other runs, in another
    position, in ensembles of other sizes ends with bitwise the same weights."""
    a = run_spec("LT-2", "global", profile="tiny", seed=0, steps=20, patience=0)
    b = run_spec("LT-2", "local-1", profile="tiny", seed=1, steps=20, patience=0)
    c = run_spec("SUFFIX-a", "hybrid-1", profile="tiny", seed=2, steps=20, patience=0, lr=3e-3)
    weights = []
    for k, group in enumerate(([a, b], [c, a], [b, c, a])):
        out = tmp_path / str(k)
        train_ensemble(group, out_dir=out, quiet=True)
        weights.append(load_checkpoint(checkpoint_path(out, a.run_id)).model)
    for other in weights[1:]:
        assert all(torch.equal(weights[0][name], other[name]) for name in weights[0])
