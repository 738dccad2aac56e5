"""Every registered atom kind with one spelling of it and its mask over a short string (docs).

The guide's page of atoms (`docs/hooks/atoms.py`) is this module's output at build time, so a
new atom file shows up in the documentation with its mask without anyone editing a page. Each
entry takes the kind's smallest "small" parameters plus one (capped at the range's top): a
spelling like ``L2``, ``D2.2`` or ``BR2.2``, shown as a 1-layer, 1-head model attends (the sink
rule applied; random atoms with mask seed 0).
"""

from __future__ import annotations

from expressivity.layouts import KINDS, AtomKind
from expressivity.layouts.mixer import is_mixer
from expressivity.models.mask_view import layout_masks, mask_grid

__all__ = ["GALLERY_PAGE", "GALLERY_TOKENS", "atom_gallery", "example_spelling"]

#: Tokens of every shown mask: BOS, five symbols, EOS.
GALLERY_TOKENS = 7
#: Where the site shows the gallery (written by `docs/hooks/atoms.py` at build time).
GALLERY_PAGE = "guide/atoms.md"


def example_spelling(kind: AtomKind) -> str:
    """One valid spelling of ``kind``: its letters and each number one above its range's low."""
    return kind.letter + ".".join(str(min(low + 1, high)) for low, high in kind.small)


def atom_gallery(tokens: int = GALLERY_TOKENS) -> str:
    """Markdown: one section per registered atom kind (registry order) with its grammar form,
    its meaning and the mask of `example_spelling` over ``tokens`` tokens as a 0/1 grid."""
    lines = ["# Every atom and its mask", "",
             "Generated from the atom registry (`expressivity.layouts.KINDS`) when the site is "
             f"built, by `expressivity.models.atom_gallery`: for each kind one spelling, and "
             f"its mask over {tokens} tokens (BOS, w1..w{tokens - 2}, EOS) as a 1-layer, "
             "1-head model attends: row = query n, column = key m, 1 = may attend, the sink "
             "rule applied (a row with no key reads BOS), random atoms with mask seed 0. "
             "`expressivity masks SPELLING --length T` prints any layout the same way; the "
             "grammar and the theory of each atom are in [layouts](layouts.md), "
             "[encoders](encoders.md) and [state-space mixers](ssm.md).", ""]
    for kind in KINDS.values():
        spelling = example_spelling(kind)
        lines += [f"## `{kind.spelling}`: {kind.meaning}", ""]
        if is_mixer(kind):  # no attention mask: a recurrence over every m <= n
            lines += [f"`{spelling}` is a state-space mixer, not an attention pattern: its "
                      "recurrence carries every position m ≤ n into row n (docs/theory.md "
                      "§14); it allows no attention key, so `expressivity masks` shows only "
                      "the sink column (BOS).", ""]
            continue
        (view,) = layout_masks(spelling, tokens, n_layers=1, n_heads=1)
        lines += [f"`{spelling}`:", "", "```text", mask_grid(view.mask), "```", ""]
    return "\n".join(lines)
