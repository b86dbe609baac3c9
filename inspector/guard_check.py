"""What the guard says at a compaction: the check its child process runs (`work`), and the words the agent reads.

After a compaction (`AFTER`), what the new summary lost or weakened of what the user said, what the log shows done
or still owed that it dropped (the task's criteria, work set aside, commits and pull requests: `OWED_AFTER`), and the
claims the log contradicts (`restored_items`). Before one (`BEFORE`), the user's words that still stand, for the
summary to keep verbatim (`standing_items`). Before either, as soon as the log is read, what a cheap reading shows
(`cut_short_items`): the hook process gives that back if this check does not finish (`guard.run_hook`).
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shlex
import signal
import sys
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspector.authorship import said_by_user
from inspector.config import CLAUDE_CODE_CONTEXT_CHARS, CODEX_BYTES_PER_TOKEN, CODEX_CONTEXT_TOKENS
from inspector.guard import (
    AFTER,
    BEFORE,
    MAX_INPUT,
    MB,
    MEMORY_PER_BYTE,
    MEMORY_SETTING,
    SESSION_FIELD,
    record_pending,
)
from inspector.guard_options import MAX_TOKENS
from inspector.inert import visible
from inspector.model import PASTED_FOR, Finding, Generation, Invariant, InvariantKind, Severity, SourceRecord, Trace
from inspector.prompt_commands import is_command
from inspector.text import clip

if TYPE_CHECKING:
    from inspector.facts import TraceFacts
    from inspector.rule_registry import Rule

LOST_RULES = ("user-statement-lost", "invariant-lost")
WEAKENED_RULES = ("user-statement-weakened", "invariant-weakened")
CLAIMS_RESTORED = ("claim-contradicted", "refused-next-step")
"""The summary's own statements the guard gives back, each in its finding's words: what the log contradicts, and a
step that makes again a call the user refused."""
RESTORED_RULES = (*LOST_RULES, *WEAKENED_RULES, *CLAIMS_RESTORED)
"""What the guard gives back: the user's statements (in a native trace, its declared invariants) a summary
dropped or weakened, and claims the log contradicts. Warnings and notes stay in the inspector: the
agent's context is not a report."""


@dataclass(frozen=True, slots=True)
class Restored:
    """One thing given back, in the words the agent will read."""

    rule: str
    kind: str
    text: str
    source_key: str | None
    said_at: str | None
    position: int
    """Where its record sits in the log: newer first when the cap cuts."""
    by_user: bool
    """The record is the user's own turn (or answer, or rejection feedback)."""
    context: str | None = None
    """What a short reply answered, in the log's words: the option it picked, the question it replied to, the
    call the user stopped to say it."""
    instead: str | None = None
    """For a weakened item, the summary's sentence that carries it without its force: what the agent read instead."""
    branches: tuple[str, ...] = ()
    """For a series of commits: the branches git made them on, which the line names (where the work is)."""


def work() -> None:
    """The child `guard.run_hook` starts: limit itself, check the transcript, print one JSON line per message.

    Its own SIGALRM is left at the default action, which ends the process even inside a C call: should the
    parent be killed before it can kill the child, the child still ends half a second after the deadline."""
    job: dict[str, Any] = json.loads(sys.stdin.buffer.read(MAX_INPUT))
    transcript = Path(job["transcript_path"])
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.setitimer(signal.ITIMER_REAL, float(job["seconds"]) + 0.5)
    memory = int(job["memory"])
    _limit_memory(memory)
    held: list[object] = []  # what the check read, never freed here (`_end`)
    try:
        note = _check(transcript, int(job["max_tokens"]), str(job.get("event", AFTER)), job.get(SESSION_FIELD),
                      float(job["limit"]), held)  # fmt: skip
    except MemoryError:
        note = (f"MemoryError: its check needed more than its memory limit ({memory // MB} MB: {MEMORY_SETTING} "
                f"plus {MEMORY_PER_BYTE} bytes per transcript byte): {transcript}")  # fmt: skip
    except BaseException as error:  # noqa: BLE001 — whatever failed, the parent logs it and the session goes on
        note = f"{type(error).__name__}: {error}"
    if note:
        _send({"log": note})
    _end()


