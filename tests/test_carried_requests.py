"""A request or decision one summary carried and a later one dropped: most often dropped because it was done, so a
note, not a warning, and the guard does not give it back.

Excerpts from sessions outside ../shared, labelled blind: wfc_e2e7a891 ("has to be linux safe also," for the helper
scripts: S1 keeps it, S2 drops it once the scripts are merged; its labels call it retired, and it was reported as
lost at error); entirecli_6113e919 in ../shared/real_traces/labelled (a correction, carried by S1 and lost by S2: an
error in its labels, and still one); entirecli_1e0816ef (S2 keeps almost nothing of S1, and its "must be controlled
by configuration, default to 'off'" is lost at error in its labels, and still one); duet_c232df13 ("let's kill
ralph:", carried by S1 and dropped by S2 once the project was archived: its labels call it no loss), and
cipherbox_f585e6e9 in ../shared/real_traces/wider (the list before its S2 named the decisions S1 carried);
planetfall_88508f41 (a correction asking for a change, "instead it should say underneath type git add", made and
committed before S1 carried it, dropped by S2: retired in its labels, and reported as lost at error).
"""

from __future__ import annotations

from dataclasses import replace

from inspector.analysis import analyze
from inspector.guard_check import restored_items, standing_items
from inspector.model import Generation, SourceRecord, Trace

LINUX_SAFE = "has to be linux safe also, write the sed calls so they work on GNU and BSD"
NO_LINK = "no remove this again, the risk someone assumes it's a stable link is to big"
KILL_RALPH = "let's kill ralph: archive the repo"
GIT_ADD = ("instead it should say underneath type git add and make the git add be like in back ticks well not really "
           "but something that it would stand out")


def user(key: str, text: str) -> SourceRecord:
    return SourceRecord(key=key, text=text, namespace="transcript", kind="user", authority="user")


def assistant(key: str, text: str) -> SourceRecord:
    return SourceRecord(key=key, text=text, namespace="transcript", kind="assistant", authority="assistant")


def chain(said: list[str], first: str, *later_summaries: str) -> Trace:
    """What the user `said` before the first compaction, the agent's work after it, and the summaries: S1 covers
    what was said, S2 and any after it all of it."""
    early = [record for n, text in enumerate(said)
             for record in (user(f"u{n}", text), assistant(f"a{n}", "Done."))]  # fmt: skip
    later = [user("u9", "now open the pull request for develop"), assistant("a9", "Opened it.")]
    records = (*early, *later)
    covered, every = tuple(r.key for r in early), tuple(r.key for r in records)
    summaries = [Generation(k, "summary", text, parent=k - 1, covers=every)
                 for k, text in enumerate(later_summaries, start=2)]  # fmt: skip
    return Trace("fixture", "claude-code", records,
                 (Generation(0, "raw", "\n".join(r.text for r in records), covers=every),
                  Generation(1, "summary", first, parent=0, covers=covered), *summaries),
                 extra={"meta": {"session_log": True}})  # fmt: skip


def lost_at(trace: Trace, k: int) -> list[tuple[str, str]]:
    return [(f.severity.value, f.message) for f in analyze(trace).findings
            if f.rule == "user-statement-lost" and f.generation == k]  # fmt: skip


def lost_at_two(trace: Trace) -> list[tuple[str, str]]:
    return lost_at(trace, 2)


def test_a_request_a_summary_carried_and_the_next_dropped_is_a_note_that_says_so() -> None:
    trace = chain([LINUX_SAFE], "The helper scripts have to be linux safe: sed calls work on GNU and BSD.",
                  "Helper scripts merged into develop; the pull request for develop is open.")
    [(severity, message)] = lost_at_two(trace)
    assert severity == "info"
    assert message.endswith("is gone from S2 (S1 carried it; a request a summary drops after carrying it is most "
                            "often done)")  # fmt: skip
    _, restored = restored_items(trace)
    assert not any("linux safe" in item.text for item in restored)  # given back, done work would be done twice


def test_only_a_summary_the_later_one_was_written_from_carries_it() -> None:
    """S2 written from the raw log, not from S1 (a branch of the chain): S1 carrying the request handed it to no one."""
    trace = chain([LINUX_SAFE], "The helper scripts have to be linux safe: sed calls work on GNU and BSD.",
                  "Helper scripts merged into develop; the pull request for develop is open.")
    branched = replace(trace, generations=(*trace.generations[:2], replace(trace.generations[2], parent=0)))
    [(severity, message)] = lost_at_two(branched)
    assert (severity, "carried it" in message) == ("error", False)


def test_a_request_no_summary_carried_stays_an_error() -> None:
    trace = chain([LINUX_SAFE], "Wrote the helper scripts.", "Merged them; the pull request for develop is open.")
    [(severity, message)] = lost_at_two(trace)
    assert (severity, message.endswith("is still gone from S2")) == ("error", True)


