"""Formulas compiled into transformers with exact hand-set weights (docs/theory.md §4, §6, §7).

Modules: `build` (`construct`, `construct_language`: weights from a plan), `constructed`
(`ConstructedModel`, `HeadRole`: the model and its report, saved and loaded), `plan`
(subformulas → layers, heads and feed-forward rounding; its data in `plan_data`), `layout`
(the layout a formula needs), `logic` (formula normal forms the planner reads), `sparse` (the
layouts, and the check of a rewriting against the DFA) and `sparse_rewrite` (dilated and block
layouts: formulas rewritten into their heads), `periodic` (MOD through periodic RoPE), `nodes`
(the internal formula nodes of those rewritings), `mixer` and `mixer_plan` (selective-mixer
recognizers; the plan's data in `mixer_data`), `diagonal` (time-invariant S4D recognizers of
LTL[P,Y], §16.5), `laid` (those laid on a hybrid's mixer rows, §16.4). A constructed model is
checked against its DFA by `expressivity.extraction.agreement`, which works for any
`Recognizer`.
"""

from expressivity.models.construct.build import (
    DEFAULT_SHARPNESS,
    construct,
    construct_language,
    lay_on,
)
from expressivity.models.construct.constructed import ConstructedModel, HeadRole, load_constructed

__all__ = [
    "DEFAULT_SHARPNESS",
    "ConstructedModel",
    "HeadRole",
    "construct",
    "construct_language",
    "lay_on",
    "load_constructed",
]
