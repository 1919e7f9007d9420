# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck bench clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found " + sys.version.split()[0] + "); set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	@touch $@

run: $(STAMP)
	$(BIN)/companion demo

test: $(STAMP)
	$(BIN)/ruff check companion tests benchmarks models
	$(BIN)/ruff format --check companion tests benchmarks models
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check companion tests benchmarks models
	$(BIN)/ruff format --check companion tests benchmarks models

typecheck: $(STAMP)
	$(BIN)/mypy

# One core, as the targets are stated (taskset is skipped where it does not exist).
bench: $(STAMP)
	$$(command -v taskset >/dev/null && echo taskset -c 0) $(BIN)/python benchmarks/bench_engine.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
