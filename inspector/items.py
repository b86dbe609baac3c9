"""Items: what the next agent must still know at a compaction, centred on what the user said.

An item is one thing a careful reviewer says must survive every summary that covers it:

- a user's constraint, decision, requirement, preference or correction, mined from the user's own
  words only: typed prompts, answers given through a question tool, the feedback typed when
  rejecting a tool call. Pasted documents, logs, code, slash commands and shell-mode output are not
  statements, and a question is not a commitment;
- a failure still unresolved when the summary was written: a crash, or a build, test or install
  command whose failure nothing later retired (`inspector.shell_runs`);
- a completed action with its identity: a commit's sha, a pull request's number, a push.

Each item keeps the key of its record and the sentence there that states it, so a finding can quote
the log. Mining is by fixed rules over the log in order: the same log always gives the same items.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

from inspector.config import DEFAULT_CONFIG, Config
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.presence import item_terms_text, topic_terms
from inspector.set_aside import set_aside_items
from inspector.shell_runs import about_subject, failure_items, failure_line, is_failure, shell_runs
from inspector.statements import last_question, statement_sentences, user_items
from inspector.task_spec import criterion_items
from inspector.text import clip, content_terms
from inspector.tool_names import is_edit_tool

# --- actions done -------------------------------------------------------

_COMMIT = re.compile(r"^\[[^\]\s]+(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.MULTILINE)
_PULL = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/pull/(\d+)")


def action_items(records: Sequence[SourceRecord]) -> Iterator[Invariant]:
    """Completed actions with their identity: each commit by sha and subject, each pull request by number."""
    for record in records:
        if record.namespace != TRANSCRIPT or record.kind != "tool_result":
            continue
        command = record.extra.get("command")
        if not isinstance(command, str):
            continue
        if re.search(r"\bgit\b.*\bcommit\b", command):
            for sha, subject in _COMMIT.findall(record.text):
                yield Invariant(f"completed-action:{record.key}:{sha}", InvariantKind.COMPLETED_ACTION,
                                f"commit {sha} {clip(subject.strip(), 120)}", record.key)  # fmt: skip
        if re.search(r"\bgh\s+pr\s+create\b", command):
            for number in dict.fromkeys(_PULL.findall(record.text)):
                yield Invariant(f"completed-action:{record.key}:pr{number}", InvariantKind.COMPLETED_ACTION,
                                f"pull request #{number} opened", record.key)  # fmt: skip


_NAMED_FILE = re.compile(
    r"\b(README|CHANGELOG|CONTRIBUTING|[\w-]+\.(?:md|rst|txt|py|go|rs|ts|tsx|js|json|toml|ya?ml))\b", re.IGNORECASE
)
"""A file a user's request names: 'documented in README', 'add it to config.go'."""
_DONE_KINDS = (InvariantKind.USER_REQUIREMENT, InvariantKind.USER_DECISION, InvariantKind.USER_PREFERENCE)
"""Requests a change can fulfil. Constraints and corrections bind for the whole session: never retired here."""
def _done_by_edits(items: list[Invariant], records: Sequence[SourceRecord],
                   order: dict[str, int]) -> Iterator[Invariant]:  # fmt: skip
    """User requests that name a file, retired by the first later edit of that file writing their topic.

    "documented in README, note specific claude-only generation" is done once README.md is edited to
    say Claude-only: a summary that no longer carries it has not lost it. The edit must write one of
    the request's other topic terms, so an unrelated change to the same file retires nothing.
    """
    edits = [(order[r.key], r) for r in records if r.kind == "tool_call" and is_edit_tool(r.extra.get("tool"))]
    for item in items:
        named = {m.group(1).lower().rsplit(".", 1)[0] for m in _NAMED_FILE.finditer(item.text)}
        if item.kind not in _DONE_KINDS or not named or item.retired_by:
            yield item
            continue
        named_terms = named | content_terms(" ".join(named))  # 'README' is a term as its stem, 'readm'
        topic = {t for t in topic_terms(item.text) if t.rsplit(".", 1)[0] not in named_terms}
        since = order.get(item.source_key or "", 0)
        done = next((r.key for at, r in edits if at > since and _edits_file(r.text, named)
                     and _roots(topic) & _roots(topic_terms(edit_written(r.text)))), None)  # fmt: skip
        yield replace(item, retired_by=done) if done else item


