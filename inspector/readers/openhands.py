"""Reader for OpenHands V1 SDK conversations: a folder `<conversation>/events/event-NNNNN-<id>.json`.

The SDK's file store (`openhands/sdk/conversation/event_store.py`) writes one JSON event per file, named
by its index and id, with `kind` as the type. `MessageEvent`s hold the user's and the agent's words
(`llm_message`), `ActionEvent`s the tool calls, `ObservationEvent`s their results. A `Condensation`
event is a compaction: the events in `forgotten_event_ids` leave the model's view and `summary` (put back
at `summary_offset`) replaces them, so what the summary covers is exact. Events not forgotten stay in the
view verbatim; they are named in the generation's `kept_keys`. The view is recomputed from the events,
never re-listed, so there is no kept tail to de-duplicate.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from inspector.bounded_io import MAX_FOLDER_FILES, read_all, read_with_status
from inspector.errors import TraceReadError
from inspector.model import Severity, Trace
from inspector.raw_records import OwnFile
from inspector.readers.conservation import (
    COMPACTION,
    DUPLICATE,
    EMPTY,
    EVENT,
    INSTRUCTIONS,
    MALFORMED,
    METADATA,
    NOT_REGULAR,
    TOOL_CALL,
    TOOL_RESULT,
    TURN,
    UNKNOWN,
    UNREAD,
    Fate,
)
from inspector.readers.timeline import Compaction
from inspector.readers.transcript import Transcript
from inspector.readers.values import as_int, as_str, blocks_text, type_of
from inspector.text import counted

NAME = "openhands"
EVENTS_DIR = "events"
BASE_STATE = "base_state.json"
_EVENT_FILE = re.compile(r"^event-(?P<index>\d{5,})-(?P<id>[0-9A-Za-z\-]{8,})\.json$")
"""The SDK's EVENT_NAME_RE (persistence_const.py), widened to any id characters."""
MAX_EVENTS = MAX_FOLDER_FILES
"""More event files than any conversation holds: past it the folder is refused, not listed into memory."""

_DEFAULT_REJECTION = "User rejected the action"
"""UserRejectObservation's default reason: the harness's words, not the user's."""
_ECHOES = frozenset({"CondensationSummaryEvent", "StreamingDeltaEvent", "LLMCompletionLogEvent"})
"""Events that say again what another event holds: the summary its Condensation carries, a message's pieces, the
raw model call behind a message or action."""
_IGNORED = frozenset({"PauseEvent", "InterruptEvent", "ConversationStateUpdateEvent", "TokenEvent",
                      "SecurityAnalysisEvent", "HookExecutionEvent", "ACPToolCallEvent"})  # fmt: skip
"""Events the reader knows and reads nothing from: the conversation's state and bookkeeping."""
_OTHER_FILE = "(not named event-NNNNN-<id>.json)"


def _events_dir(path: Path) -> Path | None:
    """The `events` folder of a conversation folder, or the folder itself when it is one."""
    try:
        if path.is_symlink() or not path.is_dir():
            return None
        inner = path / EVENTS_DIR
        if inner.is_dir() and not inner.is_symlink():
            return inner
        return path if path.name == EVENTS_DIR else None
    except (OSError, ValueError):
        return None


def claims(path: Path) -> bool:
    """A conversation folder (or its `events` folder) holding at least one `event-NNNNN-<id>.json`."""
    folder = _events_dir(path)
    if folder is None:
        return False
    try:
        with os.scandir(folder) as entries:
            return any(_EVENT_FILE.match(entry.name) for entry in entries)
    except (OSError, ValueError):
        return False


def _not_regular(entry: os.DirEntry[str]) -> bool:
    """Is a folder entry other than a regular file, by its own status (lstat)? A link is never followed, since it may
    lead to any file outside the folder; a FIFO would block whoever opens it; a folder is no event."""
    return entry.is_symlink() or not entry.is_file(follow_symlinks=False)


