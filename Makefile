# One entry point for people and CI: `make test` works on a fresh clone.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install test lint demo bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the dependency list changes.
$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

test: install
	$(PY) -m ruff check inspector tests bench
	$(PY) -m pytest

lint: install
	$(PY) -m ruff check inspector tests bench

# Run the gate on every bundled sample (exit status 1 is expected: most samples demo a failure).
demo: install
	-$(VENV)/bin/compaction-inspector check sample_traces/*.json

bench: install
	$(PY) bench/bench_check.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
