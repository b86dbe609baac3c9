"""Entries the user chose from the agent's numbered list: owed until a tool call acts on them by their identifier.

The list, the choice and the replies are entirecli_70d782f7's (../shared/real_traces/wider, lines 169-355), cut
to four entries: the agent tabled review comments by id, the user typed "skip 2 and do the rest", the agent
replied to the comments of entries 1 and 3 by id and never to entry 4's; the summary then said all were done.
"""

from __future__ import annotations

import json
import subprocess
import sys

from inspector.analysis import analyze
from inspector.list_selection import Entry, chosen, list_entries
from inspector.model import SourceRecord
from tests.helpers import REAL_TRACES, findings, needs_shared, session_log

TABLE = """**Remaining Low Severity Items:**

| # | Comment ID | Location | Issue |
|---|------------|----------|-------|
| 1 | 2734651359 | explain.go:320 | Doc comment mismatch for `formatCheckpointOutput` |
| 2 | 2734651404 | explain.go:486 | O(N*M) `isAncestorOf` performance |
| 3 | 2734662585 | explain.go:1147 | `isTask` flag not updated in grouping loop |
| 4 | 2734900785 | explain.go:1119 | `groupByCheckpointID` collapses all temporaries together |

**Questionable/Skip candidates:**
- **#2** (O(N*M) performance) - May be premature optimisation"""


def reply(key: str, comment: str, body: str) -> SourceRecord:
    command = f'gh api repos/entireio/cli/pulls/112/comments/{comment}/replies -f body="{body}"'
    return SourceRecord(key, f"command: {command}", namespace="transcript", kind="tool_call", authority="agent",
                        extra={"tool": "Bash", "command": command})  # fmt: skip


def session(choice: str = "skip 2 and do the rest", *, table: str = TABLE, replies: bool = True) -> list[SourceRecord]:
    records = [SourceRecord("u1", "give me the list again", namespace="transcript", kind="user", authority="user"),
               SourceRecord("a1", table, namespace="transcript", kind="assistant", authority="agent"),
               SourceRecord("u2", choice, namespace="transcript", kind="user", authority="user")]  # fmt: skip
    if replies:
        records += [reply("c1", "2734651359", "Already fixed - doc comment now accurate."),
                    reply("c3", "2734662585", "Fixed in 3696270 - isTask flag now updated in the loop.")]  # fmt: skip
    return records


ALL_DONE = ("Completed addressing all low severity PR feedback items (excluding skipped item 2). The isTask flag is "
            "updated in the groupByCheckpointID loop and the doc comment fixed; PR comments replied to.")  # fmt: skip


def lost(records: list[SourceRecord], summary: str) -> list[tuple[int | None, str]]:
    return findings(session_log(records, (len(records), summary)), "task-criterion-lost")


def test_an_entry_the_user_chose_and_no_tool_call_acted_on_is_lost_from_a_summary_that_calls_the_list_done() -> None:
    [(generation, message)] = lost(session(), ALL_DONE)
    assert generation == 1
    assert "entry 4 of the list the user chose from (“skip 2 and do the rest”)" in message
    assert "2734900785" in message and "no tool call has acted on yet" in message


def test_an_entry_no_call_acted_on_contradicts_a_pending_section_that_says_none() -> None:
    """The summary's own answer to what is left sends the next agent to stop: an error; its account alone, a warning."""
    records = session()
    trace = session_log(records, (len(records), f"{ALL_DONE}\n\nPending Tasks:\n- None explicitly remaining"))
    [severity] = [f.severity.value for f in analyze(trace).findings if f.rule == "task-criterion-lost"]
    assert severity == "error"
    trace = session_log(records, (len(records), ALL_DONE))
    assert [f.severity.value for f in analyze(trace).findings if f.rule == "task-criterion-lost"] == ["warning"]


