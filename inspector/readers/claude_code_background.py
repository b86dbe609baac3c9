"""Shell commands Claude Code ran in the background, and how they ended.

A `Bash` call with `run_in_background` (or one the user sent to the background) returns at once: "Command running in
background with ID: b3b0f6f", its `toolUseResult.backgroundTaskId` the task. That result says nothing of how the
command ended, so it is no run of it: read as one, it was a clean run, and a clean run retires the failures before
it. The outcome comes later, in the harness's words: a `TaskOutput` (or `BashOutput`) result whose
`toolUseResult.task` holds the task's status, exit code and output, or a `<task-notification>` ("Background command
"Launch the orchestrator" failed with exit code 2"). The first report of a task's end is the command's run, at the
place the agent learnt it; a later one is the same outcome again.
"""

from __future__ import annotations

import re
from typing import Any

FINAL = frozenset(("completed", "failed", "killed"))
"""A background task's statuses once it has ended (`running` is none)."""
_NOTIFIED = re.compile(r"<task-id>\s*(?P<id>[^<\s]+)\s*</task-id>.*?<status>\s*(?P<status>\w+)\s*</status>", re.DOTALL)
_NOTIFIED_EXIT = re.compile(r"exit code (-?\d+)")
_SUMMARY = re.compile(r"<summary>\s*(?P<summary>.*?)\s*</summary>", re.DOTALL)


class BackgroundRuns:
    """The background commands of one log by task id, and which of them have been reported ended."""

    def __init__(self) -> None:
        self._commands: dict[str, str] = {}
        self._reported: set[str] = set()

    def started(self, task_id: Any, command: Any) -> bool:
        """Note a command sent to the background; whether it was one (a task id and a command)."""
        if not isinstance(task_id, str) or not task_id or not isinstance(command, str) or not command.strip():
            return False
        self._commands[task_id] = command
        return True

    def reported(self, task: Any) -> tuple[str, bool] | None:
        """A `toolUseResult.task` that reports a background command's end, the first time: (its command, whether it
        failed). None for a task still running, one not started here (a sub-agent's), or one reported already."""
        if not isinstance(task, dict) or task.get("task_type") not in (None, "local_bash"):
            return None
        status, code = task.get("status"), task.get("exitCode")
        return self._ended(task.get("task_id"), status, code if isinstance(code, int) else None)

    def notified(self, text: str) -> tuple[str, bool, str] | None:
        """A `<task-notification>` of a background command's end, the first report of it: (its command, whether it
        failed, what the harness says of it: 'Background command "Stop the service" failed with exit code 255')."""
        found = _NOTIFIED.search(text)
        if found is None:
            return None
        summary = _SUMMARY.search(text, found.end())
        said = summary.group("summary") if summary else text[found.start() :].strip()
        code = _NOTIFIED_EXIT.search(said)
        ended = self._ended(found.group("id"), found.group("status"), int(code.group(1)) if code else None)
        return (*ended, said) if ended else None

    def _ended(self, task_id: Any, status: Any, code: int | None) -> tuple[str, bool] | None:
        if not isinstance(task_id, str) or task_id not in self._commands or task_id in self._reported:
            return None
        if status not in FINAL:
            return None
        self._reported.add(task_id)
        return self._commands[task_id], status != "completed" or bool(code)


__all__ = ["FINAL", "BackgroundRuns"]