def _end() -> None:
    """End the child once all it says is out, without freeing what it read object by object: on a 100 MB log
    Python's teardown took 0.2 s, which the hook, and the agent behind it, waited out after the check was done.
    The system takes the memory back whole; every file the check wrote is closed by then."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _limit_memory(memory: int) -> None:
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        limit = memory if hard == resource.RLIM_INFINITY else min(memory, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, hard))
    except (ImportError, OSError, ValueError):
        pass  # no such limit here: the parent's clock still holds


def _check(transcript: Path, max_tokens: int, event: str, session: str | None, limit: float, held: list[object]
           ) -> str | None:  # fmt: skip
    """Load; send what the cheap reading gives, for the hook to print should this check not finish; analyse; send
    the manifest as soon as it exists, then say it is done and leave it for the review store: a line for the log, if
    any. Before a compaction, the list of what stands, recorded at the summary about to be written, so the app can
    show what the compactor was asked to keep beside what it kept."""
    from concurrent.futures import ThreadPoolExecutor

    from inspector import kept_readings
    from inspector.library import content_hash

    # The review store's key for the log, hashed beside the reading: hashing and reading a file release the GIL,
    # so where a core is free the hook no longer waits out the hash (0.14 s of a 100 MB log) after the reading.
    hashed = ThreadPoolExecutor(max_workers=1).submit(content_hash, transcript)
    trace, reached = kept_readings.load(transcript, session)
    held.extend((trace, reached))
    if event == BEFORE and hook_agent(trace) == "codex":
        return f"Codex's {BEFORE} hook takes no context; nothing printed: {transcript}"
    digest = hashed.result()
    newest = len(trace.generations) - 1
    if event == BEFORE or (newest >= 1 and trace.generations[newest].kind == "summary"):
        generation = newest + 1 if event == BEFORE else newest  # before: the summary about to be written
        text, listed = manifest(trace, generation, cut_short_items(trace), max_tokens, upcoming=event == BEFORE,
                                cut_short=limit)  # fmt: skip
        if text:
            _send({"fallback": text, "record": pending_fields(trace, digest, generation, listed, text, event)})
    if event == BEFORE:
        generation, standing = standing_items(trace)
        text, shown = manifest(trace, generation, standing, max_tokens, upcoming=True)
    else:
        generation, restored = restored_items(trace)
        text, shown = manifest(trace, generation, restored, max_tokens)
    if text:
        _send({"context": text})  # first: if recording outlives the clock, the agent still gets it
    _send({"done": True})
    logged = "; ".join(record_pending(pending_fields(trace, digest, generation, shown, text, event))) if text else None
    kept_readings.keep_detached(transcript, reached)  # the next compaction's reading, written while this one exits
    return logged


def _send(message: dict[str, str]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


OWED_AFTER = ("task-criterion-lost", "completed-actions-lost")
"""What the guard also gives back after a compaction, at their warning severity, in the log's words: the criteria of
the task the user set (dropped, it is never met) and the commits and pull requests the summary no longer names
(dropped, they are done again). So is work set aside and not restored (a `git stash`, `SET_ASIDE`): nothing else
the agent reads would show it that the work exists. Other open failures stay in the inspector: run again, a failure
shows itself, and one a summary calls fixed comes back as a contradicted claim."""
VETOED = ("refused-next-step",)
"""What the guard gives back after a compaction at any severity, as it does the words a user typed on stopping a
call: a step the summary leaves to do that makes a call the user refused. The refusal is the user's veto of that
call; told to make it, the next agent makes it again (ovid_cad3cdc9, fresh76: refused once before S1, S1 said push,
the agent pushed and was refused again). Once refused, it may have meant "not yet": the line says only what the
log shows, and the agent asks."""
OWED_RULES = ("open-failure-lost", "task-criterion-lost")
"""What the list before a compaction also names, at their warning severity: the failures still open and the task's
criteria, for the summary about to be written to carry. Not the actions done: the list is of what still stands."""


def restored_items(trace: Trace, owed: tuple[str, ...] = OWED_AFTER, *, gated: bool = True
                   ) -> tuple[int, list[Restored]]:  # fmt: skip
    """The newest summary's index and what it lost that the guard gives back: errors, and what the user typed
    at warning severity too (a wish the user voiced is theirs to have back as much as a rule), except a request
    ("create a draft PR please"): it may be done already, and given back it would be done twice; but a command whose
    turn had not ended (`prompt_commands`) is not done, and a summary that lost it is serious. Notes are never
    given back: among them a decision an earlier summary carried and a later one dropped ("Yes — apply all
    auto-fixes.", most often carried out). The `owed` rules' findings, and work set aside, are taken whatever their
    warning or error severity.

    `gated`: nothing, unless the summary lost something serious: an error, an owed item, or words the user typed
    on stopping a call (an agent that does not know the call was stopped runs it again: vsla_f67ab274's S2). A
    summary that dropped only wishes and asides ("I like the proposal wiring.", "That sounds good.") is one a
    careful reader calls faithful, and the guard does not interrupt the agent for it; once it speaks, those come
    back too."""
    newest = len(trace.generations) - 1
    if newest < 1 or trace.generations[newest].kind != "summary":
        return newest, []
    from inspector.analysis import analyze  # here, not at the top: the CLI builds its parser from this module
    from inspector.consequences import stopped_call

    analysis = analyze(trace, rules=guard_rules(owed), focus=newest)
    positions = analysis.facts.log_positions
    invariants = {track.invariant.id: track.invariant for track in analysis.facts.invariants}
    found, serious = [], False
    for finding in analysis.findings:
        if finding.generation != newest or finding.severity is Severity.INFO:
            continue
        if finding.rule in owed or finding.rule in VETOED or _set_aside(finding, invariants):
            found.append(_restored(finding, trace.sources, positions, invariants))
            serious = True
            continue
        if finding.rule == CORRUPTED:
            found.append(_corrupted(finding))
            serious = True
            continue
        if finding.rule not in RESTORED_RULES:
            continue
        in_flight = is_command(invariants.get(str(finding.evidence.get("invariant"))))
        if finding.severity is not Severity.ERROR and not in_flight and (
                not finding.rule.startswith("user-statement") or finding.evidence.get("kind") == "user-requirement"):
            continue  # fmt: skip
        restored = _restored(finding, trace.sources, positions, invariants)
        if finding.rule.startswith("user-statement") and not restored.by_user:
            continue  # only words the user typed are given back as the user's; the rest is not theirs to restore
        stopped = stopped_call(analysis.facts, restored.source_key) if restored.context is None else None
        vetoed = stopped is not None and restored.by_user
        if vetoed:  # said on stopping a call: that call is what it answers
            restored = replace(restored, context=f"the agent's `{clip(stopped.command, 120)}`, which the user stopped")
        found.append(restored)
        serious = serious or finding.severity is Severity.ERROR or vetoed or in_flight
    question = _question(analysis.facts, trace.generations[newest], positions)
    if question is not None:
        found.append(question)
        serious = True
    return newest, found if serious or not gated else []


CORRUPTED = "summary-text-corrupted"
"""The summary the agent resumed from holds text its harness pasted in as it stored it (`detectors.pasted`): the
guard says where, and what stood there, so the agent reads the code the summary quoted as its model wrote it."""


def _corrupted(finding: Finding) -> Restored:
    """Where the harness pasted text into the summary and what it replaced, addressed to the agent reading it."""
    places = finding.evidence.get("places")
    after = [str(place.get("after", "")) for place in places or () if isinstance(place, dict)]
    where = f" (after {', after '.join(f'“{_shown(text)}”' for text in after)})" if after else ""
    text = (f"Where it held “{PASTED_FOR}”{where}, Claude Code pasted in a copy of the summary's own analysis: read "
            f"“{PASTED_FOR}” there, and the copy as no part of the summary.")  # fmt: skip
    return Restored(CORRUPTED, "corrupted summary", text, None, None, -1, False)


QUESTION, QUESTION_LABEL = "question, asked last before the compaction and not answered", "question-unanswered"
"""The kind a guard line gives the user's last question when no word of the agent's followed it before the compaction
(`claim_evidence.unanswered`): after a summary that says nothing is left to do, which would have the next agent stop
with it dropped, or in the list before a compaction, for the summary to keep. And the label the store keeps in its
rule's place: the guard's own reading, which `check` does not report (the labelled contract, tests/test_quality.py,
has no room for it)."""


def _question(facts: TraceFacts, state: Generation, positions: dict[str, int]) -> Restored | None:
    """The user's unanswered question, in their words, with the summary's word that nothing is left (what the agent
    read instead)."""
    from inspector.claim_evidence import unanswered

    asked = unanswered(facts, state)
    if asked is None:
        return None
    claim, record, question = asked
    return Restored(QUESTION_LABEL, QUESTION, question, record.key, record.timestamp, positions.get(record.key, -1),
                    True, instead=claim.text if claim is not None else None)  # fmt: skip


def guard_rules(owed: tuple[str, ...] = OWED_AFTER) -> list[Rule]:
    """The rules whose findings the guard gives back (`RESTORED_RULES`, the `owed` ones, and work set aside, which
    `open-failure-lost` reports). It runs only these, focused on the newest summary: the same findings a full
    check makes there (tests/test_focus.py), without matching every item in each of a long session's summaries."""
    from inspector.rules import all_rules

    giving_back = {*RESTORED_RULES, *owed, "open-failure-lost", CORRUPTED}
    return [entry for entry in all_rules() if entry.id in giving_back]


def _set_aside(finding: Finding, invariants: dict[str, Invariant]) -> bool:
    invariant = invariants.get(str(finding.evidence.get("invariant")))
    return finding.rule == "open-failure-lost" and invariant is not None and invariant.kind is InvariantKind.SET_ASIDE


def standing_items(trace: Trace) -> tuple[int, list[Restored]]:
    """Before a compaction: what its summary must keep. That is what the guard would give back after a summary
    that kept nothing (`restored_items` against an empty summary covering the whole log), so the list before and
    the one after are one definition: the user's own words, items done, reversed or superseded since left out
    (their tracks are retired), a reply with what it answered; and, in the log's words, the failures still open and
    the task's criteria (`OWED_RULES`)."""
    last = trace.generations[-1]
    unwritten = Generation(len(trace.generations), "summary", "", parent=last.index,
                           covers=tuple(dict.fromkeys(record.key for record in trace.sources)))  # fmt: skip
    return restored_items(replace(trace, generations=(*trace.generations, unwritten)), OWED_RULES, gated=False)


def _restored(finding: Finding, sources: Sequence[SourceRecord], positions: dict[str, int],
              invariants: dict[str, Invariant]) -> Restored:  # fmt: skip
    """The item a finding is about, in the words it was stated in (the record's sentence), never the rule's."""
    from inspector.lead_rules import LEAD_PREFIX
    from inspector.list_selection import ENTRY_PREFIX  # here: only a check that ran has findings to restore
    from inspector.plan_checks import check_named
    from inspector.plan_steps import PLAN_PREFIX, made_name
    from inspector.statements import reply_to

    invariant = invariants.get(str(finding.evidence.get("invariant")))
    key = finding.source.key if finding.source is not None else invariant.source_key if invariant else None
    record = sources[positions[key]] if key in positions else None
    actions = finding.evidence.get("actions")
    if isinstance(actions, list) and actions:  # a series of commits and pull requests, each as git printed it
        text, kind = ACTIONS_JOIN.join(str(action) for action in actions), SERIES
    elif finding.rule in CLAIMS_RESTORED or invariant is None:
        text, kind = finding.message, "claim"
    elif invariant.id.startswith(ENTRY_PREFIX):  # the agent's entry, with the user's words that chose it
        text, kind = invariant.text, invariant.kind.value
    elif invariant.id.startswith(PLAN_PREFIX):  # the plan's line, and what no edit has written
        text = invariant.text
        kind = f"a step of the plan the user approved; no edit has written `{made_name(invariant)}`"
    elif (check := check_named(invariant.id)) is not None:  # the plan's line, and the command no run has made
        text = invariant.text
        kind = f"a check of the plan the user approved; no run has made `{check.command}`"
    elif is_command(invariant):  # typed by the user, in the harness's tags
        text, kind = invariant.text, IN_FLIGHT
    elif invariant.id.startswith(LEAD_PREFIX):  # the lead's brief, for this teammate to keep to
        text, kind = invariant.text, "a rule the team lead set"
    else:
        text = finding.source.quote if finding.source is not None else invariant.quote or invariant.text
        kind = invariant.kind.value
    when = record.timestamp if record is not None else None
    by_user = record is not None and (kind == IN_FLIGHT or said_by_user(record, text))
    context = reply_to(invariant, record) if invariant is not None and finding.rule not in CLAIMS_RESTORED else None
    instead = finding.excerpt if finding.rule in WEAKENED_RULES else None
    branches = finding.evidence.get("branches") if kind == SERIES else None
    return Restored(finding.rule, kind, text, key, when, positions.get(key, -1) if key else -1, by_user,
                    context, instead, tuple(map(str, branches)) if isinstance(branches, list) else ())  # fmt: skip


IN_FLIGHT = "command, the agent's turn answering it not ended"
"""The kind a guard line gives a command the user ran whose turn had not ended at the compaction (`prompt_commands`)."""


UPCOMING_HEAD = ("Compaction Inspector read this session's log: what follows still stands as far as the log shows "
                 "(nothing in it since reverses, supersedes or is known to finish it), the user's own words and what "
                 "the log shows still open. Keep each one in the summary verbatim, with when it was said and, for a "
                 "reply, what it answered:")  # fmt: skip
"""The head of the list before a compaction: addressed to the compactor, whose instructions it joins. "As far as the
log shows": an item is retired only by what the log can show (a later run, a lifting, an edit or commit carrying out
a request), so a request done in a way no record names still stands here, and the words say so."""
UPCOMING_REST = "the oldest, each in the session log at its record"
"""Where the items the list before a compaction left out are: the cut is from the oldest."""


def manifest(trace: Trace, generation: int, restored: list[Restored], max_tokens: int = MAX_TOKENS, *,
             upcoming: bool = False, cut_short: float | None = None) -> tuple[str, list[Restored]]:  # fmt: skip
    """What the agent reads, and the items it holds: the user's own words first (newest first), then what the log
    shows done or still owed, then contradicted claims, within the cap and within what the agent the guard runs in
    shows its model whole (`hook_agent`); what is left out is counted, by kind, in a last line. `upcoming`: the list
    before a compaction (`standing_items`), for a summary not yet written. `cut_short`: the time limit, for what the
    cheap reading found (`cut_short_items`), printed only when the full check does not finish within it.

    Every line is the user's wording or the log's, never a paraphrase, so the agent can weigh it
    against the summary itself. Trace text is spelled where it holds control or hidden characters.
    """
    if not restored:
        return "", []
    corrupted = [r for r in restored if r.rule == CORRUPTED]
    said = sorted((r for r in restored if r.rule not in CLAIMS_RESTORED and r.rule != CORRUPTED),
                  key=lambda r: (not r.by_user, -r.position, r.rule))  # fmt: skip
    claims = [r for r in restored if r.rule in CLAIMS_RESTORED]
    what = [part for part, present in (("dropped or weakened what was said", [r for r in said if r.by_user]),
                                       ("dropped what the log shows done or owed",
                                        [r for r in said if not r.by_user]),
                                       ("states what the log contradicts", claims),
                                       ("was corrupted as Claude Code stored it", corrupted)) if present]  # fmt: skip
    if cut_short is not None:
        head = CUT_SHORT_BEFORE.format(seconds=cut_short) if upcoming else CUT_SHORT_AFTER.format(
            seconds=cut_short, label=trace.generations[generation].label)  # fmt: skip
    else:
        repair = "".join(f" {item.text}" for item in corrupted)
        verbatim = " From the log, verbatim:" if said or claims else ""
        head = UPCOMING_HEAD if upcoming else (
            f"Compaction Inspector checked the summary you resumed from ({trace.generations[generation].label}) "
            f"against the session log: it {' and '.join(what)}.{repair}{verbatim}")  # fmt: skip
    entries = list(_lines(said, claims, judged=not upcoming and cut_short is None))
    rest = UPCOMING_REST if upcoming else f"{_check_command(trace)} lists them"
    shown = _fitting(head, entries, max_tokens * 4, hook_agent(trace), rest)
    if not shown and not (corrupted and _within(_cost(head), hook_agent(trace))):
        return "", []
    lines = [head, *(entry for _, entry in entries[:shown])]
    if shown < len(entries):
        lines.append(_left_out(Counter(_kind(item) for item, _ in entries[shown:]), rest))
    return "\n".join(lines), [*corrupted, *(item for item, _ in entries[:shown])]


CUT_SHORT_AFTER = ("Compaction Inspector ran out of time ({seconds:g} s) checking the summary you resumed from "
                   "({label}) against the session log, so it cannot say what the summary lost. What it read of the log "
                   "shows the user's own words below still standing (none of them reversed or superseded since); weigh "
                   "each against the summary. From the log, verbatim:")  # fmt: skip
"""The head of what a check cut short gives back after a compaction: it says it judged nothing, so the agent reads
the items as the user's words to weigh, not as losses."""
CUT_SHORT_BEFORE = ("Compaction Inspector ran out of time ({seconds:g} s) reading this session's log; what it read "
                    "shows the user's own words below still standing (none of them reversed or superseded since). "
                    "Keep each one in the summary verbatim, with when it was said and, for a reply, what it "
                    "answered:")  # fmt: skip
"""The head of the same before a compaction, addressed to the compactor."""
CUT_SHORT_RULE = "user-statement-standing"
"""What an item of a check cut short is, in the guard's log: the user's words, standing, not judged against a
summary."""


def cut_short_items(trace: Trace) -> list[Restored]:
    """What a cheap reading of the log shows still standing: the user's own words (`items.standing_said`), but not a
    request (it may be done already, and given back it would be done twice). No summary is matched and no shell
    line parsed: it is ready in a fraction of the full check, for the hook to give back if that does not finish."""
    from inspector.items import standing_said
    from inspector.statements import reply_to

    positions = {record.key: position for position, record in enumerate(trace.sources)}
    found = []
    for item in standing_said(trace.sources):
        if item.kind is InvariantKind.USER_REQUIREMENT or item.source_key not in positions:
            continue
        record = trace.sources[positions[item.source_key]]
        text = item.quote or item.text
        if said_by_user(record, text):
            found.append(Restored(CUT_SHORT_RULE, item.kind.value, text, item.source_key, record.timestamp,
                                  positions[item.source_key], True, reply_to(item, record)))  # fmt: skip
    return found


def hook_agent(trace: Trace) -> str | None:
    """The agent whose hook runs the guard, told by the transcript's own format (the reader that took it): a
    Claude Code session log is read in Claude Code's hook, a Codex rollout in Codex's. None for any other log,
    which is then kept within both agents' limits."""
    return trace.format if trace.format in ("claude-code", "codex") else None


@dataclass(frozen=True, slots=True)
class _Cost:
    """A text's length in each agent's own measure. Texts joined by a line break cost the sum of their costs
    and the break's: a break ends a word, so Codex's word count adds up too."""

    utf16: int
    """Claude Code's measure: JavaScript's string length, in UTF-16 code units."""
    utf8: int
    lexical: int
    """Codex's other measure: a token per word of up to four bytes (more for a longer one) and per punctuation
    mark (`CODEX_BYTES_PER_TOKEN`)."""

    def __add__(self, other: _Cost) -> _Cost:
        return _Cost(self.utf16 + other.utf16 + 1, self.utf8 + other.utf8 + 1, self.lexical + other.lexical)


_CODEX_WORD = re.compile(r"\w+|\S")
"""Codex's lexical units: a run of letters, digits and underscores, or any other character but whitespace."""


def _cost(text: str) -> _Cost:
    lexical = sum(-(-len(unit.encode("utf-8")) // CODEX_BYTES_PER_TOKEN) if unit[0].isalnum() or unit[0] == "_"
                  else 1 for unit in _CODEX_WORD.findall(text))  # fmt: skip
    return _Cost(len(text.encode("utf-16-le")) // 2, len(text.encode("utf-8")), lexical)


def _within(cost: _Cost, agent: str | None) -> bool:
    """Whether a context of this cost reaches the agent's model whole (`None`: both agents')."""
    claude = cost.utf16 <= CLAUDE_CODE_CONTEXT_CHARS
    codex = max(-(-cost.utf8 // CODEX_BYTES_PER_TOKEN), cost.lexical) <= CODEX_CONTEXT_TOKENS
    return claude if agent == "claude-code" else codex if agent == "codex" else claude and codex


def _fitting(head: str, entries: list[tuple[Restored, str]], cap: int, agent: str | None, where: str) -> int:
    """How many entries, from the first, fit: within `cap` characters with the head (the user's cap), and within
    the agent's limit together with the head and the line that counts the rest. The cut is from the end: nothing
    older gets in after a newer one was left out."""
    total, used, left = _cost(head), len(head), Counter(_kind(item) for item, _ in entries)
    for shown, (item, entry) in enumerate(entries):
        left[_kind(item)] -= 1
        with_entry = total + _cost(entry)
        still = +left  # the kinds still to come, none at zero
        whole = with_entry + _cost(_left_out(still, where)) if still else with_entry
        if used + len(entry) + 1 > cap or not _within(whole, agent):
            return shown
        total, used = with_entry, used + len(entry) + 1
    return len(entries)


def _kind(item: Restored) -> str:
    """What an item is, in the words of the line that counts what was left out."""
    return "claim" if item.rule in CLAIMS_RESTORED else item.kind.removeprefix("user-")


def _left_out(kinds: Counter[str], where: str) -> str:
    """The last line when not all fit: how many more, of which kinds (most first), and `where` they are (the
    command that lists them all), so the agent knows what it was not told and where to read it."""
    total = kinds.total()
    if len(kinds) == 1:
        [kind] = kinds
        what = f": {'an' if kind[0] in 'aeiou' else 'a'} {_named(kind, 1)}" if total == 1 else \
            f", all {_named(kind, total)}"  # fmt: skip
    else:
        named = [f"{count} {_named(kind, count)}" for kind, count in sorted(kinds.items(), key=lambda p: (-p[1], p[0]))]
        what = ": " + ", ".join(named[:-1]) + f" and {named[-1]}"
    return f"({total} more not shown{what}; {where}.)"


def _named(kind: str, count: int) -> str:
    """A kind's name for `count` of them: 'constraint', 'failed-approaches', 'claims the log contradicts'."""
    plural = "" if count == 1 else "es" if kind.endswith(("s", "x", "ch", "sh")) else "s"
    return f"{kind}{plural} the log contradicts" if kind == "claim" else f"{kind}{plural}"


def _check_command(trace: Trace) -> str:
    """The command that lists every finding of this transcript; without its path when the path is too long to be
    worth the agent's context (a path planted to crowd the items out)."""
    where = trace.path or trace.id
    if len(where) > 300:
        return "`compaction-inspector check` on this session's log"
    return f"`compaction-inspector check {visible(shlex.quote(where))}`"


def _lines(said: list[Restored], claims: list[Restored], *, judged: bool = True) -> Iterator[tuple[Restored, str]]:
    """One line per item: who said it and when, its kind, what the summary did to it (`judged`: there is a summary
    to judge), its record, its words and what a reply answered."""
    for item in said:
        when = f", {_when(item.said_at)}" if item.said_at else ""
        state = f", {'weakened' if item.rule in WEAKENED_RULES else 'lost'} in the summary" if judged else ""
        who = "The user said" if item.by_user else "The log says"
        kind = _series(item.text, item.branches) if item.kind == SERIES else item.kind.removeprefix("user-")
        record = f", record {_shown(item.source_key)}" if item.source_key else ""
        reply = f" (in reply to “{_shown(clip(item.context, 160))}”)" if item.context else ""
        instead = f"; the summary says instead: “{_shown(clip(item.instead, 240))}”" if judged and item.instead else ""
        yield item, f"- {who}{when} ({kind}{state}{record}): “{_shown(item.text)}”{reply}{instead}"
    for item in claims:
        yield item, f"- {_shown(item.text)}"


SERIES, ACTIONS_JOIN = "completed-actions", "; "
"""The kind of a series of commits and pull requests given back as one line, and what joins them on it."""


def _series(text: str, branches: tuple[str, ...] = ()) -> str:
    """What a line of actions holds, counted, with the branches its commits are on: '7 commits on feat/x and 1 pull
    request'."""
    actions = text.split(ACTIONS_JOIN)
    on = f" on {', '.join(_shown(branch) for branch in branches)}" if branches else ""
    counts = [(sum(a.startswith(prefix) for a in actions), name, where) for prefix, name, where in
              (("commit ", "commit", on), ("pull request ", "pull request", ""))]  # fmt: skip
    return " and ".join(f"{n} {name}{'s' if n > 1 else ''}{where}" for n, name, where in counts if n) or SERIES


def _shown(text: str) -> str:
    return visible(clip(" ".join(text.split()), 400))


def _when(timestamp: str) -> str:
    try:
        moment = datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except ValueError:
        return clip(timestamp, 40)
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment.tzinfo else moment.strftime("%Y-%m-%d %H:%M")


def pending_fields(trace: Trace, digest: str, generation: int, restored: list[Restored], text: str, event: str
                   ) -> dict[str, Any]:  # fmt: skip
    """What was given back (`event` AFTER) or listed for the compactor (BEFORE), as the review store takes it in
    (`guard_pending.write_pending`), so the app can show it."""
    items = [{"rule": r.rule, "kind": r.kind, "text": r.text, "source_key": r.source_key, "said_at": r.said_at}
             for r in restored]  # fmt: skip
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return {"session_id": trace.id, "generation": generation, "content_hash": digest, "created_at": now,
            "items": items, "text": text, "event": event}  # fmt: skip


__all__ = ["OWED_AFTER", "OWED_RULES", "Restored", "cut_short_items", "guard_rules", "manifest", "restored_items",
           "standing_items", "work"]
