"""What the theory says about each language: class memberships, class group and predicted layouts.

This module gathers the names of the three modules that hold them, so that
``from expressivity.analysis.classes import ...`` keeps working:

- `expressivity.analysis.class_membership`: a language's classification (cached, from
  `expressivity.algebra.classify` on its minimal DFA, docs/theory.md §3), its memberships,
  class group and smallest classes (`language_classes`), and the class diagram `DIAGRAM`;
- `expressivity.analysis.layout_theory`: the `classify` layout that predicts a cell
  (`theory_layout`), with what periodic positions and length-aware logits change;
- `expressivity.analysis.prediction_table`: the verdict per language × layout cell, also at a
  given depth (`predictions`), and its yes / no / ? table (`theory_matrix`).
"""

from __future__ import annotations

from expressivity.analysis.class_membership import (
    DIAGRAM,
    LanguageKey,
    cell_classification,
    class_group,
    classification,
    language_classes,
    smallest_classes,
)
from expressivity.analysis.layout_theory import theory_layout
from expressivity.analysis.prediction_table import (
    DEPTH_STATES,
    THEORY_MARKS,
    predictions,
    theory_matrix,
)

__all__ = [
    "DEPTH_STATES",
    "DIAGRAM",
    "THEORY_MARKS",
    "LanguageKey",
    "cell_classification",
    "class_group",
    "classification",
    "language_classes",
    "predictions",
    "smallest_classes",
    "theory_layout",
    "theory_matrix",
]
