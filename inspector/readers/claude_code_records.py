"""Typed Claude Code records: decode only the fields the reader uses, skip the rest in C.

Most of a Claude Code log is what no turn needs: `toolUseResult` payloads that repeat the tool result,
token `usage`, thinking signatures, file snapshots. Decoding every line into dicts builds all of it and
then drops it. `msgspec` decodes a line straight into a `Record` holding only the fields the reader
reads; every other field Claude Code is known to write is declared as `msgspec.Raw`, so it is skipped
without being built.

Nothing is lost by this. The reader reports fields it does not know, so the fast decoder refuses any
unknown field (and any value of an unexpected type): such a line is decoded into a dict as before and
turned into the same `Record`, its unknown fields kept beside it. The slow path is the exact one.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any

import msgspec

KNOWN_FIELDS = frozenset(
    """parentUuid logicalParentUuid isSidechain userType cwd sessionId session_id version gitBranch type
    message uuid timestamp requestId isMeta isCompactSummary isVisibleInTranscriptOnly toolUseResult subtype
    content level compactMetadata microcompactMetadata slug entrypoint isApiErrorMessage error agentId
    attachment toolUseID parentToolUseID data sourceToolUseID sourceToolAssistantUUID thinkingMetadata todos
    permissionMode promptId imagePasteIds origin promptSource sessionKind effort durationMs cause maxRetries
    retryAttempt retryInMs messageCount hookCount hookInfos hookErrors hookAdditionalContext
    preventedContinuation stopReason hasOutput trigger isCompactBoundary leafUuid operation planContent""".split()
)
"""Top-level fields Claude Code writes that the reader knows; any other is reported as unknown."""


class Message(msgspec.Struct, gc=False):
    """`message`: the parts a turn is made of (`usage`, `model`, `stop_reason` are skipped)."""

    role: Any = None
    id: Any = None
    content: Any = None


_USED = ("type", "uuid", "parentUuid", "logicalParentUuid", "isSidechain", "subtype", "isCompactSummary",
         "timestamp", "message", "isMeta", "isApiErrorMessage", "attachment", "version", "sessionId", "agentId",
         "cwd", "compactMetadata", "microcompactMetadata", "trigger", "origin", "operation", "content",
         "planContent", "slug")  # fmt: skip
"""The fields the reader reads; every other known field is skipped."""


class Record(msgspec.Struct, gc=False):
    """What the reader keeps of a line; `parentUuid` is UNSET when the line has none."""

    type: Any = None
    uuid: Any = None
    parentUuid: Any = msgspec.UNSET
    logicalParentUuid: Any = None
    isSidechain: Any = None
    subtype: Any = None
    isCompactSummary: Any = None
    timestamp: Any = None
    message: Message | None = None
    isMeta: Any = None
    isApiErrorMessage: Any = None
    attachment: Any = None
    version: Any = None
    sessionId: Any = None
    agentId: Any = None
    cwd: Any = None
    compactMetadata: Any = None
    microcompactMetadata: Any = None
    trigger: Any = None
    origin: Any = None
    """Who put a user record in the conversation (2.x): `{"kind": "human"}` typed, `task-notification` a
    background agent's report, `peer` another process."""
    operation: Any = None
    """A queue-operation's `enqueue`, `dequeue` or `remove`."""
    content: Any = None
    """A queue-operation's message (a system record's text)."""
    planContent: Any = None
    """The plan an approved plan-mode session starts from: the harness writes the record ("Implement the
    following plan:") around the plan the agent wrote, so none of it is the user's words."""
    slug: Any = None
    """The session's name in words ("snazzy-frolicking-iverson"): plan mode's plan file is named for it."""
    tool_error: bool = False
    """`toolUseResult` marked the call failed: an "Error…" string, or an object with `is_error: true`."""
    exit_meaning: Any = None
    """`toolUseResult.returnCodeInterpretation`: how the harness read a non-zero exit status that is no error
    (grep's "No matches found")."""
    harness_error: bool = False
    """`toolUseResult` is a plain "Error…" string: the harness's word on the call (refused, or it failed),
    not a structured output the tool itself returned."""
    background_task: Any = None
    """`toolUseResult.backgroundTaskId`: the call's command went on in the background, as this task."""
    task: Any = None
    """`toolUseResult.task`: a task the result reports on (a background command's status, exit code, output)."""
    questions: Any = None
    """`toolUseResult.questions`: what a question tool asked, each question with the short label (`header`) it was
    shown under, the handle a summary lists its answer by ("Finding 5: Skip")."""
    fields: dict[str, Any] | None = None
    """Fields the reader does not know (slow path only), kept with the turn so nothing is lost."""


