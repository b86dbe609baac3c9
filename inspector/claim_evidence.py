"""What the log says about a summary's claims: the runs, searches, figures and steps before its compaction.

Each function answers one question about the records a summary covers ("before") and, where a claim
can only be judged by what came next, the records after them. Verdicts are deliberately one-sided:
a claim is contradicted or unsupported only when the log leaves no reading under which it holds,
since a finding a careful reader would not agree with costs more than one missed.

The plainest of them is what a span of the log holds (`span_counts`: the user's messages and the failed runs
of the work), the yardstick for a summary's own counts of them.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from inspector.actions import edit_written, edited_path
from inspector.anchors import extract_anchors
from inspector.facts import TraceFacts
from inspector.last_answer import for_the_same
from inspector.model import TRANSCRIPT, Generation, SourceRecord
from inspector.presence import topic_terms
from inspector.printed_figures import PrintedFigures
from inspector.set_aside import stashes
from inspector.shell_runs import (
    TEST_RUN,
    VERIFYING,
    Failure,
    ShellRun,
    Step,
    about_subject,
    attempted,
    command_signature,
    failure_line,
    failures_before,
    git_arguments,
    is_failure,
    parse_steps,
    printed_nothing,
    shell_runs,
    step_signature,
    test_choices,
)
from inspector.statement_force import forbidding
from inspector.statements import statement_sentences
from inspector.summary_claims import (
    FAILURE_WORDS,
    FIGURE,
    NAMED,
    PASSING,
    PRE_EXISTING,
    Claim,
    confirmed,
    named_subjects,
    nothing_left,
)
from inspector.tool_names import is_edit_tool, is_subagent_tool

_PUSH = re.compile(r"\bgit\s+(?:-C\s+\S+\s+)?push\b")
_PUSH_REPORT = re.compile(r"^To \S+[ \t]*\n(?:[ \t]*!.*\n)*[ \t]*[+*]?[ \t]*(?:[0-9a-f]{7,40}\.\.\.?[0-9a-f]{7,40}|"
                          r"\[new (?:branch|tag)\])[ \t]+\S+[ \t]+->[ \t]+\S+", re.MULTILINE)  # fmt: skip
"""git's own report of a push, whatever command ran it (a helper script's `push`, a make target): "To <remote>",
then a ref it updated ("   a1b2c3d..e4f5a6b  main -> main", " * [new branch]  fix -> fix"), after any it rejected
("! [rejected]", which pushed nothing)."""
_PROSE = re.compile(r"\.(?:md|mdx|markdown|rst|txt|adoc)\Z", re.IGNORECASE)
"""A document's file: an edit there describes a fix (a reference page naming the new parameter), it makes none."""
_DIGITS_NAMED_COMMIT = re.compile(r"\bcommit(?:\s+sha)?\s+`?(\d{7,40})\b", re.IGNORECASE)
_SEARCH_TOOLS = frozenset({"WebSearch", "WebFetch", "web_search", "web_fetch", "browser", "fetch"})


