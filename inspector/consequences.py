"""What happened next: the agent that worked from a summary which lost an item, and what it then did.

A lost constraint matters because of what follows it. The log after a compaction records that, so each loss
is checked against the records the next agent produced while it worked from that summary (up to the next
compaction): the user saying it again (**restated**), a tool call doing what a prohibition forbade
(**violated**), the question tool asking what the user had answered (**re-asked**), a failed run tried again
and failing the same way (**retried**), a commit of the same change made again (**redone**). Each consequence
names the later record, so a finding shows both ends.

Only what the user typed can restate: the agent quoting the user back, a sub-agent's report, a later
summary and a paste are someone else's words (`statements.statement_sentences`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from rapidfuzz import fuzz

from inspector.actions import action_items, edited_path
from inspector.anchors import extract_anchors
from inspector.claim_evidence import split_at
from inspector.config import Config
from inspector.facts import InvariantTrack, TraceFacts
from inspector.invariants import PRESENT, IndexedText
from inspector.item_matching import ITEM_MATCHERS
from inspector.model import (
    TRANSCRIPT,
    USER_INTERRUPTED,
    USER_REFUSED,
    Consequence,
    ConsequenceKind,
    Finding,
    InvariantKind,
    Severity,
    SourceRecord,
)
from inspector.presence import topic_terms
from inspector.shell_runs import ShellRun, failure_line, is_failure
from inspector.statement_force import forbidding
from inspector.statements import USER_KINDS, statement_sentences
from inspector.text import clip
from inspector.tool_names import is_edit_tool, is_question_tool

_FAILURES = (InvariantKind.FAILURE, InvariantKind.FAILED_APPROACH)


@dataclass(frozen=True, slots=True)
class _Window:
    """What the agent did while it worked from one summary: the records after its compaction, up to the next."""

    records: Sequence[SourceRecord]
    runs: Sequence[ShellRun]


def consequence_of(facts: TraceFacts, track: InvariantTrack, k: int) -> Consequence | None:
    """The first thing the next agent did because summary `k` lost (or weakened) the item, if the log shows one."""
    item = track.invariant
    window = _window(facts, k, facts.log_positions.get(item.source_key or "", -1))
    if item.kind in USER_KINDS:
        return (_violated(item.text, window, k) or _run_again(facts, track, window, k)
                or _reasked(item.context, window, k, facts.config) or _restated(track, window, k, facts.config))
    if item.kind in _FAILURES:
        return _retried(facts, track, window, k, facts.config)
    if item.kind is InvariantKind.COMPLETED_ACTION:
        return _redone(item.text, window, k, facts.config)
    return None


def _window(facts: TraceFacts, k: int, since: int) -> _Window:
    """The records after summary `k`'s compaction and before the next one's, those after the item's own record
    (`since`, its log position) only: what the agent did while it worked from that summary, after the item."""
    summaries = [g.generation for g in facts.summaries()]
    here = next(g for g in summaries if g.index == k)
    split = split_at(facts, here)
    later = [g for g in summaries if g.index > k]
    records, runs = split.after, split.runs_after
    if later:
        until = split_at(facts, later[0])
        records = records[: max(len(until.before) - len(split.before), 0)]
        runs = runs[: max(len(until.runs) - len(split.runs), 0)]
    positions = facts.log_positions
    return _Window([r for r in records if positions.get(r.key, -1) > since],
                   [r for r in runs if positions.get(r.key, -1) > since])


def _restated(track: InvariantTrack, window: _Window, k: int, config: Config) -> Consequence | None:
    """The user says it again: a sentence they typed after the compaction that carries the item (its matcher
    finds it kept there). An item of fewer than `restated_min_terms` topic terms ("yes", "1") is not looked
    for: any later answer would restate it."""
    item = track.invariant
    if len(topic_terms(item.text)) < config.restated_min_terms:
        return None
    matcher = ITEM_MATCHERS[item.kind]
    named = _IDENTIFIER.findall(item.text)
    for record in window.records:
        if record.kind != "user" or record.authority != "user":
            continue
        typed = [s for s in statement_sentences(record.text, record.author)
                 if _says_again(s.text) and all(name in s.text for name in named)]  # fmt: skip
        if not typed:
            continue
        indexed = IndexedText(" ".join(s.text for s in typed))
        if matcher(item, indexed, config).status in PRESENT:
            said = next((s.text for s in typed if matcher(item, IndexedText(s.text), config).status in PRESENT),
                        typed[0].text)  # fmt: skip
            return Consequence(ConsequenceKind.RESTATED, record.key, clip(said, 300), k,
                               "the user said it again after the compaction")  # fmt: skip
    return None


_IDENTIFIER = re.compile(r"https?://\S+|\b\d{2,}\b")
"""What names one thing among its kind (an address, a number: pull request 70, not 71): a sentence that restates an
item holding one holds the same one, whatever other words they share."""
_REMINDER = re.compile(r"\b(?:i (?:said|say|told|asked|mentioned)|told you|again)\b", re.IGNORECASE)


def _says_again(sentence: str) -> bool:
    """A sentence that can restate: a statement, or a question that reminds ("didn't I say never push to main?").
    Another question asks something new ("do we just throw all the transcripts into the summariser?" after "summarise
    the checkpoint scope, not the entire transcript"), however many words it shares with the item."""
    return not sentence.rstrip().endswith("?") or bool(_REMINDER.search(sentence))


_CONDITIONAL = re.compile(r"\b(?:until|unless|before|without|yet|first|if|while)\b", re.IGNORECASE)
"""A prohibition that lapses ("don't push until the tests pass"): a later call may be what it waited for."""
_VERB_AFTER = re.compile(r"^\W*(?:(?:ever|please|you|we|again|to)\s+)*(\w+)\s*(.*)$", re.IGNORECASE | re.DOTALL)
_EDITING = frozenset({"edit", "touch", "modify", "change", "write", "overwrite", "update", "rewrite"})
"""Verbs whose object is a file: a later edit of that file does what was forbidden."""
_GIT_VERBS = frozenset({"push", "commit", "merge", "rebase"})
"""Verbs that are git subcommands: a later `git VERB` (naming the prohibition's object, when it names one)."""
_BRANCH_WORD = re.compile(r"\b(?:to|on|into|onto)\s+`?([\w./-]+)`?", re.IGNORECASE)


def _violated(text: str, window: _Window, k: int) -> Consequence | None:
    """A later tool call that does what the user's prohibition forbade: an edit of the file it names, or a git
    push, commit, merge or rebase (to the branch it names). A prohibition with a condition is not read."""
    forbids = forbidding(text)
    if forbids is None:
        return None
    clause = re.split(r"[.;!?](?:\s|\Z)|\n", text[forbids.end() :], maxsplit=1)[0]
    if _CONDITIONAL.search(clause):
        return None
    parsed = _VERB_AFTER.match(clause)
    if parsed is None:
        return None
    verb, rest = parsed.group(1).lower(), parsed.group(2)
    if verb in _EDITING:
        paths = [a.key.lstrip("./") for a in extract_anchors(rest) if a.pattern == "path"]
        for record in window.records:
            path = edited_path(record.text) if record.kind == "tool_call" and is_edit_tool(
                record.extra.get("tool")) else None  # fmt: skip
            if path and any(path == p or path.endswith("/" + p) for p in paths):
                return Consequence(ConsequenceKind.VIOLATED, record.key, clip(f"edited {path}", 300), k,
                                   f"the agent edited {clip(path, 120)}, which the user said not to {verb}")
        return None
    if verb in _GIT_VERBS:
        branch = _BRANCH_WORD.search(rest)
        for run in window.runs:
            words = run.command.split()
            if not re.search(rf"\bgit\s+(?:-C\s+\S+\s+)?{verb}\b", run.command) or not run.clean:
                continue
            if branch is None or branch.group(1) in words or any(w.endswith(":" + branch.group(1)) for w in words):
                return Consequence(ConsequenceKind.VIOLATED, run.key, clip(run.command, 300), k,
                                   f"the agent ran `{clip(run.command, 120)}`, which the user said not to do")
    return None


_USER_STOPS = frozenset({USER_REFUSED, USER_INTERRUPTED})
"""The slips a reader names when the user stopped a call (`extra["slip"]`): the user's own refusal of it."""


def _run_again(facts: TraceFacts, track: InvariantTrack, window: _Window, k: int) -> Consequence | None:
    """The command the user stopped, run again: the item was said on stopping a call (its words typed right after
    the stop, or the rejection's own feedback), and the agent working from the summary that lost it ran that
    command once more, every word of it."""
    stopped = stopped_call(facts, track.invariant.source_key)
    if stopped is None:
        return None
    words = set(stopped.command.split())
    for run in window.runs:
        if run.signature == stopped.signature and words <= set(run.command.split()):
            return Consequence(ConsequenceKind.VIOLATED, run.key, clip(run.command, 300), k,
                               f"the agent ran `{clip(run.command, 120)}` again, which the user had stopped")
    return None


def stopped_call(facts: TraceFacts, source_key: str | None) -> ShellRun | None:
    """The shell call the user stopped just before saying the item: back from its record over the user's own
    records and the stopped result, to the first record of the agent's."""
    position = facts.log_positions.get(source_key or "")
    if position is None:
        return None
    sources = facts.trace.sources
    for at in range(position, -1, -1):  # walked back in place: a slice of the log per item would copy it
        record = sources[at]
        if record.namespace != TRANSCRIPT:
            continue
        if record.kind in ("tool_result", "tool_error"):
            return facts.run_of(record.key) if record.extra.get("slip") in _USER_STOPS else None
        if record.authority != "user":
            return None
    return None


def _reasked(context: str | None, window: _Window, k: int, config: Config) -> Consequence | None:
    """The question tool asks again what the user answered: a later question whose words are the answered
    one's (`Config.reasked_similarity`)."""
    if not context:
        return None
    for record in window.records:
        if record.kind == "tool_call" and is_question_tool(record.extra.get("tool")) and (
            fuzz.token_set_ratio(context, record.text) >= config.reasked_similarity
        ):
            return Consequence(ConsequenceKind.REASKED, record.key, clip(record.text, 300), k,
                               "the agent asked again what the user had answered")  # fmt: skip
    return None


def _retried(facts: TraceFacts, track: InvariantTrack, window: _Window, k: int,
             config: Config) -> Consequence | None:  # fmt: skip
    """The same attempt run again after the compaction, failing with the same line
    (`Config.retried_similarity`): the next agent did not know it had failed. A slip counts when the lost item was
    one (`./benchmark.sh: No such file or directory`, run again from the same wrong folder): the same mistake made
    twice is what the summary should have prevented, though a slip alone is no failure of the work."""
    first = facts.run_of(track.invariant.source_key)
    if first is None:
        return None
    line = failure_line(first)
    for run in window.runs:
        if run.signature == first.signature and (is_failure(run) or run.slipped) and fuzz.ratio(
            failure_line(run), line) >= config.retried_similarity:  # fmt: skip
            return Consequence(ConsequenceKind.RETRIED, run.key, clip(f"{run.command}: {failure_line(run)}", 300),
                               k, "the agent ran it again and it failed the same way")  # fmt: skip
    return None


def _redone(text: str, window: _Window, k: int, config: Config) -> Consequence | None:
    """A commit of the same change made again: a later commit whose subject is the lost one's
    (`Config.redone_similarity`) under another sha."""
    if not text.startswith("commit "):
        return None
    sha, _, subject = text.removeprefix("commit ").partition(" ")
    for again in action_items(window.records):
        if not again.text.startswith("commit "):
            continue
        other_sha, _, other = again.text.removeprefix("commit ").partition(" ")
        if other_sha != sha and fuzz.ratio(subject.lower(), other.lower()) >= config.redone_similarity:
            return Consequence(ConsequenceKind.REDONE, again.source_key or "", clip(again.text, 300), k,
                               f"the agent committed the same change again as {other_sha}")  # fmt: skip
    return None


LOSS_RULES = frozenset({"user-statement-lost", "user-statement-weakened", "open-failure-lost",
                        "completed-actions-lost", "task-criterion-lost"})  # fmt: skip
"""The rules whose findings are a summary losing or weakening items: each is checked for what happened next."""


def with_consequences(facts: TraceFacts, findings: Sequence[Finding]) -> Iterator[Finding]:
    """Each finding, with the consequence of its loss where the log shows one; a loss with a consequence is an
    error whatever the confidence of its words, since the log shows it mattered."""
    if not facts.session_log:
        yield from findings
        return
    tracks = {t.invariant.id: t for t in facts.invariants}
    for finding in findings:
        if finding.rule not in LOSS_RULES or finding.generation is None:
            yield finding
            continue
        ids = finding.evidence.get("invariants") or [finding.evidence.get("invariant")]
        found = next((replace(c, invariant=i) for i in ids if i in tracks
                      if (c := consequence_of(facts, tracks[i], finding.generation)) is not None), None)  # fmt: skip
        yield finding if found is None else replace(finding, consequence=found, severity=Severity.ERROR)


__all__ = ["LOSS_RULES", "consequence_of", "stopped_call", "with_consequences"]