def test_a_correction_a_summary_carried_and_the_next_dropped_stays_an_error() -> None:
    trace = chain([NO_LINK], "The user said remove the link again: someone may assume it's a stable link.",
                  "The trailer work is merged; the pull request for develop is open.")
    [(severity, message)] = lost_at_two(trace)
    assert severity == "error" and "carried" not in message


def test_a_correction_asking_for_a_change_a_summary_carried_and_the_next_dropped_is_a_note() -> None:
    """The change is made, and the code shows it made: as a request, the summary that drops it most often drops it
    done. One that takes something out (`NO_LINK`, above) leaves nothing in the code to keep it out."""
    trace = chain([GIT_ADD], "The user corrected the helper line: it should say type git add underneath, with git "
                  "add in back ticks so it stands out. Done and committed.",
                  "The trailer work is merged; the pull request for develop is open.")  # fmt: skip
    [(severity, message)] = lost_at_two(trace)
    assert severity == "info"
    assert message.endswith("(S1 carried it; a correction that asks for a change is most often made when a summary "
                            "drops it)")  # fmt: skip


def test_a_correction_that_declines_a_change_keeps_its_severity() -> None:
    """cli_bccb77bb88 (unlabelled, outside ../shared): "No I think this is fine and has to much risk of false
    positive." turns the agent's proposed change down; carried by S1 and dropped by S2, it leaves nothing in the code
    to say the change was declined, as a correction that takes something out leaves nothing to keep it out."""
    declined = "No I think this is fine and has to much risk of false positive."
    trace = chain([declined], "The user declined the check: too much risk of false positives.",
                  "The trailer work is merged; the pull request for develop is open.")  # fmt: skip
    [(severity, message)] = lost_at_two(trace)
    assert message.startswith("the user's correction") and "carried" not in message
    assert severity == "warning"  # "I think": a hedged correction is a warning, carried or not


def test_a_decision_against_a_change_keeps_its_severity() -> None:
    """duet_cd680c64 (fresh45, labelled blind): "let's not archive mirror - still useful", carried by S1 and dropped
    by S2, whose labels call it lost: a decision not to do something is never done, so its drop is no sign it was; a
    decision to do something ("let's kill ralph", below) still is."""
    kept = "let's not archive the mirror repo - still useful"
    trace = chain([kept], "Decided: the mirror repo is not archived, it is still useful.",
                  "The trailer work is merged; the pull request for develop is open.")  # fmt: skip
    [(severity, message)] = lost_at_two(trace)
    assert message.startswith("the user's decision") and "carried" not in message
    assert severity == "warning"


def test_a_request_dropped_by_a_summary_that_collapsed_stays_an_error() -> None:
    said = ["must be controlled by configuration, default to 'off'", "never commit the docs/plans folder",
            "please use the british spelling", "avoid code duplication with the explain command",
            "do not add a new dependency for the summariser", "never push to main without review"]  # fmt: skip
    first = ("Summarising is controlled by configuration, default off. The docs/plans folder is never committed. "
             "British spelling. No code duplication with explain. No new dependency for the summariser. Never push "
             "to main without review.")
    collapsed = "The conversation was short: the user asked for the pull request."
    trace = chain(said, first, collapsed, f"{collapsed} It is open now.")
    for k, still in ((2, ""), (3, "still ")):  # the collapse chose nothing: a summary after it that lacks it neither
        lost = {message.split("”")[0]: (severity, message) for severity, message in lost_at(trace, k)}
        severity, message = lost["the user's requirement “must be controlled by configuration, default to 'off'"]
        assert (severity, message.endswith(f"is {still}gone from S{k}")) == ("error", True)


def test_a_decision_a_summary_carried_and_the_next_dropped_is_a_note_the_guard_does_not_give_back() -> None:
    trace = chain([KILL_RALPH, NO_LINK], "Decided: let's kill ralph: archive the repo. The user said no, remove this "
                  "again: the risk someone assumes it's a stable link is too big.",
                  "The trailer work is merged; the pull request for develop is open.")  # fmt: skip
    lost = {message.split("”")[0]: (severity, message) for severity, message in lost_at_two(trace)}
    severity, message = lost[f"the user's decision “{KILL_RALPH}"]
    assert severity == "info"
    assert message.endswith("(S1 carried it; a decision a summary drops after carrying it is most often carried out)")
    _, restored = restored_items(trace)
    texts = [item.text for item in restored]
    assert NO_LINK in texts  # the guard speaks, for the correction
    assert KILL_RALPH not in texts  # and does not hand back a step the agent took


def test_the_list_before_a_compaction_still_names_what_the_last_summary_carried() -> None:
    """The summary about to be written holds nothing yet: it has dropped nothing by choice."""
    trace = chain([KILL_RALPH, LINUX_SAFE], f"Decided: {KILL_RALPH}. The helper scripts {LINUX_SAFE}.")
    _, standing = standing_items(trace)
    assert {KILL_RALPH, LINUX_SAFE} <= {item.text for item in standing}