def test_a_summary_naming_the_entry_by_its_id_or_by_what_only_it_asks_keeps_it() -> None:
    assert lost(session(), ALL_DONE + " Comment 2734900785 is still open.") == []
    assert lost(session(), ALL_DONE + " Still to do: groupByCheckpointID collapses temporaries together.") == []


def test_entries_the_session_never_acts_on_by_id_or_that_carry_none_are_not_tracked() -> None:
    """With no call naming any chosen entry's id, the session does not work the list by ids, and an id's absence says
    nothing; an entry with no id ("| 4 | explain.go:1119 | …") has nothing a call would name."""
    assert lost(session(replies=False), "Worked through the review comments.") == []
    no_ids = TABLE.replace("| 2734900785 ", "| ")
    assert lost(session(table=no_ids), ALL_DONE) == []


def test_only_a_short_reply_choosing_entries_the_list_has_is_a_choice() -> None:
    entries = list_entries(TABLE)
    assert sorted(entries) == [1, 2, 3, 4] and entries[4].ids == ("2734900785",)
    picks = {reply: [e.number for e in chosen(reply, entries)] for reply in (
        "skip 2 and do the rest", "do 1, 3 and 4", "fix 2-4", "do all except 3", "go ahead with #1 and #4",
        "fix them all, skip 2734900785", "do it in 2 steps", "sounds good", "do 1 and 9",
        "do 1 " + "and explain each change in the pull request with care " * 5)}  # fmt: skip
    assert picks == {"skip 2 and do the rest": [1, 3, 4], "do 1, 3 and 4": [1, 3, 4], "fix 2-4": [2, 3, 4],
                     "do all except 3": [1, 2, 4], "go ahead with #1 and #4": [1, 4],
                     "fix them all, skip 2734900785": [1, 2, 3], "do it in 2 steps": [], "sounds good": [],
                     "do 1 and 9": [],  # 9 is no entry: the numbers are about something else
                     "do 1 " + "and explain each change in the pull request with care " * 5: []}  # fmt: skip
    assert chosen("do the rest", {1: Entry(1, "x", ())}) == [Entry(1, "x", ())]


def test_the_choice_is_retired_once_every_entry_it_chose_was_acted_on() -> None:
    """The user's "skip 2 and do the rest" says nothing more once each entry it chose was answered: a later summary
    that drops it has lost nothing (entirecli_70d782f7's S2, where the gold calls it retired)."""
    done = [*session(), reply("c4", "2734900785", "Fixed in 7f010c5 - grouped by session ID.")]
    assert findings(session_log(done, (len(done), "Replied to every review comment.")), "user-statement-lost") == []
    assert findings(session_log(session(), (5, "Replied to the review comments.")), "user-statement-lost") != []


@needs_shared(REAL_TRACES / "wider")
def test_on_the_real_session_s1_loses_entry_13_and_s2_owes_nothing_of_the_list() -> None:
    path = REAL_TRACES / "wider" / "claude_code_2.1.20_entirecli_70d782f7.jsonl"
    out = subprocess.run([sys.executable, "-m", "inspector", "check", "--json", str(path)], capture_output=True,
                         text=True, check=False)  # fmt: skip
    report = json.loads(out.stdout)
    chosen_lost = [(f["generation"], f["message"], f["severity"]) for f in report["findings"]
                   if f["rule"] == "task-criterion-lost"]  # fmt: skip
    assert [g for g, _, _ in chosen_lost] == [1] and "2734900785" in chosen_lost[0][1]
    # its pending section says nothing is left, so the entry no call acted on contradicts it: an error, as labelled
    assert chosen_lost[0][2] == "error" and chosen_lost[0][1].endswith("which says “- None explicitly remaining - all "
                                                                       "requested items have been addressed, committed "
                                                                       "(3696270), and PR comments replied to”")
    assert not [f for f in report["findings"] if f["generation"] == 2 and "skip 5, 7, 8" in json.dumps(f)]
