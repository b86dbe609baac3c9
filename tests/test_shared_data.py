"""Tests that read ../shared (real sessions, gold labels, the scorer): a fresh clone has no such folder, so they
skip and say which; CI has it beside the clone, so there a missing folder fails rather than passing as skips."""

from __future__ import annotations

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
