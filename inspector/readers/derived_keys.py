"""Keys a session names outside its turns' text: files its tools read or edited, commands they ran.

A summary prints `src/db.py` or `make migrate` because a tool touched them; the log holds no record
with that key, only tool calls. Each such key becomes one derived source record, made once and kept in
the order the session first named it, so a printed path or command resolves to what happened to it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from inspector.model import SourceRecord
from inspector.readers.timeline import Turn
from inspector.text import clip
from inspector.tool_names import PATH_FIELDS, command_text, is_edit_tool

_PATCH_HEADER = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$", re.MULTILINE)
_ACTION = re.compile(
    r"\bgit\s+(?:-C\s+\S+\s+)?(?:commit|push|merge|tag|cherry-pick|rebase|revert)\b"
    r"|\bgh\s+(?:pr\s+(?:merge|create)|release\s+create)\b"
    r"|\b(?:deploy|kubectl\s+apply|terraform\s+apply|helm\s+(?:install|upgrade)|npm\s+publish|cargo\s+publish"
    r"|twine\s+upload|docker\s+push|fly\s+deploy|vercel\s+(?:deploy|--prod))\b"
)
"""A command that changes something outside the session (a commit, a push, a deploy): a completed action."""


@dataclass(slots=True)
class DerivedKey:
    """One file or command and everything the session did to it."""

    namespace: str
    key: str
    timestamp: str | None
    first_seen: str | None
    actions: list[str] = field(default_factory=list)
    outcomes: list[str] = field(default_factory=list)
    command: str | None = None
    action_command: bool = False

    def source_record(self) -> SourceRecord:
        extra: dict[str, Any] = {"actions": list(self.actions)}
        if self.first_seen:
            extra["first_seen"] = self.first_seen
        if self.namespace == "command":
            outcomes = list(dict.fromkeys(self.outcomes))
            done = self.action_command and "succeeded" in outcomes
            command = self.command or self.key
            text = f"{clip(command, 2000)} ({', then '.join(outcomes) or 'no result'})"
            return SourceRecord(key=self.key, text=text, namespace="command",
                                kind="completed-action" if done else "command", timestamp=self.timestamp,
                                authority="tool", extra={**extra, "outcomes": outcomes})  # fmt: skip
        acted = [a for a in self.actions if a != "mentioned"] or self.actions
        text = "; ".join(f"{action} {self.key}" for action in acted)
        kind = "file" if self.namespace == "file" else self.namespace
        return SourceRecord(key=self.key, text=text, namespace=self.namespace, kind=kind,
                            timestamp=self.timestamp, authority="tool", extra=extra)  # fmt: skip


class DerivedKeys:
    """The derived keys of one transcript, appended to its record order when first named."""

    def __init__(self, order: list[Any], seen: dict[str, None]) -> None:
        """`order` is the transcript's record order (turns and derived keys interleaved); `seen` its keys."""
        self.order = order
        self.seen = seen
        self.entries: dict[tuple[str, str], DerivedKey] = {}

    def add(self, namespace: str, key: str, action: str, timestamp: str | None, source: str | None) -> DerivedKey:
        entry = self.entries.get((namespace, key))
        if entry is None:
            entry = self.entries[(namespace, key)] = DerivedKey(namespace, key, timestamp, source)
            self.order.append(entry)
            self.seen.setdefault(key)
        if action not in entry.actions:
            entry.actions.append(action)
        return entry

    def from_call(self, call: Turn) -> None:
        """Files a tool read or edited and commands it ran, as keys a summary can print."""
        name = (call.tool or "").lower()
        data = call.tool_input
        editing = is_edit_tool(name)
        command: str | None = None
        patch: str | None = None
        if isinstance(data, dict):
            for name_field in PATH_FIELDS:
                value = data.get(name_field)
                if isinstance(value, str) and value.strip() and "\n" not in value:
                    self.add("file", value.strip(), "edit" if editing else "read", call.timestamp, call.key)
            command, patch = command_text(data.get("command", data.get("cmd")))
            for name_field in ("patch", "input"):
                value = data.get(name_field)
                if patch is None and isinstance(value, str) and "*** Begin Patch" in value:
                    patch = value
        elif isinstance(data, str) and "*** Begin Patch" in data:
            patch = data
        if command:
            entry = self.add("command", clip(" ".join(command.split()), 200), "run", call.timestamp, call.key)
            entry.command = entry.command or command
            entry.outcomes.append({True: "succeeded", False: "failed", None: "no result"}[call.ok])
            entry.action_command = entry.action_command or bool(_ACTION.search(command))
            if "*** Begin Patch" in command:
                patch = command
        if patch:
            for match in _PATCH_HEADER.finditer(patch):
                verb, path, moved = match.groups()
                target = (path or moved).strip()
                self.add("file", target, "delete" if verb == "Delete" else "edit", call.timestamp, call.key)


__all__ = ["DerivedKey", "DerivedKeys"]
