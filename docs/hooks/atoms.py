"""MkDocs hook: the guide's page of every atom and its mask, generated from the atom registry.

``guide/atoms.md`` is `expressivity.models.atom_gallery.atom_gallery` at build time, so an atom
added as one file under ``expressivity/layouts/atoms/`` appears here with its mask, and no mask
on the page is typed by hand.
"""

from __future__ import annotations

from typing import Any

from mkdocs.structure.files import File, Files

from expressivity.models.atom_gallery import GALLERY_PAGE, atom_gallery

PAGE = GALLERY_PAGE


def on_files(files: Files, config: Any) -> Files:
    """Add the generated page (nothing under ``docs/`` is written)."""
    files.append(File.generated(config, PAGE, content=atom_gallery()))
    return files
