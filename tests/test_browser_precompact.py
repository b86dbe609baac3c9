"""The chain view shows which compactions the guard's PreCompact list ran before, and what it held.

The guard runs as Claude Code runs it: `compaction-inspector guard` as a process, fed the `PreCompact` hook's JSON
for the session log cut just before its first and second compactions, recording into the data folder the app then
serves. The third compaction ran with no guard, and the chain view says nothing of it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    require_chromium,
    save_screenshot,
    streamlit_server,
    wait_until_settled,
)
from tests.helpers import FIXTURES

playwright_api = pytest.importorskip("playwright.sync_api")

SESSION = FIXTURES / "claude_code" / "three_compactions.jsonl"
RULE = "Never run migrations against the staging database; it is read-only until the release job releases the lock."


def compaction_lines(lines: list[bytes]) -> list[int]:
    """Where each compaction begins, in order: its `compact_boundary` record, before its summary's."""
    return [n for n, line in enumerate(lines) if json.loads(line).get("subtype") == "compact_boundary"]


def guard_before(cut: Path, data: Path) -> str:
    """What the guard prints in its PreCompact hook for this log, run as the hook runs."""
    request = {"session_id": "s", "transcript_path": str(cut), "cwd": str(cut.parent), "hook_event_name": "PreCompact",
               "trigger": "auto", "custom_instructions": ""}  # fmt: skip
    done = subprocess.run([sys.executable, "-m", "inspector", "guard"], input=json.dumps(request), text=True,
                          capture_output=True, env={**os.environ, "INSPECTOR_DATA_DIR": str(data)}, timeout=60,
                          check=True)  # fmt: skip
    return done.stdout


def test_the_chain_view_shows_the_compactions_the_precompact_list_ran_before_and_what_it_held(tmp_path):
    require_chromium()
    data = tmp_path / "data"
    data.mkdir()
    lines = SESSION.read_bytes().splitlines(keepends=True)
    for k, at in enumerate(compaction_lines(lines)[:2], start=1):
        cut = tmp_path / f"before-S{k}.jsonl"
        cut.write_bytes(b"".join(lines[:at]))
        assert RULE in guard_before(cut, data)
    with streamlit_server(data) as url, playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(30_000)
        page.goto(url)
        wait_until_settled(page)
        page.get_by_role("tab", name="Upload").click()
        page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(SESSION))
        page.get_by_role("button", name="Open upload").click()
        page.get_by_role("link", name="Chain view").click()
        page.get_by_role("heading", name="What the guard asked each compactor to keep").wait_for()
        wait_until_settled(page)
        lists = page.locator(".ci-guard-list")
        heads = [text.split(",")[0] for text in lists.locator("p.ci-caption").all_inner_texts()]
        assert heads == ["before S1", "before S2"]  # not S3: no guard ran before it
        first = lists.nth(0).locator("ol > li").all_inner_texts()
        assert len(first) == 1 and "user-constraint · record u01" in first[0] and RULE in first[0]
        second = lists.nth(1).locator("ol > li").all_inner_texts()
        assert any(RULE in item for item in second) and any("failed-approach" in item for item in second)
        assert "the guard asked the compactor to keep 2 items" in lists.nth(1).inner_text()
        save_screenshot(page, "chain-precompact-lists")
        browser.close()
