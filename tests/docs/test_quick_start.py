"""The README's Quick start has exactly two commands (its size: tests/docs/test_site.py)."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_quick_start_has_exactly_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quick start"):text.index("\n## ", text.index("## Quick start"))]
    (block,) = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert [c.split()[:2] for c in commands] == [["make", "demo"], ["make", "test"]]
