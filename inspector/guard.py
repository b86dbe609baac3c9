"""The guard: at the moment a session compacts, give the agent back what its new summary lost.

Claude Code (and Codex) run `compaction-inspector guard` as a `SessionStart` hook with the source
`compact`, right after writing the summary the agent resumes from. The guard reads the hook's JSON on
stdin, loads the transcript, checks the newest summary against the log it replaced, and prints, as
context for the agent, the user's own words the summary lost or weakened and the claims the log
contradicts. Nothing is printed when nothing was lost.

It must never harm the session it serves: whatever goes wrong (an unreadable transcript, an unknown
format, a timeout), it exits 0 with nothing printed and one line in `guard.log` in the data folder.
"""

from __future__ import annotations

import datetime
import json
import signal
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from inspector.authorship import said_by_user
from inspector.inert import visible
from inspector.model import Finding, Invariant, Severity, SourceRecord, Trace
from inspector.text import clip

LOST_RULES = ("user-statement-lost", "invariant-lost")
WEAKENED_RULES = ("user-statement-weakened", "invariant-weakened")
RESTORED_RULES = (*LOST_RULES, *WEAKENED_RULES, "claim-contradicted")
"""What the guard gives back: the user's statements (in a native trace, its declared invariants) a summary
dropped or weakened, and claims the log contradicts. Warnings and notes stay in the inspector: the
agent's context is not a report."""
MAX_TOKENS = 800
"""Default length cap of what is given back (about four characters a token)."""
TIME_LIMIT = 8
"""Seconds before the guard gives up: hook runners time hooks out (Claude Code's default is 60 s, ours 10 s)."""
MAX_INPUT = 1 << 20
"""Bytes of hook JSON read from stdin: the payload is a few hundred."""


@dataclass(frozen=True, slots=True)
class Restored:
    """One thing given back, in the words the agent will read."""

    rule: str
    kind: str
    text: str
    source_key: str | None
    said_at: str | None
    severity_order: int
    position: int
    by_user: bool
    """The record is the user's own turn (or answer, or rejection feedback)."""
    """Where its record sits in the log: newer first when the cap cuts."""


class GuardTimeout(Exception):
    pass


def run_hook(stdin: TextIO, stdout: TextIO, *, max_tokens: int = MAX_TOKENS, log: Path | None = None) -> int:
    """The hook: read its JSON, print the manifest (or nothing), exit 0 whatever happens."""
    previous = _arm_timer(TIME_LIMIT)
    try:
        request = json.loads(stdin.read(MAX_INPUT) or "{}")
        if not isinstance(request, dict):
            raise ValueError("the hook input is not a JSON object")
        if request.get("source") not in (None, "compact"):
            return 0  # startup, resume, clear: nothing was compacted
        transcript = request.get("transcript_path")
        if not isinstance(transcript, str) or not transcript:
            raise ValueError("the hook input names no transcript_path")
        from inspector.readers import load_trace

        trace = load_trace(Path(transcript).expanduser())
        generation, restored = restored_items(trace)
        text, shown = manifest(trace, generation, restored, max_tokens)
        if text:
            stdout.write(json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                            "additionalContext": text}}) + "\n")  # fmt: skip
            stdout.flush()
            _record(trace, Path(transcript).expanduser(), generation, shown, text, log)  # what the agent read
        return 0
    except BaseException as error:  # noqa: BLE001 — the session must go on, whatever failed here (a timeout too)
        _log(log, f"{type(error).__name__}: {error}")
        return 0
    finally:
        _disarm_timer(previous)


def restored_items(trace: Trace) -> tuple[int, list[Restored]]:
    """The newest summary's index and what it lost that the guard gives back (error severity only)."""
    newest = len(trace.generations) - 1
    if newest < 1 or trace.generations[newest].kind != "summary":
        return newest, []
    from inspector.analysis import analyze  # here, not at the top: the CLI builds its parser from this module

    analysis = analyze(trace)
    positions = analysis.facts.log_positions
    invariants = {track.invariant.id: track.invariant for track in analysis.facts.invariants}
    found = []
    for finding in analysis.findings:
        if finding.generation != newest or finding.rule not in RESTORED_RULES or finding.severity is not Severity.ERROR:
            continue
        restored = _restored(finding, trace.sources, positions, invariants)
        if finding.rule.startswith("user-statement") and not restored.by_user:
            continue  # only words the user typed are given back as the user's; the rest is not theirs to restore
        found.append(restored)
    return newest, found


def _restored(finding: Finding, sources: Sequence[SourceRecord], positions: dict[str, int],
              invariants: dict[str, Invariant]) -> Restored:  # fmt: skip
    """The item a finding is about, in the words it was stated in (the record's sentence), never the rule's."""
    invariant = invariants.get(str(finding.evidence.get("invariant")))
    key = finding.source.key if finding.source is not None else invariant.source_key if invariant else None
    record = sources[positions[key]] if key in positions else None
    if finding.rule == "claim-contradicted" or invariant is None:
        text, kind = finding.message, "claim"
    else:
        text = finding.source.quote if finding.source is not None else invariant.quote or invariant.text
        kind = invariant.kind.value
    order = 0 if finding.rule in LOST_RULES else 1 if finding.rule in WEAKENED_RULES else 2
    when = record.timestamp if record is not None else None
    by_user = record is not None and said_by_user(record, text)
    return Restored(finding.rule, kind, text, key, when, order, positions.get(key, -1) if key else -1, by_user)


