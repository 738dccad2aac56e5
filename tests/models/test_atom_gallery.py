"""The guide's page of atoms: every registered kind, its example spelling and its mask."""

from __future__ import annotations

from expressivity.layouts import KINDS, parse_spelling
from expressivity.layouts.mixer import is_mixer
from expressivity.models.atom_gallery import GALLERY_TOKENS, atom_gallery, example_spelling
from expressivity.models.mask_view import layout_masks, mask_grid


def test_every_registered_kind_is_shown_with_the_mask_the_model_attends_with() -> None:
    page = atom_gallery()
    for kind in KINDS.values():
        spelling = example_spelling(kind)
        parse_spelling(spelling)  # a valid spelling of its kind
        assert f"## `{kind.spelling}`: {kind.meaning}" in page
        if is_mixer(kind):
            assert f"`{spelling}` is a state-space mixer" in page
        else:
            (view,) = layout_masks(spelling, GALLERY_TOKENS, n_layers=1, n_heads=1)
            assert f"`{spelling}`:\n\n```text\n{mask_grid(view.mask)}\n```" in page


def test_the_second_sources_window_of_size_two_is_on_the_page() -> None:
    # W1: each token sees itself and its two neighbours (the survey's first example mask)
    page = atom_gallery(5)
    section = page[page.index("`W1`:"):]
    assert "\nw2    0   1   1   1   0\n" in section[:section.index("```\n\n")]