@dataclass(frozen=True)
class Split:
    """A session log cut at one compaction: what the summary covers, and what came after."""

    before: Sequence[SourceRecord]
    after: Sequence[SourceRecord]
    runs: Sequence[ShellRun]
    """Shell runs before the cut, in log order."""
    runs_after: Sequence[ShellRun]
    cut: int
    """The place in the log of the last record before the cut (-1: none)."""
    facts: TraceFacts

    @property
    def figures(self) -> PrintedFigures:
        """The log's figures with their units, read once for every cut, and only once a claim has a figure."""
        return self.facts.printed_figures

    @cached_property
    def first_edit(self) -> int | None:
        """Where in `before` the agent's first edit of a file is (None: it made none): the log before it ran the code
        as the session found it."""
        return next((i for i, r in enumerate(self.before)
                     if r.kind == "tool_call" and is_edit_tool(r.extra.get("tool"))), None)  # fmt: skip

    @cached_property
    def reported_passing(self) -> SourceRecord | None:
        """The last report of a sub-agent before the cut that says its tests or build passed: the sub-agent ran them in
        a log of its own, so a summary relaying its word rests on that report (raven_b8cbf483's S1, "The 4 tests pass
        and `go build ./...` is clean", of the sub-agent that wrote the package and said "All 4 tests pass"). Asked by
        each passing claim of a summary with no check in the log, so read once."""
        return next((r for r in reversed(self.before) if r.kind == "tool_result"
                     and is_subagent_tool(r.extra.get("tool")) and PASSING.search(r.text)), None)  # fmt: skip

    @cached_property
    def changes_set_aside(self) -> bool:
        """A run before the cut ran the code without the session's changes (`_set_aside`): a fact of the cut, not of
        the claim asking, so worked out once for all the claims of its summary."""
        return _set_aside(self)

    @cached_property
    def called_old(self) -> bool:
        """The user said before the cut that a failure was old or flaky (`_KNOWN_FAILING`), in words they typed."""
        return any(r.kind == "user" and r.authority == "user" and any(
            _KNOWN_FAILING.search(s.text) for s in statement_sentences(r.text, r.author)) for r in self.before)

    @cached_property
    def failures(self) -> dict[str, Failure]:
        """Each failure of the runs before the cut, by its run's key, with what retired it before the cut: worked out
        once for the cut, not once for each claim of its summary (each costs the runs after it)."""
        return {failure.run.key: failure for failure in failures_before(self.facts.run_failures, len(self.runs))}


def split_at(facts: TraceFacts, state: Generation) -> Split:
    """The transcript records up to the last one `state` covers, and the rest.

    Covers are in log order, so the last cover is the cut; a state whose covers are not (a native
    trace may list them any way) is cut after the latest of them. Shell runs are read once per log, and
    each summary is cut once however many rules ask.
    """
    cached = facts.log_cuts.get(state.index)
    if cached is None:
        cached = facts.log_cuts[state.index] = _cut(facts, state)
    return cached


def _cut(facts: TraceFacts, state: Generation) -> Split:
    positions = facts.log_positions
    covers = state.covers
    if not covers:
        cut = -1
    elif covers[-1] in positions and positions.get(covers[0], -1) <= positions[covers[-1]]:
        cut = positions[covers[-1]]
    else:
        cut = max((positions[k] for k in covers if k in positions), default=-1)
    transcript, counted = facts.transcript
    split = counted[cut + 1]
    before, after = transcript[:split], transcript[split:]
    runs, places = facts.shell_runs, facts.run_places
    first_after = (bisect_right(places, cut) if places is not None
                   else next((i for i, run in enumerate(runs) if positions.get(run.key, -1) > cut), len(runs)))
    return Split(before, after, runs[:first_after], runs[first_after:], cut, facts)


_TESTS_CLAIMED = re.compile(r"\btests?\b|\btest suite\b", re.IGNORECASE)


def last_verifying_run(split: Split, claim: str = "", subjects: frozenset[str] | None = None) -> ShellRun | None:
    """The last run of a test, build or lint command before the compaction; with a claim, the last one about its
    subject: a test run for a claim about tests, and a run of what it names (`go test ./cmd/x` passes is not
    judged by a build of another package; `subjects`, when the caller knows better: what the list item it sits in
    names, `text.enclosing_item`). A claim naming nothing is about the whole run."""
    subjects = named_subjects(claim) if subjects is None else subjects
    tests = bool(_TESTS_CLAIMED.search(claim))
    index, limit = _checks_by_subject(split.facts.shell_runs), len(split.runs)
    found = [positions[at - 1] for key in ([(s, tests) for s in subjects] if subjects else [(None, tests)])
             if (at := bisect_left(positions := index.get(key, ()), limit))]  # fmt: skip
    return split.runs[max(found)] if found else None


@for_the_same
def _checks_by_subject(runs: Sequence[ShellRun]) -> dict[tuple[str | None, bool], tuple[int, ...]]:
    """Where the log's checks are (a test, build or lint run, `VERIFYING`), by each thing they are about
    (`ShellRun.subjects`; None: any) and whether only test runs are asked for: the last before a cut about what a claim
    names is then found by bisection, not by reading back through every run for each claim of each summary."""
    found: dict[tuple[str | None, bool], list[int]] = {}
    for position, run in enumerate(runs):
        if not (VERIFYING.search(run.ran) and run.signature):
            continue
        kinds = (False, True) if TEST_RUN.search(run.ran) else (False,)
        for subject in (None, *run.subjects):
            for tests in kinds:
                found.setdefault((subject, tests), []).append(position)
    return {key: tuple(positions) for key, positions in found.items()}