@dataclass(slots=True)
class _Listing:
    """What the events folder holds under event-file names."""

    files: list[tuple[int, str, Path]] = field(default_factory=list)
    """The regular event files, in order."""
    others: int = 0
    """`event-*.json` names the SDK would not have written: not read, but counted."""
    refused: list[str] = field(default_factory=list)
    """Names of the entries named like event files that are not regular files: never opened."""


def _event_files(folder: Path) -> _Listing:
    """The event files in order, and what else the folder holds under event-file names."""
    listing = _Listing()
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                match = _EVENT_FILE.match(entry.name)
                if match:
                    if _not_regular(entry):
                        listing.refused.append(entry.name)
                    else:  # neither the folder (`_events_dir`) nor the entry is a link: the file is inside the folder
                        listing.files.append((int(match["index"]), match["id"], Path(entry.path)))
                    if len(listing.files) + len(listing.refused) > MAX_EVENTS:
                        raise TraceReadError(str(folder), f"more than {MAX_EVENTS:,} event files")
                elif entry.name.startswith("event-") and entry.name.endswith(".json"):
                    listing.others += 1
    except OSError as exc:
        raise TraceReadError(str(folder), f"cannot list: {exc.strerror or exc}") from None
    listing.files.sort(key=lambda item: item[0])
    return listing


