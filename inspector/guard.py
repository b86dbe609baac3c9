"""The guard: at the moment a session compacts, give the agent back what its new summary lost.

Claude Code (and Codex) run `compaction-inspector guard` as a `SessionStart` hook with the source
`compact`, right after writing the summary the agent resumes from. The guard reads the hook's JSON on
stdin, loads the transcript, checks the newest summary against the log it replaced, and prints, as
context for the agent, the user's own words the summary lost or weakened, what the log shows done or still owed
that it dropped, and the claims the log contradicts (`guard_check`). Nothing is printed when nothing was lost, nor
when the summary dropped only wishes and asides.

Claude Code also runs it as a `PreCompact` hook, before the summary is written: there it prints, as plain
text that Claude Code adds to the compaction's custom instructions, the user's words that still stand, for
the summary to keep verbatim. opencode's plugin (`guard_opencode.js`, installed by `guard install --agent opencode`)
runs it the same way, naming opencode's database and the session compacting (`transcript_session_id`), and adds
what it prints to the compaction prompt.

It must never harm the session it serves: whatever goes wrong (an unreadable transcript, an unknown
format, a timeout), it exits 0 and writes one line in `guard.log` in the data folder. A hostile transcript can cost
more than its size inside a single C call (an SQLite row computed as it is read, a decompressor), where no Python
signal handler runs; so the check runs in a child process under a wall clock and a memory limit (`GuardLimits`),
and is killed when either runs out. It never goes silent for want of time: the child first says what a cheap
reading of the log already shows (the user's words that still stand), and when the full check is cut short or
fails, that is what the agent gets, headed by a line saying so.

This module is the hook's own process, which the agent waits for: it imports the standard library and nothing that
reads a trace, and what it printed goes to the review store later (`guard_pending`).
"""

from __future__ import annotations

import datetime
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from inspector.env_settings import positive_setting
from inspector.guard_options import MAX_TOKENS
from inspector.guard_pending import AFTER, BEFORE

MAX_INPUT = 1 << 20
"""Bytes of hook JSON read from stdin: the payload is a few hundred."""
# The two hook events (`AFTER`, `BEFORE`): Claude Code reads a SessionStart hook's context from JSON
# (`hookSpecificOutput.additionalContext`) and a PreCompact hook's plain stdout on exit 0, which it merges into the
# compaction's custom instructions (its `executePreCompactHooks`, quoted in lossless-claude/lcm#228). Codex's
# PreCompact takes no context (Yeachan-Heo/oh-my-codex#2217).
SESSION_FIELD = "transcript_session_id"
"""The hook input's field naming one session of a transcript file that holds several (opencode's database)."""
MB = 1 << 20
TIME_SETTING, MEMORY_SETTING = "INSPECTOR_GUARD_SECONDS", "INSPECTOR_GUARD_MB"


@dataclass(frozen=True, slots=True)
class GuardLimits:
    """What one run of the guard may cost the session it serves (settings `INSPECTOR_GUARD_SECONDS` and
    `INSPECTOR_GUARD_MB`). Past either, its check is killed and the session goes on."""

    seconds: float = 8.0
    """Wall clock from the hook's start to its answer. Install gives the hook 10 s, and a harness that kills a
    hook at its timeout leaves no line in our log: 8 s leaves time to stop the check and say why, and a 32 MB
    session takes under a second (bench/RESULTS.md)."""
    memory_mb: int = 192
    """The check's memory floor (MB of private writable memory, RLIMIT_DATA), to which MEMORY_PER_BYTE bytes
    per byte of the transcript are added. A 32 MB session's check needs 60 to 90 MB of it (it fails under a
    60 MB limit and passes under 90), so the floor alone holds any session of a few tens of MB, while a
    hostile file whose cost is not its size (a 227 KB database that unpacks to 10 GB) is stopped well under
    300 MB."""


MEMORY_PER_BYTE = 4
"""A session's analysis peaks under twice its file's size (bench/RESULTS.md: 1.63× on 105 MB): four bytes of
memory per transcript byte keep every big real session in without letting a small file take gigabytes."""
_WORKER = "from inspector.guard_check import work; work()"
"""The child's program. Run with `-P`: `-c` would otherwise put the current folder, the user's project (perhaps
someone else's repository), first on sys.path, and a folder named `inspector` there would run as the guard."""


class GuardTimeout(Exception):
    pass


