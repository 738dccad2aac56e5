"""Cells rerun with a changed spec: each cell of a rerun store beside the same cell of its base.

A rerun store holds some cells of a base store trained again with a few settings changed (say
``data.length_distribution``). `spec_changes` finds those settings from the runs themselves:
it pairs each rerun run with the base run of the same language, layout, positional encoding,
readout and seed and diffs the settings the two used (profile defaults filled in), so the
table names what changed instead of trusting a comment. `rerun_table` gives, per rerun cell
(its base cell: the same language, layout, encoding and readout): the theory's verdict
(`store_report.build_report` of the rerun store), and in each store the runs, how many our
criterion recognizes (every test string, adversarial pair and short word), how many are
perfect on the test set (the papers'), the best short-word and adversarial accuracies, and
the short words some run got wrong.
``python -m expressivity.analysis.rerun BASE RERUN --out FILE`` writes it as Markdown with
both stores' runs digests.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from expressivity.errors import StoreError

__all__ = ["MAX_SHORT_ERRORS", "cell_runs", "effective_spec", "flat_spec", "main",
           "proven_yes_pairing", "rerun_table", "spec_changes", "stored_runs"]


def flat_spec(spec: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """A run spec as dotted keys ("data.length_distribution"), lists kept as tuples."""
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if isinstance(value, Mapping):
            out.update(flat_spec(value, f"{prefix}{key}."))
        else:
            out[f"{prefix}{key}"] = tuple(value) if isinstance(value, list) else value
    return out


def effective_spec(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A stored run spec with its profile's model, data and training settings filled in (a
    spec keeps only what its sweep set, and a run stored before a training field existed lacks
    it: the field's value then is the one its code behaved as, the profile's), flattened
    (`flat_spec`): what the run actually used."""
    from expressivity.config import to_plain
    from expressivity.training.profiles import get_profile

    profile = get_profile(str(spec["profile"]))
    full = dict(spec)
    full["model"] = to_plain(profile.model_config(str(spec["layout"]), spec.get("model") or {}))
    full["data"] = to_plain(profile.split_config(spec.get("data") or {}))
    full["train"] = {**to_plain(profile.train), **(spec.get("train") or {})}
    return flat_spec(full)