class _Reader:
    def __init__(self, path: Path) -> None:
        folder = _events_dir(path)
        if folder is None:
            raise TraceReadError(str(path), "not an OpenHands conversation folder (no events/ folder of event files)")
        self.path = path
        self.folder = folder
        self.transcript = Transcript(path, NAME, unit="files")
        """Records are the event files and `base_state.json`."""
        self.turn_keys: dict[str, list[str]] = {}
        """Event id → the transcript keys its turns got (a forgotten id names them)."""
        self.forgotten: set[str] = set()
        self.requested = False
        self.instructions = 0
        self.malformed = 0

    def build(self) -> Trace:
        listing = _event_files(self.folder)
        if not listing.files:
            refused = len(listing.refused)
            why = f"; {counted(refused, 'entry', 'entries')} not a regular file, not read" if refused else ""
            raise TraceReadError(str(self.folder), f"no event files (event-NNNNN-<id>.json){why}")
        state = self._base_state()  # first: a refused base_state.json is named first in the notice
        records = self.transcript.records
        records.met(len(listing.files) + listing.others + len(listing.refused))
        records.aside(UNKNOWN, listing.others, _OTHER_FILE)
        for name in sorted(listing.refused):
            records.aside(NOT_REGULAR, label=name)
        for index, _event_id, file in listing.files:
            loaded = self._load(file)
            if loaded is None:
                records.count(MALFORMED)
                continue
            event, status = loaded
            self.transcript.place = OwnFile.read(str(file), status)  # the event's turns: shown as its file
            fate = self._event(index, file, event)
            records.count(fate, (as_str(event.get("kind")) or "(no kind)") if fate is UNKNOWN else None)
        extra: dict[str, Any] = {"events": len(listing.files), "malformed_events": self.malformed,
                                 "system_prompts": self.instructions}  # fmt: skip
        conversation = self.folder.parent.name if self.folder.name == EVENTS_DIR else self.folder.name
        trace_id = as_str(state.get("id")) or conversation
        title = as_str(state.get("title"))
        return self.transcript.build(trace_id, title, extra, stamps=())  # each event file carries its own

    def _base_state(self) -> dict[str, Any]:
        """The conversation's id and title, from its `base_state.json`: a record of the folder like an event file,
        read only when it is a regular file inside the folder, and counted whatever became of it."""
        home = self.folder.parent if self.folder.name == EVENTS_DIR else self.folder
        base = home / BASE_STATE
        try:
            mode = os.lstat(base).st_mode
        except OSError:
            return {}  # none: the SDK writes it, a copied events folder may not have it
        records = self.transcript.records
        records.met()
        if not stat.S_ISREG(mode) or not base.resolve().is_relative_to(home.resolve()):
            records.aside(NOT_REGULAR, label=BASE_STATE)
            return {}
        try:
            state = orjson.loads(read_all(base, follow_links=False))
        except TraceReadError as error:
            return self._bad_state(base, error.message)
        except orjson.JSONDecodeError as error:
            return self._bad_state(base, f"not JSON ({error})")
        if not isinstance(state, dict):
            return self._bad_state(base, "not a JSON object")
        records.read_as(METADATA)
        return state

    def _bad_state(self, base: Path, why: str) -> dict[str, Any]:
        self.transcript.records.aside(MALFORMED)
        self.transcript.notice("malformed-line", Severity.WARNING, f"{base}:1: {why}; the conversation's id and "
                               "title not read from it")  # fmt: skip
        return {}

    def _load(self, file: Path) -> tuple[dict[str, Any], os.stat_result] | None:
        """The event, and its file's status as it was read."""
        data, status = read_with_status(file, follow_links=False)  # a link swapped in since the listing: refused
        try:
            event = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            self._malformed(file, f"not JSON ({exc})")
            return None
        if not isinstance(event, dict):
            self._malformed(file, "not a JSON object")
            return None
        return event, status

    def _malformed(self, file: Path, why: str) -> None:
        self.malformed += 1
        self.transcript.notice("malformed-line", Severity.WARNING, f"{file}:1: {why}; event skipped")

    # -- events -----------------------------------------------------------------------------------

    def _event(self, index: int, file: Path, event: dict[str, Any]) -> Fate:
        kind = as_str(event.get("kind"))
        event_id = as_str(event.get("id")) or f"event-{index}"
        timestamp = as_str(event.get("timestamp"))
        if kind == "MessageEvent":
            return self._message(event_id, event, timestamp)
        if kind == "ActionEvent":
            self._action(event_id, event, timestamp)
            return TOOL_CALL
        if kind in ("ObservationEvent", "AgentErrorEvent", "UserRejectObservation"):
            self._observation(kind, event_id, event, timestamp)
            return TOOL_RESULT
        if kind == "Condensation":
            self._condensation(index, file, event_id, event, timestamp)
            return COMPACTION
        if kind == "CondensationRequest":
            self.requested = True
            self.transcript.event("condensation-request", "a condensation of the history was requested", timestamp)
            return EVENT
        if kind == "SystemPromptEvent":
            self.instructions += 1
            return INSTRUCTIONS
        if kind in _ECHOES:
            return DUPLICATE
        if kind in _IGNORED:
            return UNREAD
        self.transcript.unknown_types[kind or "(no kind)"] += 1
        return UNKNOWN

    def _remember(self, event_id: str, key: str) -> None:
        self.turn_keys.setdefault(event_id, []).append(key)

    def _message(self, event_id: str, event: dict[str, Any], timestamp: str | None) -> Fate:
        message = event.get("llm_message")
        message = message if isinstance(message, dict) else {}
        text = blocks_text(message.get("content"))
        if not text:
            return EMPTY
        role, source = message.get("role"), event.get("source")
        if role == "assistant" or source == "agent":
            turn = self.transcript.turn(event_id, "assistant", "assistant", text, timestamp)
        elif source == "user":
            turn = self.transcript.turn(event_id, "user", "user", text, timestamp)
        else:  # user-role text another component put in (a hook, a sub-agent): not the user's words
            turn = self.transcript.turn(event_id, "user", "harness", text, timestamp, source=as_str(source))
        self._remember(event_id, turn.key)
        return TURN

    def _action(self, event_id: str, event: dict[str, Any], timestamp: str | None) -> None:
        thought = blocks_text(event.get("thought"))
        if thought:
            self._remember(event_id, self.transcript.turn(f"{event_id}:thought", "assistant", "assistant",
                                                          thought, timestamp).key)  # fmt: skip
        call = event.get("tool_call") if isinstance(event.get("tool_call"), dict) else {}
        call_id = as_str(event.get("tool_call_id")) or as_str(call.get("id")) or event_id
        tool = as_str(event.get("tool_name")) or as_str(call.get("name")) or "tool"
        turn = self.transcript.tool_call(call_id, tool, _call_input(call, event.get("action")), timestamp)
        self._remember(event_id, turn.key)

    def _observation(self, kind: str, event_id: str, event: dict[str, Any], timestamp: str | None) -> None:
        call_id = as_str(event.get("tool_call_id"))
        if kind == "AgentErrorEvent":
            text, failed = as_str(event.get("error")) or "", True
        elif kind == "UserRejectObservation":
            reason = as_str(event.get("rejection_reason")) or _DEFAULT_REJECTION
            text, failed = f"Action rejected: {reason}", True
            if event.get("rejection_source", "user") == "user" and reason.strip() != _DEFAULT_REJECTION:
                # Words typed when rejecting a call are the user's, like a typed message.
                self._remember(event_id, self.transcript.turn(f"{event_id}:reason", "user", "user", reason,
                                                              timestamp).key)  # fmt: skip
        else:
            observation = event.get("observation") if isinstance(event.get("observation"), dict) else {}
            text = blocks_text(observation.get("content"))
            code = as_int(observation.get("exit_code"))
            failed = observation.get("is_error") is True or (code is not None and code not in (0, -1))
        turn = self.transcript.tool_result(call_id, event_id, text, is_error=failed, timestamp=timestamp)
        self._remember(event_id, turn.key)

    def _condensation(self, index: int, file: Path, event_id: str, event: dict[str, Any],
                      timestamp: str | None) -> None:  # fmt: skip
        ids = event.get("forgotten_event_ids")
        forgotten = [i for i in ids if isinstance(i, str)] if isinstance(ids, list) else []
        self.forgotten.update(forgotten)
        summary = as_str(event.get("summary"))
        kept = [key for eid, keys in self.turn_keys.items() if eid not in self.forgotten for key in keys]
        extra: dict[str, Any] = {
            "event_index": index,
            "event_id": event_id,
            "forgotten_events": len(forgotten),
            "forgotten_turns": sum(len(self.turn_keys.get(i, ())) for i in forgotten),
            "kept_keys": kept,
        }
        offset = as_int(event.get("summary_offset"))
        if offset is not None:
            extra["summary_offset"] = offset
        previous = [i.removesuffix("-summary") for i in forgotten if i.endswith("-summary")]
        if previous:
            extra["replaces_summary_of"] = previous
        if self.requested:
            extra["requested"] = True
            self.requested = False
        reason = None if summary and summary.strip() else (
            f"{file.name}: the condensation forgot {len(forgotten)} events without a summary")  # fmt: skip
        self.transcript.compaction(Compaction(
            text=summary if reason is None else None, line=index, timestamp=timestamp, unavailable=reason,
            extra=extra,
        ))  # fmt: skip


def _call_input(call: dict[str, Any], action: Any) -> Any:
    """The tool's arguments as the model sent them (JSON text decoded), else the parsed action."""
    arguments = call.get("arguments")
    if isinstance(arguments, str):
        try:
            decoded = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            return arguments
        if isinstance(decoded, dict):
            return _editor_input(as_str(call.get("name")), decoded)
        return decoded
    if isinstance(action, dict):
        return _editor_input(type_of(action) or as_str(action.get("kind")), {k: v for k, v in action.items()
                                                                            if k != "kind"})  # fmt: skip
    return {}


def _editor_input(tool: str | None, data: dict[str, Any]) -> dict[str, Any]:
    """The file editor's `command` is a sub-command (view, create, str_replace), not a shell command."""
    if tool and "editor" in tool.lower() and "command" in data and "path" in data:
        data = dict(data)
        data["operation"] = data.pop("command")
    return data


def read(path: Path) -> Trace:
    return _Reader(path).build()


__all__ = ["claims", "read"]
