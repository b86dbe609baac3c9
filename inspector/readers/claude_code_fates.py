"""What became of each record of a Claude Code log: one name per fate, and every line of the log has one.

A reader that drops records silently hides what compaction lost behind what the reader lost, so the
Claude Code reader counts every line under one of these (`Trace.extra["records_by_fate"]`), and the
counts add up to the lines of the file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspector.readers import conservation
from inspector.readers.conservation import Reason, RecordTally

# In the trace.
TURN = "turn"
"""A user or assistant record that gave a turn, a tool call or a tool result (or more text to a turn)."""
QUEUED_TURN = "queued_message"
"""A message typed while the agent worked, received by it, that no other record holds (`claude_code_queue`)."""
MENTION = "mention"
"""An attachment naming a file the agent read or edited."""
COMPACTION = "compaction"
SUMMARY = "summary"

# On the surviving chain, not a turn.
ATTACHMENT = "attachment"
"""Hook output, reminders and listings the harness attached."""
SYSTEM = "system"
"""Hook summaries, turn durations, API errors."""
NO_CONTENT = "no_content"
"""Nothing new: a thinking-only piece of a streamed message, a piece repeating earlier ones, an empty record."""
PROGRESS = "progress"
"""A running tool's or hook's progress: bookkeeping, on the chain or off it."""

# Not conversation records.
SNAPSHOT = "file_history_snapshot"
"""A file-history snapshot: not a turn; the files it names are kept as files the agent edited (`claude_code`)."""
METADATA = "metadata"
"""Titles, modes, the last prompt, links: the session's, not the conversation's."""
QUEUE_DELIVERED_AS_RECORD = "queue_delivered_as_record"
"""A queued message that a later user record or attachment holds: that record is its turn."""
QUEUE_NOT_DELIVERED = "queue_not_delivered"
"""A queued message the log never shows leaving the queue: the agent never received it."""
QUEUE_TAKEN_BACK = "queue_taken_back"
"""A queued message the user took back into the prompt (`popAll`) before it was sent: what they sent instead is a
record of its own, or a message queued again."""
QUEUE_BOOKKEEPING = "queue_bookkeeping"
"""Every other queue record: a dequeue or remove, a slash command, a background task's descriptor."""

# Set aside.
SIDECHAIN = "sidechain"
"""A sub-agent's records in the main log (its own log reads on its own)."""
SUPERSEDED = "superseded_branch"
"""On a branch the session left: a prompt edited or rewound to, a session resumed from an earlier point."""
UNREACHED = "unreached"
"""Off the chain, and no record of the surviving conversation leads to it (its parent is not in the log)."""
DUPLICATE = "duplicate_uuid"
"""Written again under a uuid the log already holds (anthropics/claude-code#92089, resumes): read once."""
UNPAIRED_SUMMARY = "unpaired_summary"
"""A summary record no compaction boundary precedes (a sub-agent's, inside the main log)."""
NO_UUID = "no_uuid"
"""A conversation record without a uuid: nothing can link to it."""
UNKNOWN_TYPE = "unknown_type"
"""A record of a type this reader does not know (counted in `unknown_types` too)."""

# Lines that are no record.
MALFORMED = "malformed_line"
TORN = "torn_line"
BLANK = "blank_line"


_SET_ASIDE: dict[str, Reason] = {
    SIDECHAIN: Reason("sidechain", told=False),  # its own log reads on its own
    SUPERSEDED: conservation.SUPERSEDED,  # the branch-set-aside notice names these
    UNREACHED: Reason("unreached", told=False),  # and these
    DUPLICATE: conservation.DUPLICATE,
    UNPAIRED_SUMMARY: Reason("unpaired summary", told=False),
    NO_UUID: Reason("no uuid", told=True),
    UNKNOWN_TYPE: conservation.UNKNOWN,
}
"""The fates of records not in the trace, as the shared tally's reasons; every other fate is read."""


def tally(records: RecordTally, lines: Any, fates: Mapping[str, int]) -> None:
    """This reader's fates in the shape every reader reports (`inspector.readers.conservation`): the lines'
    total, malformed and torn from `JsonLines`, and each fate read or set aside (blank lines are no record)."""
    records.lines(lines)
    for name, count in fates.items():
        if name in _SET_ASIDE:
            records.aside(_SET_ASIDE[name], count)
        elif name not in (BLANK, MALFORMED, TORN):
            records.read_as(name.replace("_", " "), count)


__all__ = ["ATTACHMENT", "BLANK", "COMPACTION", "DUPLICATE", "MALFORMED", "MENTION", "METADATA", "NO_CONTENT",
           "NO_UUID", "PROGRESS", "QUEUED_TURN", "QUEUE_BOOKKEEPING", "QUEUE_DELIVERED_AS_RECORD",
           "QUEUE_NOT_DELIVERED", "QUEUE_TAKEN_BACK", "SIDECHAIN", "SNAPSHOT", "SUMMARY", "SUPERSEDED", "SYSTEM",
           "TORN", "TURN", "UNKNOWN_TYPE", "UNPAIRED_SUMMARY", "UNREACHED", "tally"]  # fmt: skip