# The decoder's own type: the used fields as in `Record`, `toolUseResult` and every other known field as
# raw JSON that is skipped, never built; an unknown field makes it refuse the line. Raw values point into
# the line, so a kept record is copied into a `Record` (`slim`) and the line can be freed.
_Fast = msgspec.defstruct(
    "FastRecord",
    [(f.name, f.type, f.default) for f in msgspec.structs.fields(Record) if f.name in _USED]
    + [(name, msgspec.Raw, msgspec.UNSET) for name in sorted(KNOWN_FIELDS.difference(_USED))],
    forbid_unknown_fields=True,
    gc=False,
)
_DECODER = msgspec.json.Decoder(_Fast)
_USED_VALUES = attrgetter(*_USED)


class _ErrorFlag(msgspec.Struct, gc=False):
    is_error: Any = None
    returnCodeInterpretation: Any = None
    backgroundTaskId: Any = None
    task: Any = None
    questions: Any = None


_ERROR_FLAG = msgspec.json.Decoder(_ErrorFlag)


def decode_fast(raw: bytes | bytearray) -> Any:
    """The line as a fast record (read it like a `Record`), or None when it needs the exact path:
    an unknown field, a value of an unexpected type, invalid JSON, or nesting past the recursion limit."""
    try:
        return _DECODER.decode(raw)
    except (msgspec.MsgspecError, RecursionError):
        return None


def slim(fast: Any) -> Record:
    """A fast record as a `Record` that holds nothing of its line."""
    result = fast.toolUseResult
    harness = isinstance(result, msgspec.Raw) and memoryview(result)[:7].tobytes() == b'"Error:'
    structured = isinstance(result, msgspec.Raw) and memoryview(result)[:1].tobytes() == b"{"
    flags = _ERROR_FLAG.decode(result) if structured else None
    return Record(*_USED_VALUES(fast), tool_error=_raw_tool_error(result) if flags is None else flags.is_error is True,
                  exit_meaning=_exit_meaning(flags.returnCodeInterpretation if flags else None),
                  harness_error=harness, background_task=flags.backgroundTaskId if flags else None,
                  task=flags.task if flags else None, questions=flags.questions if flags else None)  # fmt: skip


def from_dict(data: dict[str, Any]) -> Record:
    """The same `Record` from a line decoded as a dict; unknown fields go to `fields`."""
    known = {k: v for k, v in data.items() if k in _USED_SET}
    message = known.get("message")
    if isinstance(message, dict):
        known["message"] = Message(message.get("role"), message.get("id"), message.get("content"))
    elif message is not None:
        known["message"] = None
    unknown = None if data.keys() <= KNOWN_FIELDS else {k: v for k, v in data.items() if k not in KNOWN_FIELDS}
    result = data.get("toolUseResult")
    meaning = _exit_meaning(result.get("returnCodeInterpretation")) if isinstance(result, dict) else None
    structured = result if isinstance(result, dict) else {}
    return Record(**known, tool_error=_tool_error(result), exit_meaning=meaning, harness_error=isinstance(result, str)
                  and result.startswith("Error:"), background_task=structured.get("backgroundTaskId"),
                  task=structured.get("task"), questions=structured.get("questions"), fields=unknown)  # fmt: skip


def _exit_meaning(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def has_parent_field(record: Any) -> bool:
    return record.parentUuid is not msgspec.UNSET


def parent_uuid(record: Any) -> Any:
    return None if record.parentUuid is msgspec.UNSET else record.parentUuid


def _raw_tool_error(value: Any) -> bool:
    if not isinstance(value, msgspec.Raw):
        return False
    head = memoryview(value)[:1].tobytes()
    if head == b"{":
        return _ERROR_FLAG.decode(value).is_error is True
    return head == b'"' and _tool_error(msgspec.json.decode(value))


def _tool_error(value: Any) -> bool:
    if isinstance(value, str):
        return value.startswith("Error")
    return isinstance(value, dict) and value.get("is_error") is True


_USED_SET = frozenset(_USED)


__all__ = ["Record", "decode_fast", "from_dict", "has_parent_field", "parent_uuid", "slim"]
