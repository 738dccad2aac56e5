"""`extract` on SSM and hybrid models: constructed ones give their target, trained ones load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from expressivity.automata.ops import minimize
from expressivity.extraction import extract
from expressivity.extraction.agreement import all_words, decide
from expressivity.models.construct import construct_language


@pytest.mark.parametrize(("text", "alphabet", "layout"), [
    ("PARITY", None, "mamba-signed"),
    ("DYCK-(1,1)", None, "mamba"),
    ("mod(2,1) & Y a", "a,b", "MS,L1"),
])
def test_a_constructed_ssm_model_is_extracted_as_its_target(text: str, alphabet: str | None,
                                                            layout: str) -> None:
    cm, source = construct_language(text, alphabet, layout)
    result = extract(cm.model, source.dfa, length_bound=24, classify_result=False)
    assert result.complete and result.equals_target, result.summary()
    assert result.dfa == minimize(source.dfa)


def test_a_trained_ssm_hybrid_checkpoint_is_extracted(tmp_path: Path) -> None:
    """A tiny-profile run with M and 1-local heads: whatever it learned, the extraction's DFA
    (complete or the last hypothesis) is a DFA over the run's alphabet, and a complete one
    answers like the model on every short word."""
    from expressivity.extraction.runs import StoredRun
    from expressivity.training.loop import train
    from expressivity.training.spec import run_spec

    spec = run_spec("SUFFIX-a", "M,L1", "tiny")
    record = train(spec, out_dir=tmp_path, quiet=True)
    assert record.checkpoint
    run = StoredRun(spec.run_id, spec, Path(record.checkpoint))
    assert any(b.attn.mixers for b in run.model.blocks)
    result = extract(run.model, run.source.dfa, length_bound=12, classify_result=False,
                     max_states=20)
    assert result.dfa.alphabet == run.source.alphabet
    if result.complete:
        codes, lengths = all_words(len(run.source.alphabet), 5)
        assert np.array_equal(decide(run.model, codes, lengths),
                              result.dfa.accepts_codes(codes, lengths))
