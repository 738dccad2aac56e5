# Two entry points (README Quick start): `make demo` runs the main job, `make test` runs the suite.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: demo test lint venv clean

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt torch==2.13.0
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/expressivity demo

test: $(STAMP)
	$(BIN)/ruff check expressivity tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n 2 -m "not slow"

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