def _roots(terms: Iterable[str]) -> set[str]:
    """Terms cut to `root_letters`, hyphenated ones split: 'claude-only generation' meets 'Claude … generated'."""
    cut = DEFAULT_CONFIG.root_letters
    return {part[:cut] for term in terms for part in term.split("-") if len(part) >= cut}


def _edits_file(call: str, stems: set[str]) -> bool:
    path = edited_path(call)
    return bool(path) and path.rsplit("/", 1)[-1].lower().rsplit(".", 1)[0] in stems


def edited_path(call: str) -> str | None:
    """The file an edit call's text names (its `file_path:` or `path:` line), or None."""
    line = next((line for line in call.splitlines() if line.startswith(("file_path:", "path:"))), None)
    return line.split(":", 1)[1].strip() or None if line else None


def edit_written(call: str) -> str:
    """The text an edit call writes: what follows `new_string:` (an Edit), else all of it (a Write, a patch)."""
    _, marker, new = call.partition("\nnew_string: ")
    return new if marker else call


def session_items(records: Iterable[SourceRecord], *, config: Config = DEFAULT_CONFIG) -> list[Invariant]:
    """Every item of a session log, in log order; the same wording twice is one item, the first."""
    records = list(records)
    found: list[Invariant] = []
    # The agent's last turn before a user statement, read for its question only when a statement follows:
    # most agent turns are followed by tool calls, and splitting each into sentences was most of this pass.
    before: str | None = None
    for record in records:
        if record.namespace != TRANSCRIPT:
            continue
        if record.kind == "assistant":
            before = record.text
        elif record.kind == "user" and record.authority == "user":
            asked = last_question(before, config=config) if before is not None else None
            found.extend(user_items(record, asked, before, config=config))
            before = None
    order = {record.key: position for position, record in enumerate(records)}
    found = list(_done_by_edits(found, records, order))
    found.extend(failure_items(records))
    found.extend(set_aside_items(records))
    found.extend(criterion_items(records))
    found.extend(action_items(records))
    found.sort(key=lambda item: order.get(item.source_key or "", 0))
    seen: set[str] = set()
    unique = []
    for item in found:
        wording = " ".join(sorted(topic_terms(item_terms_text(item)))) or item.text
        if wording not in seen:
            seen.add(wording)
            unique.append(item)
    return unique


# --- what a span of the log holds --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpanCounts:
    """What happened in the records one compaction summarised: the yardstick for a summary's claims about them."""

    user_messages: int
    failed_runs: int
    first_failure: str | None


def span_counts(records: Sequence[SourceRecord], subjects: frozenset[str] = frozenset()) -> SpanCounts:
    """User messages (typed, not harness text) and failed runs of the work (slips and exploration excluded); with
    `subjects`, only the failures about them (`shell_runs.about_subject`): "no errors in `x`" is about x alone."""
    users = sum(1 for r in records if r.namespace == TRANSCRIPT and r.kind == "user" and r.authority == "user"
                and next(statement_sentences(r.text, r.author), None) is not None)  # fmt: skip
    failed = [run for run in shell_runs(records) if is_failure(run)
              and about_subject(f"{run.command} {failure_line(run)}", subjects)]
    first = f"{' '.join(failed[0].signature)}: {failure_line(failed[0])}" if failed else None
    return SpanCounts(users, len(failed), first)


__all__ = ["action_items", "edit_written", "edited_path", "session_items", "span_counts"]
