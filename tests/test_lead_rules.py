"""What an agent team's lead forbade a teammate stands in the teammate's summaries (`inspector.lead_rules`).

The brief's shape is a real teammate's (Claude Code 2.1.42, an agent team building a Flutter app): a task assignment
as JSON, then the brief with its RULES, the i18n keys to add, and the tasks. Its summary told the work done and
dropped two of the rules; the brief is the lead's words, never the user's.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import inspector.guard as guard
from inspector.analysis import analyze
from inspector.readers.registry import load_trace
from tests.test_guard_authorship import compacted, user
from tests.test_guard_precompact import said

BRIEF = """You are ui-dev on the CyberVPN team (Multi-Profile). You build all presentation layer components.

RULES:
- Use Context7 MCP to look up Flutter Material 3 and Riverpod docs.
- All user-facing strings via AppLocalizations (add keys to app_en.arb).
- Do NOT modify existing screens unless adding profile selector integration (UI-4).
- Do NOT downgrade any package version.

UI-6 (Task #17): Add i18n strings to app_en.arb
  - Update lib/core/l10n/arb/app_en.arb with new keys:
    "profileDeleteLastError": "Cannot delete the last profile. At least one profile is required.",
  - Only add to app_en.arb — other locales will use English as fallback
  - Run `flutter analyze` after each change
"""
ASSIGNED = '{"type":"task_assignment","taskId":"17","subject":"UI-6: Add i18n strings to app_en.arb"}'
SUMMARY = ("Summary:\n1. Primary Request: as ui-dev, add the profile i18n keys to app_en.arb and build the profile "
           "screens. Existing screens were not modified.\n2. Done: UI-6, the keys are added.")  # fmt: skip
"""Keeps "do not modify existing screens" in other words, and drops the rule against downgrading a package."""


def _teammate_log(folder: Path, sender: str = "team-lead") -> Path:
    message = (f'<teammate-message teammate_id="{sender}">\n{ASSIGNED}\n</teammate-message>\n\n'
               f'<teammate-message teammate_id="{sender}">\n{BRIEF}</teammate-message>')  # fmt: skip
    records = [
        user("u1", None, message, teamName="multi-profile", agentName="ui-dev"),
        said("Adding the keys to app_en.arb now.", "a1", "u1"),
        *compacted("a1", SUMMARY),
    ]
    path = folder / "teammate.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def findings(path: Path) -> list[tuple[str, str]]:
    return [(f.rule, f.message) for f in analyze(load_trace(path)).findings if f.severity.value != "info"]


def test_a_rule_the_lead_set_and_the_summary_dropped_is_lost_and_never_called_the_users(tmp_path):
    assert findings(_teammate_log(tmp_path)) == [
        ("task-criterion-lost", "the rule “Do NOT downgrade any package version.” the team lead set this agent is not "
                                "in S1")]  # fmt: skip


def test_only_what_the_brief_forbids_is_a_rule_not_its_steps_nor_the_text_it_hands_over(tmp_path):
    mined = [t.invariant.text for t in analyze(load_trace(_teammate_log(tmp_path))).facts.invariants]
    assert mined == ["Do NOT modify existing screens unless adding profile selector integration (UI-4).",
                     "Do NOT downgrade any package version."]  # fmt: skip


def test_a_teammates_message_in_the_leads_own_log_sets_no_rule(tmp_path):
    assert analyze(load_trace(_teammate_log(tmp_path, sender="ui-dev"))).facts.invariants == ()


def test_the_guard_gives_the_dropped_rule_back_as_the_leads(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    path = _teammate_log(tmp_path)
    request = {"session_id": "teammate", "transcript_path": str(path), "cwd": str(tmp_path),
               "hook_event_name": guard.AFTER, "source": "compact"}  # fmt: skip
    out = io.StringIO()
    assert guard.run_hook(io.StringIO(json.dumps(request)), out, log=tmp_path / "guard.log") == 0
    given = json.loads(out.getvalue())["hookSpecificOutput"]["additionalContext"]
    rule = "“Do NOT downgrade any package version.”"
    assert f"(a rule the team lead set, lost in the summary, record u1): {rule}" in given
    assert "The user said" not in given