def still_open(run: ShellRun, split: Split) -> bool:
    """A broken run's failure is still open at the compaction: nothing before the cut retired it (its file
    removed, its code retried in another form and run clean; `shell_runs.RETIREMENTS`)."""
    failure = split.failures.get(run.key)
    return failure is None or failure.retired_by is None


def unchecked_edit(claim: str, split: Split) -> SourceRecord | None:
    """The edit a fix claim names, when nothing checked it before the compaction.

    The edit is the last one whose new text holds a name the claim puts in backticks (an edit that only
    removes the name is not the fix, and one to a document only describes it: no check reads prose). It is
    unchecked when the project has checks (a test, build or lint ran at some point before) and none ran after
    it: the fix was written, never built or tested. None
    when a check came after, or the claim names no edit.
    """
    names = [name for name in NAMED.findall(claim) if not name.isdigit()]
    checks = [i for i, r in enumerate(split.before) if r.kind in ("tool_result", "tool_error")
              and VERIFYING.search(str(r.extra.get("command") or ""))]  # fmt: skip
    if not names or not checks:
        return None
    for position in range(len(split.before) - 1, -1, -1):
        record = split.before[position]
        if record.kind == "tool_call" and is_edit_tool(record.extra.get("tool")) and not _PROSE.search(
            edited_path(record.text) or ""
        ) and any(name in edit_written(record.text) for name in names):
            return record if checks[-1] < position else None
    return None


def pushes(runs: Sequence[ShellRun], claim: str = "") -> list[ShellRun]:
    """The clean pushes among the runs; with a claim, those after the commit it names (the first run other than
    a push whose output printed its sha, as `git commit` does; a push prints the range it pushed): a push
    before that commit did not push it. A claim naming no commit the runs made is about any push."""
    shas = _shas(claim)
    made = next((i for i, run in enumerate(runs) if _made(shas, run)), -1)
    return [run for run in runs[made + 1 :] if _pushed(run) and run.clean]


def _pushed(run: ShellRun) -> bool:
    """Did the run push: `git push`, or a command whose output is git's report of a push (`_PUSH_REPORT`)?"""
    return bool(_PUSH.search(run.command) or "To " in run.output and _PUSH_REPORT.search(run.output))


def commit_made(claim: str, runs: Sequence[ShellRun]) -> str | None:
    """The sha a claim names that a run other than a push printed: the commit a push claim is about."""
    return next((sha for sha in _shas(claim) if any(_made([sha], run) for run in runs)), None)


def _made(shas: Sequence[str], run: ShellRun) -> bool:
    return not _pushed(run) and any(sha in run.output for sha in shas)


def _shas(claim: str) -> list[str]:
    """The commits a claim names: its commit anchors, and a sha of digits only where "commit" says it is one
    (one short sha in 27 has no letter, and the anchor pattern, which must not read every number as a commit,
    takes only hex runs with one)."""
    named = [a.key for a in extract_anchors(claim) if a.pattern == "commit"]
    return named + [m.group(1) for m in _DIGITS_NAMED_COMMIT.finditer(claim) if m.group(1) not in named]


def searched(split: Split, claim: str = "", share: float = 1.0) -> bool:
    """Did a web search or fetch before the compaction return a result naming what the claim says it confirmed
    (a call without a result, or a result about something else, confirms nothing)?

    A result names it when it holds every key of it (a path, a repository, a version): the key is what was
    confirmed, the words around it ("the correct repository is …") the summary's. With no key, at least
    `share` of its topic terms, each as written or as a stem's prefix ("repositori" in "repository").
    """
    results = [r.text.lower() for r in split.before
               if r.kind == "tool_result" and r.extra.get("tool") in _SEARCH_TOOLS and r.text.strip()]  # fmt: skip
    terms = topic_terms(confirmed(claim))
    keys = {t for t in terms if re.search(r"[\d./_]", t)}
    if keys:
        return any(all(k in text for k in keys) for text in results)
    return any(sum(t in text for t in terms) >= share * len(terms) for text in results)


