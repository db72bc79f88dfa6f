# Two set-up commands on a fresh machine with Python 3.11: `make run` and `make test`.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint bench clean

$(STAMP): requirements.txt pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	$(BIN)/pip install --quiet --no-deps -e .
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/snakemake --cores 4

test: $(STAMP)
	$(BIN)/ruff check src tests workflow/scripts
	$(BIN)/snakefmt --check workflow
	$(BIN)/snakemake --lint --cores 1
	$(BIN)/python -m pytest -q tests

clean:
	rm -rf results logs .snakemake

# Synthetic inputs and timings → results/benchmarks/ (see README.md, "Speed and scale"); ~5 min on 2 cores.
bench: $(STAMP)
	cd bench && ../$(BIN)/python run.py
