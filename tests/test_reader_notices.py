"""What a reader met while loading reaches the user: `check` reports skipped lines, a torn tail, a missing summary."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from inspector import analyze
from inspector.model import Finding, Generation, Severity, SourceRecord, Trace
from tests.helpers import REPO

FIXTURES = Path(__file__).parent / "fixtures"


def check_json(path: Path) -> dict:
    result = subprocess.run([sys.executable, "-m", "inspector", "check", "--json", str(path)], capture_output=True,
                            text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def test_check_reports_a_skipped_line_and_a_torn_tail_of_a_session_log(tmp_path):
    lines = (FIXTURES / "claude_code" / "three_compactions.jsonl").read_text().splitlines()
    damaged = tmp_path / "session.jsonl"
    damaged.write_text("\n".join([*lines[:5], "{not json", *lines[5:], '{"type": "user", "mess']))
    report = check_json(damaged)
    notices = [(f["rule"], f["severity"], f["generation"]) for f in report["findings"]
               if f["rule"] in ("malformed-line", "torn-last-line")]  # fmt: skip
    assert notices == [("malformed-line", "warning", None), ("torn-last-line", "warning", None)]
    messages = {f["rule"]: f["message"] for f in report["findings"]}
    assert messages["malformed-line"].startswith(f"{damaged}:6: ")  # the line a reader can go and look at
    assert messages["torn-last-line"].startswith(f"{damaged}:{len(lines) + 2}: last line is incomplete")


def test_the_readers_own_reason_for_a_missing_summary_is_what_the_user_reads():
    """The reader read the log and knows why the text is missing; the finding says so, once."""
    said = SourceRecord("u1", "Keep the API on port 8443.")
    notice = Finding("summary-unavailable", Severity.INFO, 1, "S1: line 7: the summary is an encrypted compaction item")
    trace = Trace("t", "codex", (said,), (Generation(0, "raw", said.text, covers=("u1",)),
                                          Generation(1, "summary", None, parent=0, covers=("u1",))),
                  notices=(notice,))  # fmt: skip
    unavailable = [(f.generation, f.message) for f in analyze(trace).findings if f.rule == "summary-unavailable"]
    assert unavailable == [(1, "S1: line 7: the summary is an encrypted compaction item")]


def test_a_summary_no_reader_explained_still_says_its_text_is_missing():
    said = SourceRecord("u1", "Keep the API on port 8443.")
    trace = Trace("t", "native", (said,), (Generation(0, "raw", said.text, covers=("u1",)),
                                           Generation(1, "summary", None, parent=0, covers=("u1",))))  # fmt: skip
    unavailable = [(f.generation, f.message) for f in analyze(trace).findings if f.rule == "summary-unavailable"]
    assert unavailable == [(1, "S1: no summary text in the log")]