def unprinted_figures(claim: str, split: Split) -> list[str]:
    """The figures of a result claim ('2.46×', '50-80%') that no tool printed before the compaction.

    A figure is printed when an earlier record holds the same number with its unit, equal once rounded or cut
    to the claim's precision: '21×' is printed by '21.3x', '26×' by '26.52x'. A range needs both bounds
    printed: a paper's own '3-5×' does not print '2-5x', and a bare '50' in a setup file prints no '50%'. The
    agent's own words count: an average it worked out from the runs' rows (vsla's '1.35× average speedup') is
    printed nowhere else. Empty when every figure is printed, or when the claim has none.
    """
    missing = []
    for match in FIGURE.finditer(claim):
        bounds = [b for b in (match.group("low"), match.group("high")) if b]
        if not all(split.figures.printed(bound, match.group("unit"), split.cut) for bound in bounds):
            missing.append(match.group())
    return missing


def finished_step(step: str, split: Split) -> ShellRun | None:
    """The run that already did a step naming a command: its last run before the compaction succeeded and
    nothing was edited after it. None when the step names no command, or the command still needs running, or a
    command it names after "then" does ("`git push -u origin feat/x` from the worktree, then `gh pr create`":
    portcli_bf44fc35's S1, pushed and not yet opened, was called a step already run)."""
    if _SCHEDULED.search(step):
        return None
    first, *then = _THEN.split(step)
    if any(_BACKTICKED.search(part) and _finished(part, split) is None for part in then):
        return None
    return _finished(first, split)


_THEN = re.compile(r"\bthen\b", re.IGNORECASE)


def _finished(step: str, split: Split) -> ShellRun | None:
    """`finished_step` of a step that names one command: its last run that reached what the step names, and chose no
    tests the step does not (`shell_runs.test_choices`)."""
    command = None if _reports_done(step) else _command_of(step)
    if command is None:
        return None
    wanted = command_signature(command)
    if not wanted:
        return None
    paths, chosen = _targets(parse_steps(command)), test_choices(command)
    last = next((run for run in reversed(split.runs) if run.signature == wanted and _covers(run, paths)
                 and test_choices(run.command) <= chosen), None)  # fmt: skip
    if last is None or not last.clean or found_nothing(last):
        return None
    keys = [r.key for r in split.before]
    after_run = split.before[keys.index(last.key) + 1 :]
    if any(r.kind == "tool_call" and is_edit_tool(r.extra.get("tool")) for r in after_run):
        return None
    return last


def refused_step(step: str, split: Split) -> tuple[ShellRun, int, int] | None:
    """The call a step would make that the user refused the last time the agent made it before the cut, with no word
    of theirs since that names it again; and how often the user refused it before the cut, and after it (what the
    next agent did with the step). ovid_cad3cdc9 (fresh76, labelled blind): the user refused the
    agent's `git push`, and S1 still leaves "Push updated commits to PR #18" to do; after S1 the agent pushed and was
    refused again, and S2, after "I have pushed.", leaves "Commit and push the `src-tauri/src/lib.rs` change".

    Only git's operations that record or publish work (`_RECORDING`) count: they last, and another agent's repeat of
    one the user refused is what the user meant to prevent; a test run the user refused (lightprotocol_3926665a's
    long CI suite) was most often refused for its time, and a step to run it later goes against nothing. A step
    names the operation by its own verb ("push", "commit"): git's subcommands are the words people write for them.
    A refusal in another repository than the session's (`cd ../documents && git commit …`, meow_f29a7049) is of a
    step that names that folder. A step that waits for something (`_SCHEDULED`) or reports its own work done names no
    call to make now."""
    runs, cut = split.facts.shell_runs, len(split.runs)
    refusals = _refused_runs(runs)
    before = refusals[: bisect_left(refusals, cut)]
    if not before or _SCHEDULED.search(step) or _reports_done(step):
        return None
    home = split.facts.trace.working_folder
    for at in reversed(before):
        run = runs[at]
        if not _in_named_folder(run, step, home):
            continue
        for operation in _operations(run):
            if not _names_git_verb(step, operation):
                continue
            again = any(operation in _operations(later) for later in runs[at + 1 : cut])
            if again or _named_since(run, operation[-1], split):
                continue  # attempted again since, or the user spoke of it again: the refusal is not their last word
            return run, _refusals(operation, runs, before), _refusals(operation, runs, refusals[len(before) :])
    return None


