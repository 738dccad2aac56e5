# python paper_figures/ssm-patience-late/prefix_check.py (from the repository root)
"""The pilot's rule read from its store, complete or not: (c) every `patience-late` run the rule
did not stop has its `v9` twin's metrics and history exactly (a stopped run is the prefix of
the unstopped one, so an unstopped run is the same run); (a) the proven-yes cells (predictions
from the table v9's page: same models, same cells) it gains and loses against `v9`, one seed
each; (b) the certified "no" cells it beats; and the steps and training seconds of both."""
import csv
import json
import sqlite3

from expressivity.sweeps.grid import lever_runs
from expressivity.sweeps.spec import load_sweep

levers = lever_runs(load_sweep("experiments/ssm-patience-late.toml"))
con = sqlite3.connect("file:paper_figures/ssm-patience-late/ssm-patience-late.db?mode=ro", uri=True)
rows = {r[0]: r[1:] for r in con.execute(
    "select run_id, steps, test_accuracy, adversarial_accuracy, train_accuracy, val_accuracy, "
    "n_star, recognized, extra from runs where status = 'completed'")}
with open("paper_figures/table-v9/tables/predicted_vs_observed.csv", encoding="utf-8") as f:
    predicted = {(r["language"], r["layout"].split("+")[0]): r["predicted"]
                 for r in csv.DictReader(f)}
twins = {(r.language, r.layout): r.run_id for r in levers["v9"]}
same = differ = stopped = stored = 0
gained, lost, beaten = [], [], []
steps = {"v9": 0, "patience-late": 0}
seconds = {"v9": 0.0, "patience-late": 0.0}
for run in levers["patience-late"]:
    if run.run_id not in rows:
        continue
    stored += 1
    mine, twin = rows[run.run_id], rows[twins[(run.language, run.layout)]]
    a, b = json.loads(mine[-1]), json.loads(twin[-1])
    steps["patience-late"] += mine[0]
    steps["v9"] += twin[0]
    seconds["patience-late"] += a["train_seconds"]
    seconds["v9"] += b["train_seconds"]
    cell = f"{run.language} × {run.layout}"
    kind = predicted[(run.language, run.layout)]
    if kind == "yes" and mine[6] and not twin[6]:
        gained.append(cell)
    if kind == "yes" and twin[6] and not mine[6]:
        lost.append(cell)
    if kind == "no" and mine[6]:
        beaten.append(cell)
    if a["stopped_early"]:
        stopped += 1
    elif mine[:-1] == twin[:-1] and a["accuracy"] == b["accuracy"] and a["history"] == b["history"]:
        same += 1
    else:
        differ += 1
        print("differs:", cell)
print(f"{stored} of {len(levers['patience-late'])} patience-late runs stored; {stopped} stopped by "
      f"the rule; of the {same + differ} it did not stop, {same} have their v9 twin's metrics and "
      f"history exactly, {differ} do not")
print(f"proven-yes cells gained {len(gained)} ({', '.join(gained) or '-'}), lost {len(lost)} "
      f"({', '.join(lost) or '-'}); certified-no cells beaten {len(beaten)}")
if stored:
    print(f"steps: v9 {steps['v9']}, patience-late {steps['patience-late']} "
          f"({steps['v9'] / steps['patience-late']:.2f}x); training seconds: v9 "
          f"{seconds['v9']:.0f}, patience-late {seconds['patience-late']:.0f} "
          f"({seconds['v9'] / seconds['patience-late']:.2f}x; runs made under other loads)")