@dataclass(slots=True)
class Said:
    """What the child said before it ended, one JSON line at a time (`guard_check.work`)."""

    context: str = ""
    """What the full check gives the agent; empty when it found nothing to say or did not finish."""
    fallback: str = ""
    """What the cheap reading gives instead, should the full check not finish: headed by a line that says so."""
    fallback_record: dict[str, Any] | None = None
    """The fallback's injection for the review store (`guard_pending`), written only if it is what was printed."""
    done: bool = False
    """The full check finished: whatever it printed (or did not) is its answer, and the fallback is not needed."""
    lines: list[str] = field(default_factory=list)
    """For the log."""


def run_hook(stdin: TextIO, stdout: TextIO, *, max_tokens: int = MAX_TOKENS, log: Path | None = None) -> int:
    """The hook: read its JSON, print the manifest (or nothing), exit 0 whatever happens.

    The check runs in a child process (`guard_check.work`) under `guard_limits()`; this process only reads the
    request, waits for the child until the wall clock runs out, passes on what it printed and writes the log."""
    started = time.monotonic()
    limits, problem = guard_limits()
    if problem:
        _log(log, problem)
    previous = _arm_timer(limits.seconds)  # a harness that never closes stdin: reading it is Python code
    try:
        request = _request(stdin.read(MAX_INPUT))
    except BaseException as error:  # noqa: BLE001 — the session must go on, whatever failed here (a timeout too)
        _log(log, f"{type(error).__name__}: {error}")
        return 0
    finally:
        _disarm_timer(previous)
    if request is None:
        return 0  # startup, resume, clear: nothing was compacted
    event, transcript, session = request
    try:
        said = _checked(transcript, session, event, max_tokens, limits, started + limits.seconds)
    except BaseException as error:  # noqa: BLE001 — no child, or it could not be waited for: still exit 0
        said = Said(lines=[f"{type(error).__name__}: {error}"])
    context = said.context
    if not context and not said.done and said.fallback:
        context = said.fallback
        said.lines.append(f"gave back what it had read of the log, its check cut short: {transcript}")
        if said.fallback_record is not None:
            said.lines.extend(record_pending(said.fallback_record))
    try:
        if context and event == BEFORE:
            stdout.write(context + "\n")  # plain text: the compactor's custom instructions
            stdout.flush()
        elif context:
            stdout.write(json.dumps({"hookSpecificOutput": {"hookEventName": AFTER,
                                                            "additionalContext": context}}) + "\n")  # fmt: skip
            stdout.flush()
    except BaseException as error:  # noqa: BLE001 — the harness closed our stdout
        said.lines.append(f"{type(error).__name__}: {error}")
    for line in said.lines:
        _log(log, line)
    return 0


def guard_limits() -> tuple[GuardLimits, str | None]:
    """The limits in force, and a line for the log when a setting is unusable (its default is used then)."""
    default, problems = GuardLimits(), []
    seconds = _setting(TIME_SETTING, default.seconds, problems)
    memory = _setting(MEMORY_SETTING, default.memory_mb, problems)
    return GuardLimits(seconds, int(memory)), "; ".join(problems) or None


def _setting(name: str, default: float, problems: list[str]) -> float:
    try:
        value = positive_setting(name)
    except ValueError:
        problems.append(f"{name}={os.environ[name].strip()!r} is not a positive number; used {default:g}")
        return default
    return default if value is None else value


def _request(raw: str) -> tuple[str, Path, str | None] | None:
    """The hook event (`AFTER` or `BEFORE`), the transcript a compaction's hook input names and its
    `transcript_session_id`, the session to read of a file that holds several (opencode's plugin names its database
    and the session compacting); None for another SessionStart source. Not the agents' `session_id`: Claude Code
    and Codex send their own, of a file that is that one session."""
    request = json.loads(raw or "{}")
    if not isinstance(request, dict):
        raise ValueError("the hook input is not a JSON object")
    event = BEFORE if request.get("hook_event_name") == BEFORE else AFTER
    if event == AFTER and request.get("source") not in (None, "compact"):
        return None
    transcript = request.get("transcript_path")
    if not isinstance(transcript, str) or not transcript:
        raise ValueError("the hook input names no transcript_path")
    session = request.get(SESSION_FIELD)
    return event, Path(transcript).expanduser(), session if isinstance(session, str) and session else None