@for_the_same
def _refused_runs(runs: tuple[ShellRun, ...]) -> tuple[int, ...]:
    """Where in a log's runs the user refused a call: worked out once for every cut and step that asks."""
    return tuple(at for at, run in enumerate(runs) if run.user_refused)


def _refusals(operation: tuple[str, ...], runs: Sequence[ShellRun], refused: Sequence[int]) -> int:
    return sum(operation in _operations(runs[at]) for at in refused)


_RECORDING = frozenset({"commit", "push", "merge", "rebase", "cherry-pick"})
"""git's operations that record work in history or publish it, each named in a step by its own verb."""


def _operations(run: ShellRun) -> frozenset[tuple[str, ...]]:
    """What each step of a line does, by program and subcommand: `git commit -m x && git push` commits and pushes."""
    return frozenset(step_signature(s)[:2] for s in run.steps if s.words)


def _names_git_verb(step: str, operation: tuple[str, ...]) -> bool:
    return len(operation) == 2 and operation[0] == "git" and operation[1] in _RECORDING and re.search(
        rf"\b{re.escape(operation[1])}\b", step, re.IGNORECASE) is not None  # fmt: skip


def _in_named_folder(run: ShellRun, step: str, home: str | None) -> bool:
    """The run worked in the session's own folder (or one inside it), or the step names the folder outside it that the
    run moved to (`cd`, `git -C`)."""
    moved = [s.words[1] for s in run.steps if len(s.words) > 1 and s.words[0] == "cd"] + [
        s.words[i + 1] for s in run.steps if s.words[:1] == ("git",)
        for i, word in enumerate(s.words[:-1]) if word == "-C"]  # fmt: skip
    root = home.rstrip("/") + "/" if home else None
    away = [m.rstrip("/") for m in moved
            if m.startswith(("/", "~", "..")) and not (root and (m + "/").startswith(root))]  # fmt: skip
    return all(re.search(rf"\b{re.escape(folder.rsplit('/', 1)[-1])}\b", step, re.IGNORECASE)
               for folder in away if folder.rsplit("/", 1)[-1])  # fmt: skip


def _named_since(run: ShellRun, word: str, split: Split) -> bool:
    """Did the user, after the refused run and before the cut, type the operation's word again ("push it now"):
    then the step may be what they asked for since. Not in words that forbid it ("don't push until I review"),
    which refuse it once more."""
    keys = [r.key for r in split.before]
    after = split.before[keys.index(run.key) + 1 :] if run.key in keys else ()
    pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    return any(pattern.search(sentence.text) and not forbidding(sentence.text)
               for r in after if r.kind == "user" and r.authority == "user"
               for sentence in statement_sentences(r.text, r.author))  # fmt: skip


def _covers(run: ShellRun, wanted: list[str]) -> bool:
    """Did the run reach all the step's paths (`wanted`, `_targets`): each of them, or a folder above it, or the whole
    (no path)? `bin/rails test test/controllers/api/sandboxes_controller_test.rb` ran one file of the folder the step
    asks for ("Verify the full test suite passes: `bin/rails test test/controllers/api/` all 8 files together",
    sandcastle_ad79e67c's S1, where running them together was what hung)."""
    reached = _targets(run.steps)
    return not reached or all(any(path == at or path.startswith(at.rstrip("/") + "/") for at in reached)
                              for path in wanted)  # fmt: skip


def _targets(steps: Sequence[Step]) -> list[str]:
    """The paths a line's attempted step is given: its words with a slash or a file's extension, not options."""
    step = attempted(steps)
    words = step.words[1:] if step is not None else ()
    return [w for w in words if not w.startswith("-") and ("/" in w or _EXTENSION.search(w))]


