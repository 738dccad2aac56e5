"""The README says what `make demo` costs (ranges, install included); the install shows progress."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_gives_ranges_for_install_and_sweep() -> None:
    quick_start = (ROOT / "README.md").read_text().split("## Quick start")[1].split("\n## ")[0]
    assert re.search(r"install takes\s+\d+–\d+ min", quick_start)
    assert re.search(r"sweep itself \d+–\d+ min", quick_start)


def test_make_venv_announces_each_step(tmp_path: Path) -> None:
    dry = subprocess.run(["make", "-n", "venv", f"VENV={tmp_path / 'v'}"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    steps = re.findall(r'echo "\[(\d)/3\] ([^"]+)"', dry)
    assert [n for n, _ in steps] == ["1", "2", "3"]
    assert "torch" in steps[1][1] and "min" in steps[1][1]
    torch_line = next(line for line in dry.splitlines() if "torch==2.13.0" in line)
    assert "--quiet" not in torch_line  # pip shows its download progress
