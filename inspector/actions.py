"""Actions: what the session did, by identity, and the user's requests its edits carried out.

A completed action is named by what identifies it: a commit by its sha and subject (read from `git commit`'s
output), a pull request by its number. A user's request that names a file is done once a later edit of that
file writes its topic: a summary that no longer carries it has lost nothing, so it is retired here rather
than reported. Constraints and corrections bind for the whole session and are never retired by an edit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace

from inspector.config import DEFAULT_CONFIG
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.presence import topic_terms
from inspector.text import clip, content_terms
from inspector.tool_names import is_edit_tool

_COMMIT = re.compile(r"^\[(detached HEAD|[^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.MULTILINE)
"""Git's line for a commit it made: `[branch sha] subject`, or `[detached HEAD sha] subject` for one made with no branch
checked out (a worktree at a pull request's head, jj's colocated repositories: raven_a4aae4ac's `1bb90e8`, the chartdb
commit its labels track, and tij_19512375's release commits were read as no commit at all)."""
_DETACHED = "detached HEAD"
_PULL = re.compile(r"https://github\.com/[\w.-]+/[\w.-]+/pull/(\d+)")
_TRAILERS = re.compile(r"(?:\s+[A-Z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)+:\s+\S.*?)+$")
"""Git trailers git printed on the subject line (`Co-Authored-By: …`, `Signed-off-by: …`, `Entire-Checkpoint:
f64a…`: a message with no blank line before them has them in its first paragraph): not what the commit did,
and their words would outweigh the subject's when the summary is searched for it."""


def action_items(records: Sequence[SourceRecord]) -> Iterator[Invariant]:
    """Completed actions with their identity: each commit by sha and subject, each pull request by number.

    A pull request merged in the session (`gh pr merge N`, which prints nothing), or set to merge (`--auto`), is one
    action, and the commits made before it are retired by it: squashed or merged, the branch's commits are now that
    merge, which is what a later summary must name (a reader calls a summary that names the merge and not each commit
    faithful).
    """
    commits: list[Invariant] = []
    for record in records:
        if record.namespace != TRANSCRIPT or record.kind != "tool_result":
            continue
        command = record.extra.get("command")
        if not isinstance(command, str):
            continue
        if re.search(r"\bgit\b.*\bcommit\b", command):
            made = _COMMIT.findall(record.text) or _logged(command, record.text)
            commits.extend(Invariant(f"completed-action:{record.key}:{sha}", InvariantKind.COMPLETED_ACTION,
                                     f"commit {sha} {clip(_TRAILERS.sub('', subject).strip(), 120)}",
                                     record.key, branch=None if branch in (_DETACHED, "") else branch)
                           for branch, sha, subject in made)  # fmt: skip
        if re.search(r"\bgh\s+pr\s+create\b", command):
            for number in dict.fromkeys(_PULL.findall(record.text)):
                yield Invariant(f"completed-action:{record.key}:pr{number}", InvariantKind.COMPLETED_ACTION,
                                f"pull request #{number} opened", record.key)  # fmt: skip
        merged = _MERGED.search(command)
        if merged:
            done = "set to merge once its checks pass" if _QUEUED.search(command) else "merged"
            yield Invariant(f"completed-action:{record.key}:merged{merged.group(1)}", InvariantKind.COMPLETED_ACTION,
                            f"pull request #{merged.group(1)} {done}", record.key)  # fmt: skip
            yield from (replace(commit, retired_by=record.key) for commit in commits)
            commits = []
    yield from commits


_LOG_LINE = re.compile(r"^([0-9a-f]{7,40})(?: \((?:HEAD -> ([^,)\s]+)[^)]*|[^)]*)\))? (\S.*)$", re.MULTILINE)
"""A line of `git log --oneline`: the short sha, git's decoration when asked for (`(HEAD -> next, origin/next)`, which
names the branch checked out), and the subject."""


def _logged(command: str, text: str) -> list[tuple[str, str, str]]:
    """The commits a quiet commit made (`git commit -q`, which prints nothing), as the `git log --oneline` run after it
    in the same command shows them: a line whose subject the command itself holds (the message it gave, `-m` or a
    heredoc) is a commit it made, and the log's other lines are older. Oldest first, as (branch or "", sha, subject)."""
    if not re.search(r"\bgit\s+log\b", command):
        return []
    made = [(branch, sha, subject) for sha, branch, subject in _LOG_LINE.findall(text) if subject.strip() in command]
    return made[::-1]


_MERGED = re.compile(r"\bgh\s+pr\s+merge\s+#?(\d+)\b")
"""A pull request merged by number (`gh pr merge 324 --squash`); a clean result is the merge."""
_QUEUED = re.compile(r"\bgh\s+pr\s+merge\b[^;&|\n]*\s--auto\b")
"""`gh pr merge --auto` merges nothing yet: it asks GitHub to merge once the required checks pass (gh's manual), and
a clean result says only that it was asked (raven_a4aae4ac, fresh73, queued #210 so and was told it had merged it).
Its commits are still the pull request's, which a summary names in their place, as for a merge."""


_NAMED_FILE = re.compile(
    r"\b(README|CHANGELOG|CONTRIBUTING|[\w-]+\.(?:md|rst|txt|py|go|rs|ts|tsx|js|json|toml|ya?ml))\b", re.IGNORECASE
)
"""A file a user's request names: 'documented in README', 'add it to config.go'."""
_DONE_KINDS = (InvariantKind.USER_REQUIREMENT, InvariantKind.USER_DECISION, InvariantKind.USER_PREFERENCE)
"""Requests a change can fulfil. Constraints and corrections bind for the whole session: never retired here."""
def done_by_edits(items: list[Invariant], records: Sequence[SourceRecord],
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


_ORDERING = re.compile(
    r"\b(?:(?:do|fix|handle|tackle|address|finish)\b[^.?!\n]{1,60}?\bfirst|(?:start|begin) (?:with|by))\b",
    re.IGNORECASE,
)
"""A request that orders the work ("let's do the mediums first", "start with the parser"): it says what comes next,
not how the session must go on, so once that work is done it has no more to say."""


def done_by_commits(items: list[Invariant], actions: Sequence[Invariant], order: dict[str, int]) -> Iterator[Invariant]:
    """Ordering requests retired by the first later commit whose subject names their topic.

    "let's do the mediums first." is carried out by `c2b0273 fix(explain): address medium severity PR feedback`; a
    later summary that no longer says which came first has lost nothing, and given back by the guard it would send
    the agent back to work already done. Only requests that order the work: a constraint or a standing requirement
    ("must default to off") binds whatever is committed, and shares words with many commits.
    """
    commits = [(order.get(a.source_key or "", 0), a) for a in actions if a.text.startswith("commit ")]
    for item in items:
        if item.kind not in _DONE_KINDS or item.retired_by or not _ORDERING.search(item.text):
            yield item
            continue
        topic = _roots(topic_terms(_ORDERING_WORDS.sub(" ", item.text)))
        since = order.get(item.source_key or "", 0)
        done = next((commit.source_key for at, commit in commits if at > since
                     and topic & _roots(topic_terms(commit.text.split(" ", 2)[-1]))), None)  # fmt: skip
        yield replace(item, retired_by=done) if done else item


_ORDERING_WORDS = re.compile(r"\b(?:first|start|begin|with|by)\b", re.IGNORECASE)
"""The ordering's own words, which say nothing of what the work is about."""


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


__all__ = ["action_items", "done_by_commits", "done_by_edits", "edit_written", "edited_path"]