_EXTENSION = re.compile(r"\.[A-Za-z]{1,5}$")
_DONE = re.compile(r"\b(?:complete|completed|done|finished)\b", re.IGNORECASE)
_CONDITION = re.compile(r"\b(?:once|when|after|until|if|before)\b[^,.;:()]*\Z", re.IGNORECASE)


_SCHEDULED = re.compile(r"\b(?:once|after|until|then|before)\b(?![^`]*`)|"
                        r"\b(?:if|when)\s+(?:any\s+)?(?:new|further|more)\b", re.IGNORECASE)  # fmt: skip
"""A step tied to work still to come, after the last command it names ("Run `npx tsc --noEmit` after the form dialog
translation round"): its command runs again once that work is done, whatever a run before it showed. Or a step
whose command leads into work still to do ("Run `mise ci` to verify, then open PR"): the step is not done until
that is, and its check is run again before it. Or one that waits for something new ("Possibly reply to/resolve further
bot review comments if new actionable ones appear (… reply via `gh api` …)"), wherever it says so: what it would act
on has not come yet."""


def _reports_done(step: str) -> bool:
    """A step that calls its own work done ("Task 3 (implementation complete, commit blocked): `ec decision
    verify-docs` gate"): the command it names is its subject, what is left is something else. "Run the release
    once the tests are done" is a condition, not a report."""
    return any(not _CONDITION.search(step[: m.start()]) for m in _DONE.finditer(step))


_SEARCHING = re.compile(r"\b(?:search|find|grep|list|query|lookup)\b|--grep\b")
"""A command that looks something up (`gh search code`, `gh pr list --search`, `npm search`)."""


def found_nothing(run: ShellRun) -> bool:
    """A search that came back empty: the harness read its status as "no matches", or it printed nothing. Its
    step is not done: what it looked for is still to be found."""
    return run.status_is_answer or bool(_SEARCHING.search(run.command)) and printed_nothing(run)


_BACKTICKED = re.compile(r"`([^`\n]{3,200})`")
_SHELL_LINE = re.compile(r"^(?:\$\s+)?(?:cd\s+\S+\s*&&\s*)?(?P<command>[\w./-]+(?:\s+\S+)*)$")


def _command_of(step: str) -> str | None:
    """The command a step names: in backticks, or the step line itself when it reads as a shell line."""
    quoted = _BACKTICKED.search(step)
    text = quoted.group(1) if quoted else step.strip().lstrip("-*• ").strip()
    if "&&" in text:
        text = text.split("&&")[-1].strip()  # "cd X && mise run test" is run as "mise run test"
    if not quoted and (" " not in text or not _SHELL_LINE.match(text) or text[:1].isupper()):
        return None  # prose ("Run the tests"), not a command line
    return text


_FAILING_LINE = re.compile(rf"{FAILURE_WORDS.pattern}|[✗✘×]", re.IGNORECASE)
"""A line of output that shows something failing: a failure's words as a claim says them (a runner's FAIL row, a panic,
a stack overflow, an error, a timeout, a crash), or a runner's cross. Read wide on purpose: the earlier a failure is
first seen, the likelier it was seen before the session changed anything, and the fewer pre-existing claims are
called unsupported."""
_KNOWN_FAILING = re.compile(rf"{PRE_EXISTING.pattern}|\bflak(?:y|e|iness)\b", re.IGNORECASE)
"""The user's own word that a failure is old or flaky: a claim repeating it is theirs, not the agent's guess."""
_SWITCHED = re.compile(r"^(?:Switched to (?:branch|a new branch) |HEAD is now at |Note: switching to |"
                       r"Preparing worktree )", re.MULTILINE)  # fmt: skip
"""Git's own line for a checkout, a reset or a worktree made."""
_BRANCH_MADE = frozenset(("-b", "-B", "-c", "-C", "--orphan"))
"""A checkout or switch that makes a new branch where the work is: the changes come along."""


