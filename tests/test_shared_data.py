"""Tests that read ../shared (real sessions, gold labels, the scorer): a fresh clone has no such folder, so they
skip and say which; CI has it beside the clone, so there a missing folder fails rather than passing as skips."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.helpers import REPO, SHARED, require_shared


def test_absent_shared_data_skips_naming_the_folder(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    absent = SHARED / "real_traces" / "no-such-session.jsonl"
    with pytest.raises(pytest.skip.Exception, match=r"needs \.\./shared .*\.\./shared/real_traces/no-such-session"):
        require_shared(absent)


def test_absent_shared_data_fails_in_ci(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match=r"\.\./shared/real_traces/no-such-session\.jsonl is missing"):
        require_shared(SHARED / "real_traces" / "no-such-session.jsonl")


def test_present_data_neither_skips_nor_fails(monkeypatch):
    monkeypatch.setenv("CI", "true")
    require_shared(REPO)  # returns: the test goes on


def test_a_skip_in_ci_is_a_failure(tmp_path):
    """tests/conftest.py: CI has everything a test needs, so any skip there is something gone missing."""
    (tmp_path / "test_one.py").write_text("import pytest\n\ndef test_it():\n    pytest.skip('no chromium')\n")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.conftest", str(tmp_path)]
    ci = subprocess.run(command, cwd=REPO, env={**os.environ, "CI": "true"}, capture_output=True, text=True)
    assert ci.returncode == 1 and "skipped in CI, where every test must run: no chromium" in ci.stdout
    local = subprocess.run(command, cwd=REPO, env={k: v for k, v in os.environ.items() if k != "CI"},
                           capture_output=True, text=True)  # fmt: skip
    assert local.returncode == 0 and "1 skipped" in local.stdout
