# python paper_figures/table-v9/path_check.py
# (from the repository root; needs the runs folder of the sweep)
"""Do S4D's fused (kernel up to 128 positions, recurrence beyond) and chunked paths decide alike
on trained v9 checkpoints? Random words of lengths 1..300."""

import dataclasses
import sqlite3

import numpy as np

from expressivity.checkpoint import load_checkpoint
from expressivity.models import Recognizer
from expressivity.models.config import ModelConfig
from expressivity.training.evaluate import predict

con = sqlite3.connect("file:paper_figures/table-v9/table-v9.db?mode=ro", uri=True)
rows = con.execute("select run_id, language, seed from runs where layout='s4d'").fetchall()
rng = np.random.default_rng(0)
total = diff = 0
for run_id, lang, seed in rows:
    ckpt = load_checkpoint(f"paper_figures/table-v9/table-v9.runs/{run_id}.pt")
    k = len(ckpt.config.get("alphabet", ()))
    cfg = ModelConfig.from_dict(ckpt.config["model"])
    models = {}
    for scan in ("fused", "chunked"):
        model = Recognizer(dataclasses.replace(cfg, ssm_scan=scan), k)
        model.load_state_dict(ckpt.model)
        models[scan] = model.eval()
    words = [rng.integers(0, k, size=n) for n in rng.integers(1, 301, size=400)]
    p = {s: predict(m, words, k) for s, m in models.items()}
    d = int((p["fused"] != p["chunked"]).sum())
    total += len(words)
    diff += d
    if d:
        print(lang, seed, d)
print(f"{len(rows)} s4d runs, {total} words: "
      f"{diff} decisions differ between the fused and chunked paths")
