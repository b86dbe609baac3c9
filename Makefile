# One entry point for people and CI: both targets work on a fresh clone.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PORT ?= 8501
# Loopback only: the app has no authentication. `make serve ADDRESS=0.0.0.0` exposes it (README: behind a proxy).
ADDRESS ?= 127.0.0.1

.PHONY: serve test lint screenshots demo quality guard-quality consequence-gold bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when the dependency list changes.
$(VENV)/.installed-app: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[app]'
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.installed-app

# Start the inspector on the bundled samples at http://localhost:$(PORT), through serve.py (security headers)
serve: $(VENV)/.installed-app
	$(VENV)/bin/streamlit run serve.py --server.address $(ADDRESS) --server.port $(PORT)

test: $(VENV)/.installed-test
	$(PY) -m ruff check inspector pages app.py serve.py tests bench
	$(PY) -m pytest

# Refresh the README's pictures in docs/screenshots/ from the browser tests that take them. `make test` writes its
# screenshots to test-artifacts/screenshots/ only (git-ignored), so a test run leaves `git status` clean.
screenshots: $(VENV)/.installed-test
	@test -x /usr/bin/chromium || { echo "make screenshots: needs Debian's chromium at /usr/bin/chromium"; exit 2; }
	INSPECTOR_DOC_SCREENSHOTS=docs/screenshots $(PY) -m pytest tests/test_browser.py tests/test_phoenix.py -q

lint: $(VENV)/.installed-test
	$(PY) -m ruff check inspector pages app.py serve.py tests bench

# Run the gate on every bundled sample. Exit status 1 is expected (most samples demo a failure) and is said
# in words rather than as make's "Error 1 (ignored)"; any other failure still fails the target.
demo: $(VENV)/.installed-app
	@$(VENV)/bin/compaction-inspector check sample_traces/*.json; status=$$?; \
	if [ $$status -eq 1 ]; then echo "demo: exit status 1, as expected: the gate found the failures these samples demonstrate"; \
	else exit $$status; fi

# Score the findings against the hand-labelled real sessions (precision, recall, faithful errors): one line
# per folder of ../shared/real_traces, and one per half of wider/ (half B is held out: bench/quality.py).
quality: $(VENV)/.installed-app
	$(PY) bench/quality.py --cli $(VENV)/bin/compaction-inspector

# The guard at every compaction of the labelled real sessions: what the PreCompact list named and what the
# SessionStart hook gave back, against the gold items (one line per compaction and a TOTAL: bench/guard_quality.py).
guard-quality: $(VENV)/.installed-app
	$(PY) bench/guard_quality.py

# Every loss the gold labels name, checked for what happened next (not only the losses `check` found).
consequence-gold: $(VENV)/.installed-app
	$(PY) bench/consequence_gold.py

# Every performance figure in one run (a few minutes; sessions go to a temporary folder); the table is
# printed and saved in bench/RESULTS.md with the date and machine.
bench: $(VENV)/.installed-app
	$(PY) -m pip install --quiet -e '.[app,bench]'
	$(PY) bench/run.py --write bench/RESULTS.md
	$(PY) bench/shapes.py --write bench/SHAPES.md

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis test-artifacts
