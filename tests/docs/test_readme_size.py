"""The README stays a front page (issue 35): at most 10 KB, exactly two Quick start commands."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"
#: The most bytes the README may have (UTF-8).
MAX_BYTES = 10 * 1024


def test_the_readme_is_at_most_10_kb() -> None:
    size = len(README.read_bytes())
    assert size <= MAX_BYTES, f"README.md: {size} bytes, over {MAX_BYTES}: move text to docs/"


def test_the_quick_start_has_exactly_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Quick start"):text.index("\n## ", text.index("## Quick start"))]
    (block,) = re.findall(r"```sh\n(.*?)```", section, flags=re.S)
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("#")]
    assert [c.split()[:2] for c in commands] == [["make", "demo"], ["make", "test"]]
