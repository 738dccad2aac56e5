# Two entry points (README Quick start): `make demo` runs the main job, `make test` runs the suite.
PYTHON ?= python3.11
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: demo test test-slow bench venv clean notebooks docs

$(STAMP): pyproject.toml constraints.txt
	@echo "[1/3] creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	@echo "[2/3] installing torch 2.13.0, CPU build (the largest download: 1-10 min)"
	$(BIN)/python -m pip install --progress-bar on -c constraints.txt torch==2.13.0
	@echo "[3/3] installing expressivity and its dependencies with the dev extra (1-3 min)"
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)
	@echo "installed into $(VENV)"

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/expressivity sweep experiments/quick.toml --jobs 2 --db runs/quick.db

test: $(STAMP)
	$(BIN)/ruff check expressivity tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n 2 -m "not slow"

# The slow tier: the full-size property tests and end-to-end runs whose fast representatives
# run in `make test` (.ci/run runs `make test` and `make docs`, not this tier: run it by hand
# after changing what it covers).
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m slow

# Benchmarks (not part of the tests): peers such as ltlf2dfa + MONA, automata-lib and
# local-attention are installed here only. MONA comes from Debian (apt-get install mona).
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[bench]'
	for b in compile classify sampling attention train_step; do \
		$(BIN)/python benchmarks/$$b.py || exit 1; done

# The documentation site (docs/, mkdocs.yml) into build/site, strict: a broken link, a missing
# reference or any warning fails the build. The docs extra (MkDocs, Material, mkdocstrings) is
# installed here only.
docs: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[docs]'
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Execute notebooks/*.ipynb in place, so that they are committed with their outputs. To open
# them interactively: .venv/bin/pip install -e '.[notebooks]' && .venv/bin/jupyter lab notebooks/
notebooks: $(STAMP)
	$(BIN)/python notebooks/execute.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
