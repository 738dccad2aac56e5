"""The certificate probe: where does a run that beat a "no" err? On the certificate's words.

A cell "learned beyond the prediction" has a run right on every test string, adversarial pair
and short word, while the theory certifies that no model of its layout recognizes the language
at every length (docs/theory.md §3, §5). The certificate is a failed identity: a pair of words
u·lhs·v, u·rhs·v, exactly one in L, that stays unseparated when every ω is replaced by a large
valid exponent k (`algebra.witnesses.IdentityWitness.pumped`). `probe` runs a decision function
on those pairs for k = 1, 2, ... up to a length bound and returns the first pair it decides
wrongly; `probe_store` does so for every such run of a results store, from its checkpoints
(which stay beside the store, `<db stem>.runs/`, and are not committed).

`python -m expressivity.analysis.certificate_probe STORE --figures DIR --out FILE` writes the
table as Markdown with the command and the store's runs digest (the committed file is
generated, never typed). Limits: `MAX_LENGTH` letters per word, `MAX_PAIRS` pairs per run.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from expressivity.alphabet import Alphabet
from expressivity.automata.dfa import DFA
from expressivity.errors import StoreError
from expressivity.models.transformer import Recognizer
from expressivity.sweeps.cells import run_cell

__all__ = ["MAX_LENGTH", "MAX_PAIRS", "Probe", "probe", "probe_store"]

#: The longest probed word (letters): long enough to pass the test lengths of every profile.
MAX_LENGTH = 2_000
#: The most pumped pairs one run is probed on: enough for a periodic family of period 2 to
#: reach `MAX_LENGTH` (its pairs grow by one period per exponent); 64 stopped DYCK-(1,1)'s
#: probe at 129 letters, below the test lengths.
MAX_PAIRS = 1_000

Word = tuple[str, ...]


@dataclass(frozen=True)
class Probe:
    """The first pumped pair a run decides wrongly (``exponent`` None: none, up to ``longest``)."""

    exponent: int | None
    lengths: tuple[int, int] | None  # of the pair's two words
    wrong: str  # which word was decided wrongly: "member", "non-member", "both", or ""
    pairs: int  # pairs checked
    longest: int  # longest word checked


def probe(decide: Callable[[Sequence[Word]], Sequence[bool]], dfa: DFA, witness: object,
          *, max_length: int = MAX_LENGTH, max_pairs: int = MAX_PAIRS) -> Probe:
    """Run ``decide`` (words → accept decisions) on ``witness``'s pumped pairs, exponent by
    exponent, until it errs, a word would exceed ``max_length`` or ``max_pairs`` were checked."""
    pumped = getattr(witness, "pumped", None)
    if pumped is None:
        raise TypeError(f"{type(witness).__name__} has no pumped pairs (an IdentityWitness does)")
    seen: set[tuple[Word, Word]] = set()
    longest, k = 0, 0
    while len(seen) < max_pairs:
        k += 1
        pair = pumped(dfa, k)
        if max(map(len, pair)) > max_length:
            break
        if pair in seen:
            continue
        seen.add(pair)
        longest = max(longest, *map(len, pair))
        truth = [dfa.accepts(w) for w in pair]
        got = [bool(x) for x in decide(list(pair))]
        if got != truth:
            bad = [g != t for g, t in zip(got, truth, strict=True)]
            kind = "both" if all(bad) else ("member" if truth[bad.index(True)] else "non-member")
            return Probe(k, (len(pair[0]), len(pair[1])), kind, len(seen), longest)
    return Probe(None, None, "", len(seen), longest)


def _decider(model: Recognizer, alphabet: Alphabet) -> Callable[[Sequence[Word]], Sequence[bool]]:
    from expressivity.extraction.agreement import decide

    def run(words: Sequence[Word]) -> Sequence[bool]:
        lengths = np.array([len(w) for w in words], dtype=np.int64)
        codes = np.zeros((len(words), max(1, int(lengths.max()))), dtype=np.int64)
        for i, w in enumerate(words):
            codes[i, :len(w)] = alphabet.encode(w)
        return list(decide(model, codes, lengths))

    return run


def _certificate(witness: object) -> str:
    """A certificate in a few words: a failed identity, or a periodic family's pair."""
    identity = getattr(witness, "identity", None)
    if identity is not None:
        return str(identity)
    words = getattr(witness, "words", None)
    if words is not None:
        return " / ".join("".join(w) or "ε" for w in words) + " (periodic family)"
    return type(witness).__name__


