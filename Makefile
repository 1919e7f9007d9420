# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck bench clean test-pi-pins pictures

$(STAMP): pyproject.toml setup.py
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (found " + sys.version.split()[0] + "); set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,dev]'
	@touch $@

run: $(STAMP)
	$(BIN)/companion demo

test: $(STAMP)
	$(BIN)/ruff check companion tests benchmarks models docs/pictures
	$(BIN)/ruff format --check companion tests benchmarks models docs/pictures
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check companion tests benchmarks models docs/pictures
	$(BIN)/ruff format --check companion tests benchmarks models docs/pictures

typecheck: $(STAMP)
	$(BIN)/mypy

# One core, as the targets are stated (taskset is skipped where it does not exist).
bench: $(STAMP)
	@pin="$$(command -v taskset >/dev/null && echo taskset -c 0)"; set -e; \
	for game in engine castle dicegame gaia stars; do \
		$$pin $(BIN)/python benchmarks/bench_$$game.py --check; \
	done

# The whole test suite on the oldest numpy, OpenCV and onnxruntime supported, as a Raspberry Pi
# OS Bookworm install can have them (hardware/constraints-oldest.txt), in a venv of its own.
PI_VENV ?= .venv-pi
PI_BIN := $(PI_VENV)/bin

# Prints each pinned package's installed version and fails if one is not the pinned one.
define CHECK_PINS
import importlib.metadata, pathlib, sys
wrong = 0
for line in pathlib.Path("hardware/constraints-oldest.txt").read_text().splitlines():
    name, _, pinned = line.split("#")[0].strip().partition("==")
    if name:
        found = importlib.metadata.version(name)
        wrong += found != pinned
        print(f"{name} {found}" + ("" if found == pinned else f" (pinned {pinned})"))
sys.exit(1 if wrong else 0)
endef
export CHECK_PINS

test-pi-pins:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else "make test-pi-pins needs Python 3.11, Bookworm'"'"'s (numpy 1.24 has no wheels for newer ones); set PYTHON=python3.11")'
	$(PYTHON) -m venv $(PI_VENV)
	$(PI_BIN)/python -m pip install --quiet --upgrade pip
	$(PI_BIN)/python -m pip install --quiet --constraint hardware/constraints-oldest.txt -e '.[test]'
	$(PI_BIN)/python -c "$$CHECK_PINS"
	$(PI_BIN)/python -m pytest -q

# The players' guide pictures (docs/pictures/), taken by the browser test on a phone-sized screen.
pictures: $(STAMP)
	$(BIN)/python -m pytest -q tests/test_browser_game_night.py
	$(BIN)/python docs/pictures/refresh.py

clean:
	rm -rf $(VENV) $(PI_VENV) .pytest_cache .ruff_cache .mypy_cache .hypothesis
