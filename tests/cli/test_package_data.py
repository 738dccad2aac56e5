"""The catalogue is package data; users' folders (./languages, --catalogue, env) come first."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import expressivity
from expressivity.catalogue import (
    CATALOGUE_ENV,
    default_directory,
    get_language,
    load_catalogue,
    search_path,
)
from expressivity.cli import main

ROOT = Path(__file__).resolve().parents[2]
MINE = 'name = "{name}"\nalphabet = ["a", "b"]\nregex = "a b"\ndescription = "mine"\n'


def test_the_shipped_catalogue_is_inside_the_package() -> None:
    package = Path(expressivity.__file__).resolve().parent
    assert default_directory().parent == package
    assert len(list(default_directory().glob("*.toml"))) == len(load_catalogue(default_directory()))
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "languages/*.toml" in data["tool"]["setuptools"]["package-data"]["expressivity"]


def test_users_folders_are_searched_first(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    own, extra = tmp_path / "languages", tmp_path / "extra"
    own.mkdir(), extra.mkdir()
    (own / "lt-2.toml").write_text(MINE.format(name="LT-2"))  # shadows the shipped LT-2
    (extra / "x.toml").write_text(MINE.format(name="EXTRA-1"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(CATALOGUE_ENV, str(extra))
    assert search_path()[:2] == (extra.resolve(), own.resolve())
    assert search_path()[-1] == default_directory()
    assert get_language("LT-2").description == "mine"
    assert get_language("EXTRA-1").regex == "a b"
    assert get_language("PARITY").path.startswith(str(default_directory()))


def test_catalogue_option_before_or_after_the_command(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv(CATALOGUE_ENV, raising=False)
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "m.toml").write_text(MINE.format(name="MINE-1"))
    assert main(["--catalogue", str(folder), "compile", "MINE-1"]) == 0
    assert main(["compile", "MINE-1", "--catalogue", str(folder)]) == 0
    assert "catalogue MINE-1 over {a,b}" in capsys.readouterr().out
    assert CATALOGUE_ENV not in os.environ  # restored after the command
    assert main(["compile", "MINE-1"]) == 2


@pytest.mark.slow
def test_a_wheel_installed_outside_the_repository_has_the_catalogue(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source)
    shutil.copytree(ROOT / "expressivity", source / "expressivity",
                    ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", str(source), "-w", str(tmp_path / "dist")], check=True)
    wheel = next((tmp_path / "dist").glob("expressivity-*.whl"))
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          check=True, capture_output=True, text=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "-q",
                    "--target", site, str(wheel)], check=True)
    # the dependencies (torch, lark, ...) come from this environment, after the installed wheel
    deps = [p for p in sys.path if p.endswith("site-packages")]
    (Path(site) / "deps.pth").write_text("\n".join(deps) + "\n")
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in (CATALOGUE_ENV, "PYTHONPATH")}

    def cli(*argv: str) -> str:
        done = subprocess.run([python, "-m", "expressivity.cli", *argv], cwd=work, env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout

    where = subprocess.run([python, "-c", "import expressivity; print(expressivity.__file__)"],
                           cwd=work, env=env, capture_output=True, text=True, check=True)
    assert where.stdout.startswith(site)  # the installed wheel, not this checkout
    assert f"{len(load_catalogue(default_directory()))} languages" in cli("languages")
    assert "LT-2 over Σ = {a,b,c}" in cli("classify", "LT-2")