def manifest(trace: Trace, generation: int, restored: list[Restored],
             max_tokens: int = MAX_TOKENS) -> tuple[str, list[Restored]]:  # fmt: skip
    """What the agent reads, and the items it holds: the user's own words first (newest first), then
    contradicted claims, within the cap; what the cap leaves out is counted in a last line.

    Every line is the user's wording or the log's, never a paraphrase, so the agent can weigh it
    against the summary itself. Trace text is spelled where it holds control or hidden characters.
    """
    if not restored:
        return "", []
    label = trace.generations[generation].label
    said = sorted((r for r in restored if r.rule != "claim-contradicted"), key=lambda r: (-r.position, r.rule))
    claims = [r for r in restored if r.rule == "claim-contradicted"]
    what = [part for part, present in (("dropped or weakened what was said", said),
                                       ("states what the log contradicts", claims)) if present]  # fmt: skip
    head = (f"Compaction Inspector checked the summary you resumed from ({label}) against the session log: "
            f"it {' and '.join(what)}. From the log, verbatim:")  # fmt: skip
    lines, shown, used, left_out = [head], [], len(head), 0
    for item, entry in _lines(said, claims):
        if left_out or used + len(entry) + 1 > max_tokens * 4:
            left_out += 1  # the cap cuts from the end: nothing older gets in after a newer one was left out
            continue
        lines.append(entry)
        shown.append(item)
        used += len(entry) + 1
    if left_out:
        lines.append(f"({left_out} more not shown: `compaction-inspector check {trace.path or trace.id}` lists them.)")
    return ("\n".join(lines), shown) if shown else ("", [])


def _lines(said: list[Restored], claims: list[Restored]) -> Iterator[tuple[Restored, str]]:
    for item in said:
        when = f", {_when(item.said_at)}" if item.said_at else ""
        state = "lost" if item.rule in LOST_RULES else "weakened"
        who = "The user said" if item.by_user else "The log says"
        kind = item.kind.removeprefix("user-")
        record = f", record {_shown(item.source_key)}" if item.source_key else ""
        yield item, f"- {who}{when} ({kind}, {state} in the summary{record}): “{_shown(item.text)}”"
    for item in claims:
        yield item, f"- {_shown(item.text)}"


def _shown(text: str) -> str:
    return visible(clip(" ".join(text.split()), 400))


def _when(timestamp: str) -> str:
    try:
        moment = datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return clip(timestamp, 40)
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment.tzinfo else moment.strftime("%Y-%m-%d %H:%M")


def _record(trace: Trace, path: Path, generation: int, restored: list[Restored], text: str, log: Path | None) -> None:
    """Keep what was given back in the review store, so the app can show it; a failure here is only logged."""
    try:
        from inspector.library import content_hash
        from inspector.store import open_store
        from inspector.store.guard_log import GuardInjection, RestoredItem

        items = tuple(RestoredItem(r.rule, r.kind, r.text, r.source_key, r.said_at) for r in restored)
        now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        injection = GuardInjection(trace.id, generation, content_hash(path), now, items, text)
        store = open_store()
        try:
            store.guard.record(injection)
        finally:
            store.close()
    except Exception as error:  # noqa: BLE001 — recording is a convenience; the agent already has the text
        _log(log, f"not recorded: {type(error).__name__}: {error}")


def _log(log: Path | None, message: str) -> None:
    """One line in the guard's log file; if even that fails, the session still goes on."""
    try:
        from inspector.library import data_dir

        target = log or data_dir() / "guard.log"
        target.parent.mkdir(parents=True, exist_ok=True)
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        with target.open("a", encoding="utf-8") as sink:
            sink.write(f"{stamp} {visible(' '.join(message.split()))[:500]}\n")
    except Exception:  # noqa: BLE001, S110
        pass


def _arm_timer(seconds: int) -> object:
    """SIGALRM after `seconds` on the main thread (the hook's case); elsewhere no timer."""
    if not hasattr(signal, "SIGALRM"):
        return None
    try:
        previous = signal.signal(signal.SIGALRM, _timed_out)
    except ValueError:  # not the main thread
        return None
    signal.alarm(seconds)
    return previous


def _disarm_timer(previous: object) -> None:
    if previous is None:
        return
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)  # type: ignore[arg-type]


def _timed_out(signum: int, frame: object) -> None:
    raise GuardTimeout(f"gave up after {TIME_LIMIT} s")


def main(max_tokens: int = MAX_TOKENS) -> int:
    return run_hook(sys.stdin, sys.stdout, max_tokens=max_tokens)


__all__ = ["MAX_TOKENS", "run_hook"]