def probe_store(db: str, comparison: pd.DataFrame) -> pd.DataFrame:
    """One row per recognized run of ``db`` in every cell of ``comparison`` (a generated
    ``tables/predicted_vs_observed.csv``) learned beyond its unbounded "no": the certificate's
    identity and the first pumped pair the run decides wrongly (`Probe`)."""
    from expressivity.algebra.classify import classify
    from expressivity.analysis.layout_theory import theory_layout
    from expressivity.extraction.runs import load_run
    from expressivity.resolve import resolve
    from expressivity.sweeps.store import ResultsStore
    from expressivity.training.spec import RunSpec

    with ResultsStore(db, create=False) as store:
        runs = store.runs()
    runs = runs[runs["recognized"].fillna(False).astype(bool)]
    labels = [run_cell(RunSpec.from_dict(json.loads(str(x)))) for x in runs["spec"]]
    runs = runs.assign(cell=labels)
    beyond = comparison[(comparison["verdict"].astype(str) == "learned beyond the prediction")
                        & (comparison["predicted"].astype(str) == "no")]
    rows = []
    for cell in beyond.itertuples():
        alphabet = "" if pd.isna(cell.alphabet) else str(cell.alphabet)
        source = resolve(str(cell.language), alphabet or None)
        theory = theory_layout(str(cell.layout)) or str(cell.layout)
        verdict = classify(source.dfa, layouts=[theory]).recognizer(theory)
        if not hasattr(verdict.witness, "pumped"):  # e.g. a same-type pair: nothing to pump
            rows.append({"language": cell.language, "cell": cell.layout,
                         "certificate": type(verdict.witness).__name__, "wrong on": "not probed"})
            continue
        for run in runs[(runs["language"] == cell.language)
                        & (runs["cell"] == cell.layout)].itertuples():
            model = load_run(db, str(run.run_id)).model
            found = probe(_decider(model, source.alphabet), source.dfa, verdict.witness)
            rows.append({"language": cell.language, "cell": cell.layout, "run": run.run_id,
                         "seed": run.seed,
                         "certificate": _certificate(verdict.witness),
                         "first wrong exponent": found.exponent,
                         "lengths": "" if found.lengths is None else
                         f"{found.lengths[0]}, {found.lengths[1]}",
                         "wrong on": found.wrong, "pairs checked": found.pairs,
                         "longest checked": found.longest})
    return pd.DataFrame(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Write `probe_store`'s table as Markdown, with the command and the runs digest."""
    from expressivity.analysis.provenance import runs_digest, write_page
    from expressivity.sweeps.report import to_markdown
    from expressivity.sweeps.store import ResultsStore

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("store")
    parser.add_argument("--figures", required=True,
                        help="the store's figures folder (`expressivity figures STORE --out`)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    csv = Path(args.figures) / "tables" / "predicted_vs_observed.csv"
    if not csv.is_file():
        raise StoreError(f"{csv}: no such table; pass the folder that `expressivity figures "
                         f"{args.store} --out FOLDER` wrote as --figures")
    comparison = pd.read_csv(csv, dtype={"alphabet": "string"})
    table = probe_store(args.store, comparison)
    with ResultsStore(args.store, create=False) as store:
        digest = runs_digest(store.runs())
    command = (f"python -m expressivity.analysis.certificate_probe {args.store} --figures "
               f"{args.figures} --out {args.out}")
    write_page(args.out, "The certificate probe", command,
               f"the store's runs digest `{digest}` and the checkpoints beside it", [
        "Every run that passed our criterion in a cell whose layout the theory certifies "
        "cannot recognize the language, probed on the certificate's own pumped pairs "
        f"(exponents 1, 2, ..., words up to {MAX_LENGTH} letters, at most {MAX_PAIRS} pairs): "
        "the first exponent whose pair the run decides wrongly, the lengths of that pair, and "
        "which of its words was wrong.", "",
        to_markdown(table) if len(table) else "No cell was learned beyond its prediction.", "",
    ])
    print(f"{len(table)} runs probed; written to {args.out}")
    return 0


if __name__ == "__main__":
    from expressivity.errors import script_status

    raise SystemExit(script_status(main))