def _checked(transcript: Path, session: str | None, event: str, max_tokens: int, limits: GuardLimits,
             deadline: float) -> Said:  # fmt: skip
    """Run the check in a child under the limits: what it said, with the lines for the log.

    The child is killed at the deadline whatever it is doing, and bounded in memory by RLIMIT_DATA, which
    counts the memory it can write to, not RLIMIT_AS, which counts address space reserved and never used:
    four threads' glibc arenas and stacks took VmSize to 232 MB for 89 MB of data (measured), so a limit
    on address space stops a check for memory it never uses. Where the kernel does not apply RLIMIT_DATA to
    mmap (Linux before 4.7, macOS), only the clock holds."""
    memory = limits.memory_mb * MB + MEMORY_PER_BYTE * _size(transcript)
    job = {"transcript_path": str(transcript), SESSION_FIELD: session, "event": event, "max_tokens": max_tokens,
           "memory": memory, "seconds": max(deadline - time.monotonic(), 0.0), "limit": limits.seconds}  # fmt: skip
    child = subprocess.Popen([sys.executable, "-P", "-c", _WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)  # fmt: skip
    try:
        out, err = child.communicate(json.dumps(job).encode(), timeout=job["seconds"])
    except subprocess.TimeoutExpired:
        child.kill()
        out, err = child.communicate(timeout=2)
        said = _said(out)
        said.lines.append(f"stopped its check after {limits.seconds:g} s (the time limit, {TIME_SETTING}): "
                          f"{transcript}")  # fmt: skip
        return said
    said = _said(out)
    if child.returncode < 0:
        name = signal.Signals(-child.returncode).name if -child.returncode in signal.valid_signals() else "a signal"
        said.lines.append(f"its check was ended by {name} (limits {limits.seconds:g} s, {memory // MB} MB): "
                          f"{transcript}")  # fmt: skip
    elif child.returncode > 0:
        last = (err.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        said.lines.append(f"its check exited with status {child.returncode} ({last}): {transcript}")
    return said


def _size(path: Path) -> int:
    try:
        return max(path.stat().st_size, 0)
    except (OSError, ValueError):
        return 0  # the child says why it cannot read it


def _said(out: bytes) -> Said:
    """The child's lines (one JSON object each). A line cut short by a kill is no JSON and is dropped, so the agent
    never reads half a manifest."""
    said = Said()
    for line in out.splitlines():
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict):
            continue
        if isinstance(message.get("context"), str):
            said.context = message["context"]
        elif isinstance(message.get("fallback"), str):
            said.fallback = message["fallback"]
            record = message.get("record")
            said.fallback_record = record if isinstance(record, dict) else None
        elif isinstance(message.get("log"), str):
            said.lines.append(message["log"])
        elif message.get("done") is True:
            said.done = True
    return said


def record_pending(record: dict[str, Any]) -> list[str]:
    """Leave what was printed for the review store (`guard_pending`), from the hook or from its check; a failure is a
    line for the log."""
    try:
        from inspector.guard_pending import write_pending

        write_pending(record)
    except Exception as error:  # noqa: BLE001 — recording is a convenience; the agent already has the text
        return [f"not recorded: {type(error).__name__}: {error}"]
    return []


def _log(log: Path | None, message: str) -> None:
    """One line in the guard's log file; if even that fails, the session still goes on."""
    try:
        from inspector.data_folder import data_dir
        from inspector.inert import visible

        target = log or data_dir() / "guard.log"
        target.parent.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with target.open("a", encoding="utf-8") as sink:
            sink.write(f"{stamp} {visible(' '.join(message.split()))[:500]}\n")
    except Exception:  # noqa: BLE001, S110
        pass


def _arm_timer(seconds: float) -> object:
    """SIGALRM after `seconds` on the main thread (the hook's case), for reading stdin; elsewhere no timer."""
    if not hasattr(signal, "SIGALRM"):
        return None
    try:
        previous = signal.signal(signal.SIGALRM, _timed_out)
    except ValueError:  # not the main thread
        return None
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return previous


def _disarm_timer(previous: object) -> None:
    if previous is None:
        return
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)  # type: ignore[arg-type]


def _timed_out(signum: int, frame: object) -> None:
    raise GuardTimeout("gave up waiting for the hook's input on stdin")


def main(max_tokens: int = MAX_TOKENS) -> int:
    return run_hook(sys.stdin, sys.stdout, max_tokens=max_tokens)


__all__ = ["AFTER", "BEFORE", "MAX_INPUT", "MB", "MEMORY_PER_BYTE", "MEMORY_SETTING", "SESSION_FIELD",
           "GuardLimits", "guard_limits", "main", "record_pending", "run_hook"]