def _labelled(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with each run's ``cell`` label (`sweeps.cells.row_cell`) and ``match``: what
    pairs a rerun's cell with its base cell, the language, layout, positional encoding and
    readout (a rerun may change the rest, its length-aware scaling or depth, say). Frames
    already labelled are returned as they are."""
    from expressivity.sweeps.cells import row_cell

    if "match" in runs.columns:
        return runs
    cells = [row_cell(row) for row in runs[["layout", "profile", "spec"]].to_dict("records")]
    return runs.assign(
        cell=[c.label for c in cells],
        match=[json.dumps([language, c.layout, c.encoding, c.readout])
               for language, c in zip(runs["language"], cells, strict=True)])


def _pairs(base: pd.DataFrame, rerun: pd.DataFrame) -> Iterator[tuple[dict[str, Any],
                                                                      dict[str, Any]]]:
    index = {(row["match"], row["seed"]): row for row in base.to_dict("records")}
    for row in rerun.to_dict("records"):
        match = index.get((row["match"], row["seed"]))
        if match is not None:
            yield effective_spec(json.loads(match["spec"])), effective_spec(json.loads(row["spec"]))


def spec_changes(base: pd.DataFrame, rerun: pd.DataFrame) -> dict[str, tuple[str, str]]:
    """Setting -> (base values, rerun values) over the run pairs of the two stores (same
    language, layout, positional encoding, readout and seed), for every setting that differs
    in some pair, compared as the runs used them (`effective_spec`). Run ids and labels are
    left out (they change with any setting)."""
    seen: dict[str, tuple[set[str], set[str]]] = {}
    for old, new in _pairs(_labelled(base), _labelled(rerun)):
        for key in sorted(set(old) | set(new)):
            if key in ("run_id", "label") or old.get(key) == new.get(key):
                continue
            a, b = seen.setdefault(key, (set(), set()))
            a.add(str(old.get(key, "(default)")))
            b.add(str(new.get(key, "(default)")))
    return {key: (", ".join(sorted(a)), ", ".join(sorted(b))) for key, (a, b) in seen.items()}


#: Most distinct wrong short words a cell lists (the store keeps each run's whole list).
MAX_SHORT_ERRORS = 4


def _short(extra: str) -> tuple[float | None, list[str]]:
    words = json.loads(extra).get("short_words")
    if not words or not words.get("n"):
        return None, []
    return words["correct"] / words["n"], [w or "ε" for w in words.get("errors", [])]


def cell_runs(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (language, cell) of completed runs (cells labelled as `_labelled` does unless
    ``runs`` has a ``cell`` column): runs, recognized (ours), perfect on test (the papers'),
    best short-word and adversarial accuracy, and the distinct short words some run got wrong
    (the first `MAX_SHORT_ERRORS`, ε for the empty word)."""
    done = runs[runs["status"] == "completed"]
    if "cell" not in done.columns:
        done = _labelled(done)
    rows = []
    for (language, label), cell in done.groupby(["language", "cell"], sort=False):
        shorts = [_short(e) for e in cell["extra"]]
        accuracies = [a for a, _ in shorts if a is not None]
        wrong = list(dict.fromkeys(w for _, errors in shorts for w in errors))
        listed = ", ".join(f"`{w}`" for w in wrong[:MAX_SHORT_ERRORS])
        more = len(wrong) - MAX_SHORT_ERRORS
        rows.append({
            "language": language, "cell": label, "runs": len(cell),
            "recognized": int(cell["recognized"].astype(bool).sum()),
            "perfect on test": int((cell["test_accuracy"] >= 1.0).sum()),
            "best short": max(accuracies) if accuracies else float("nan"),
            "best adversarial": float(cell["adversarial_accuracy"].max()),
            "short words wrong": listed + (f" (+{more})" if more > 0 else ""),
        })
    return pd.DataFrame(rows, columns=["language", "cell", "runs", "recognized",
                                       "perfect on test", "best short", "best adversarial",
                                       "short words wrong"])


def rerun_table(base: pd.DataFrame, rerun: pd.DataFrame,
                verdicts: pd.DataFrame | None = None, *, same_seeds: bool = False
                ) -> pd.DataFrame:
    """One row per cell of ``rerun``: the numbers of its base runs (the base store's runs of
    the same language, layout, positional encoding and readout; with ``same_seeds`` only those
    of the seeds the rerun cell has, so a one-seed lever meets the same seed), then its own
    (`cell_runs`); ``verdicts`` (language, cell, predicted), when given, adds the theory's
    verdict. A cell the base store lacks has empty base columns."""
    old, new = _labelled(base), _labelled(rerun)
    targets = new.groupby("match")["cell"].agg(lambda cells: sorted(set(cells)))
    old = old[old["match"].isin(targets.index)]
    if same_seeds:
        keys = set(zip(new["match"], new["seed"], strict=True))
        old = old[[k in keys for k in zip(old["match"], old["seed"], strict=True)]]
    old = old.assign(cell=old["match"].map(targets)).explode("cell")
    after = cell_runs(new)
    table = after[["language", "cell"]].merge(cell_runs(old), on=["language", "cell"],
                                              how="left").merge(
        after, on=["language", "cell"], suffixes=(" (base)", " (rerun)"))
    if verdicts is not None:
        table = table.merge(verdicts, on=["language", "cell"], how="left")
        table = table[["language", "cell", "predicted",
                       *[c for c in table.columns if c.endswith(("(base)", "(rerun)"))]]]
    return table


def proven_yes_pairing(table: pd.DataFrame) -> str:
    """The proven-yes cells of a `rerun_table` with a verdict, paired: learned (ours) in both
    stores, in the base only, in the rerun only, in neither, and the exact McNemar p of the
    discordant split (`lever_pairing.mcnemar_exact`); empty without such cells."""
    from expressivity.analysis.lever_pairing import mcnemar_exact

    if "predicted" not in table.columns:
        return ""
    yes = table[table["predicted"] == "yes"]
    if yes.empty:
        return ""
    old = yes["recognized (base)"].fillna(0) > 0
    new = yes["recognized (rerun)"].fillna(0) > 0
    both, only_old = int((old & new).sum()), int((old & ~new).sum())
    only_new, neither = int((~old & new).sum()), int((~old & ~new).sum())
    return (f" **Proven-yes cells ({len(yes)}): learned in both {both}, in the base only "
            f"{only_old}, rerun only {only_new}, in neither {neither} (exact McNemar p = "
            f"{mcnemar_exact(only_old, only_new):.3g}).**")


def _verdicts(db: str) -> pd.DataFrame:
    """(language, cell, predicted) for every cell of the store ``db``."""
    from expressivity.analysis.store_report import build_report

    comparison = build_report(db).comparison.rename(columns={"layout": "cell"})
    return comparison[["language", "cell", "predicted"]]


def stored_runs(db: str) -> pd.DataFrame:
    """The runs of the results store ``db`` as stored (`ResultsStore.runs`); a missing file is
    a `StoreError` naming it and the fix (one `error:` line, status 2, from the scripts)."""
    from expressivity.sweeps.store import ResultsStore

    if not Path(db).is_file():
        raise StoreError(f"{db}: no such results store; pass a store that "
                         "`expressivity sweep` wrote")
    with ResultsStore(db, create=False) as store:
        return store.runs()


def main(argv: Sequence[str] | None = None) -> int:
    """Write `rerun_table` and `spec_changes` as Markdown, with the command and both digests."""
    from expressivity.analysis.provenance import runs_digest, write_page
    from expressivity.sweeps.report import to_markdown

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("rerun")
    parser.add_argument("--out", required=True)
    parser.add_argument("--same-seeds", action="store_true",
                        help="compare each rerun cell with the base runs of its own seeds only")
    args = parser.parse_args(argv)
    base, rerun = (_labelled(stored_runs(db)) for db in (args.base, args.rerun))  # once
    if rerun.empty:
        raise StoreError(f"{args.rerun}: no runs; run `expressivity sweep` first")
    changes = spec_changes(base, rerun)
    table = rerun_table(base, rerun, _verdicts(args.rerun), same_seeds=args.same_seeds)
    changed = "; ".join(f"`{k}`: {a} → {b}" for k, (a, b) in changes.items()) or "none"
    cells = len(table)
    learned = [int((table[f"recognized ({s})"].fillna(0) > 0).sum()) for s in ("base", "rerun")]
    flag = " --same-seeds" if args.same_seeds else ""
    command = (f"python -m expressivity.analysis.rerun {args.base} {args.rerun} --out "
               f"{args.out}{flag}")
    write_page(args.out, "Cells rerun with a changed spec", command,
               f"the runs digests `{runs_digest(base)}` (base) and `{runs_digest(rerun)}` "
               "(rerun)", [
        f"Settings that differ between matched runs (same language, layout, seed): {changed}.",
        *(["", "The base columns count the base runs of the rerun cell's own seeds only "
           "(`--same-seeds`)."] if args.same_seeds else []),
        "",
        f"**Cells recognized by our criterion: {learned[0]}/{cells} in the base store, "
        f"{learned[1]}/{cells} rerun.**{proven_yes_pairing(table)} Per cell "
        "(`expressivity.analysis.rerun`): runs, runs "
        "recognized (every test string, adversarial pair and short word), runs perfect on the "
        "test set (the papers' criterion), the best short-word and adversarial accuracy, and the "
        "short words some run got wrong; "
        "`predicted` is the theory's verdict for the cell (unbounded depth).", "",
        to_markdown(table), "",
    ])
    print(f"{cells} cells: recognized {learned[0]} in the base store, {learned[1]} rerun; "
          f"written to {args.out}")
    return 0


if __name__ == "__main__":
    from expressivity.errors import script_status

    raise SystemExit(script_status(main))
