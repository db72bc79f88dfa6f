# Two set-up commands on a fresh machine with Python 3.11: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint bench clean gallery

$(STAMP): requirements.txt pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c requirements.txt -e ".[test]"  # pins: requirements.txt
	$(BIN)/python -m compileall -q src  # as pip does for a wheel (PYTHONDONTWRITEBYTECODE: never at run time)
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/snakemake --cores 4

# The page tests (marker browser) render in Debian's headless Chromium; installed here when
# missing (needs root), as tests/slurm_cluster.py installs Slurm. apt-get update only when the
# install fails, e.g. on a fresh image with no package lists.
CHROMIUM := /usr/bin/chromium
$(CHROMIUM):
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
	    || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }

lint: $(STAMP)
	$(BIN)/ruff check src tests workflow/scripts
	$(BIN)/snakefmt --check workflow
	$(BIN)/snakemake --lint --cores 1
	$(BIN)/mypy
	$(BIN)/lint-imports

# Everything: every test tier, Snakemake runs, Chromium and Slurm included (~15 min on 2 cores);
# -m "" lifts pyproject.toml's default selection (the fast tier). Without ../shared/data, one
# line says where it must be and the tests marked shared are skipped (tests/conftest.py).
SHARED_DATA := ../shared/data
test: $(STAMP) lint $(CHROMIUM)
	@test -d $(SHARED_DATA) || echo "make test: $(SHARED_DATA) is missing (the real third-party inputs, a checkout beside this one, README 'Set up and run'): the tests marked shared are skipped"
	$(BIN)/python -m pytest -q -m "" tests

# The quick tier: ruff, mypy, then plain pytest: every test not marked workflow, browser,
# slurm, gallery or heavy (pyproject.toml's addopts): no Snakemake runs, nothing installed.
test-fast: $(STAMP)
	$(BIN)/ruff check src tests workflow/scripts
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q tests

# docs/gallery/*.png and docs/gallery.md: the shipped examples and three real files of
# ../shared/data drawn by the CLI (tests/test_gallery.py checks they are current).
gallery: $(STAMP)
	$(BIN)/python tools/gallery.py

clean:
	rm -rf results logs .snakemake

# Synthetic inputs and timings → results/benchmarks/ (see docs/speed.md for what it runs and its figures);
# then every job type's peak memory (the shared data; 10⁷-row tables) beside its mem_mb
# → results/benchmarks/memory.md; then a cold build of 1,000 files × 4 presets against the
# original script's loop → fullbuild.md.
bench: $(STAMP)
	cd bench && ../$(BIN)/python run.py
	cd bench && ../$(BIN)/python memory.py
	cd bench && ../$(BIN)/python fullbuild.py
