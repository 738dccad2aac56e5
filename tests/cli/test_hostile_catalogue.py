"""Issue 28 item 5: a bad file in ./languages/ is skipped with a located warning, never a crash."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from expressivity.catalogue import CatalogueWarning, default_directory, load_catalogue
from expressivity.cli import main

DEEP = 'name = "DEEP"\nalphabet = ["a", "b"]\nformula = "' + "!" * 5_000 + 'a"\n'
HUGE = 'name = "HUGE"\nalphabet = ["a", "b"]\nformula = "P(a & Y^20 b)"\n'


def _hostile(tmp_path: Path, fifo: bool = False) -> Path:
    folder = tmp_path / "languages"
    folder.mkdir()
    shutil.copy(default_directory() / "suffix-a.toml", folder)
    (folder / "latin1.toml").write_bytes(b'name = "L\xe9"\nalphabet = ["a"]\nregex = "a"\n')
    (folder / "folder.toml").mkdir()
    (folder / "loop.toml").symlink_to(folder / "loop.toml")
    (folder / "dangling.toml").symlink_to(folder / "missing")
    (folder / "deep.toml").write_text(DEEP, "utf-8")
    (folder / "huge.toml").write_text(HUGE, "utf-8")
    if fifo:
        os.mkfifo(folder / "fifo.toml")
    return folder


def test_bad_files_are_skipped_with_located_warnings(tmp_path: Path) -> None:
    folder = _hostile(tmp_path, fifo=hasattr(os, "mkfifo"))
    with pytest.warns(CatalogueWarning) as caught:
        catalogue = load_catalogue(folder)
    assert set(catalogue) == {"SUFFIX-a", "HUGE"}
    said = "\n".join(str(w.message) for w in caught)
    assert "latin1.toml:1:10: not UTF-8 text (byte 0xe9)" in said
    assert "folder.toml: a folder, not a catalogue file" in said
    assert "loop.toml: cannot be read" in said and "dangling.toml: cannot be read" in said
    assert "deep.toml:3:" in said and "formula too deep" in said
    if hasattr(os, "mkfifo"):
        assert "fifo.toml: a FIFO, not a catalogue file" in said


@pytest.mark.parametrize("argv", [
    ["classify", "SUFFIX-a"], ["compile", "SUFFIX-a"], ["check"], ["languages"],
    ["train", "SUFFIX-a", "--profile", "tiny", "--steps", "1", "--no-resume", "-q"],
])
def test_every_command_goes_on_over_a_hostile_catalogue(
    argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _hostile(tmp_path, fifo=hasattr(os, "mkfifo"))
    monkeypatch.chdir(tmp_path)  # ./languages/
    if argv[0] == "train":
        argv = [*argv, "--out", str(tmp_path / "runs")]
    done: list[int] = []
    worker = threading.Thread(target=lambda: done.append(main(argv)), daemon=True)
    worker.start()
    worker.join(timeout=120)  # a FIFO would block a read forever: this is a hang detector
    assert done, f"{argv[0]} hung over {folder}"
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    if argv[0] == "check":  # check reports the bad files and fails, as it should
        assert done == [1] and "latin1.toml" in captured.out + captured.err
        return
    assert done == [0], captured.err
    assert "warning: skipped" in captured.err and "latin1.toml" in captured.err
    if argv[0] == "languages":
        assert "SUFFIX-a" in captured.out and "HUGE" in captured.out
        assert "HUGE not checked: " in captured.err