def unbaselined(names: Sequence[str], split: Split) -> tuple[str, str, str] | None:
    """Of the names a claim calls a pre-existing failure of (`summary_claims.failure_names`, most specific first), the
    first the log shows failing, with the record that first showed it so, when nothing before the compaction shows it
    failing without the session's changes.

    It did when its first failing line came before the agent's first edit, or when a run set the changes aside (a
    stash that saved them, another branch or commit checked out, a worktree added), or the user said it was old or
    flaky. lightprotocol_a3ba6276's S1 calls three test failures "pre-existing, unrelated to changes": each first
    failed after the session's edits, and the one run that would have checked, `git stash && cargo test-sbf …`, was
    denied. The failure's name, and the key and line of the record that first showed it failing; None when no name
    is one the log shows failing, or something shows it old."""
    # The most specific name the log shows failing: `invoke_failing_test` over the package `system-test` beside it.
    first = next(((name, i, line) for name in names for i, r in enumerate(split.before)
                  if r.kind in ("tool_result", "tool_error") and name in r.text
                  for line in r.text.splitlines() if name in line and _FAILING_LINE.search(line)), None)  # fmt: skip
    if (first is None or split.first_edit is None or first[1] < split.first_edit or split.changes_set_aside
            or split.called_old):
        return None
    return first[0], split.before[first[1]].key, first[2].strip()


def _set_aside(split: Split) -> bool:
    """Did a run before the cut run the code without the session's changes: a stash that saved them, or another
    branch or commit checked out, a worktree added, the working tree restored or reset hard? A line whose status
    failed did so when git's own output says it switched: `git checkout main && cargo test` fails when the test
    fails on main, which is what shows the failure old."""
    return next(stashes(split.runs), None) is not None or any(
        _leaves_changes(git_arguments(step.words)) for run in split.runs
        if not run.slipped and (not run.failed or _SWITCHED.search(run.output))
        for step in run.steps if step.words[0].rsplit("/", 1)[-1] == "git")  # fmt: skip


def _leaves_changes(arguments: Sequence[str]) -> bool:
    """Does this git subcommand put the working tree where the session's changes are not?"""
    subcommand, rest = (arguments[0], set(arguments[1:])) if arguments else ("", set())
    if subcommand in ("checkout", "switch"):
        return not rest & _BRANCH_MADE
    return (subcommand == "worktree" and arguments[1:2] == ("add",) or subcommand == "reset" and "--hard" in rest
            or subcommand == "restore" and "--staged" not in rest)  # fmt: skip


def _open_question(split: Split) -> tuple[SourceRecord, str] | None:
    """The question the user's last message before the cut asks, when the agent said nothing after it before the cut:
    it was still looking when the compaction came (lightprotocol_3ad45457's "do we support ata decompression in this
    workflow?", answered by a sub-agent's report that reached the agent just before S2, and no word of it to the
    user). The question is the message's last typed sentence that ends with a question mark; a message that asks
    none, or was answered, leaves None."""
    for record in reversed(split.before):
        if record.namespace != TRANSCRIPT:
            continue
        if record.kind == "assistant" and record.text.strip():
            return None
        if record.kind == "user" and record.authority == "user":
            typed = [s.text.strip() for s in statement_sentences(record.text, record.author)]
            if typed:
                asked = [sentence for sentence in typed if sentence.endswith(("?", "？"))]
                return (record, asked[-1]) if asked else None
    return None


def unanswered(facts: TraceFacts, state: Generation) -> tuple[Claim | None, SourceRecord, str] | None:
    """The user's question left open at the compaction of `state` (`_open_question`), with the summary's word that
    nothing is left to do: the next agent stops with it dropped. A summary still to be written (no text: the list
    before a compaction) is owed it as it stands, with no word (None). What the guard gives back
    (`guard_check.QUESTION`)."""
    claim = nothing_left(facts.generations[state.index].status_claims) if state.text else None
    if state.text and claim is None:
        return None
    asked = _open_question(split_at(facts, state))
    return None if asked is None else (claim, *asked)


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


__all__ = ["SpanCounts", "Split", "commit_made", "finished_step", "found_nothing", "last_verifying_run", "pushes",
           "refused_step", "searched", "span_counts", "split_at", "still_open", "unanswered", "unbaselined",
           "unchecked_edit", "unprinted_figures"]  # fmt: skip
