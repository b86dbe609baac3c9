"""Item rules for session logs: what the user said, failures still open, and actions done.

These read the items `inspector.items` mines from a session log. Severity is confidence times
consequence: a user's constraint, decision, requirement, preference or correction gone from a summary
is an error; an open failure or a completed action that a summary no longer mentions is a warning. An
open failure a summary presents as fixed is a claim the log contradicts (`inspector.detectors.claims`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from inspector.config import Config
from inspector.facts import InvariantTrack, TraceFacts
from inspector.invariants import PRESENT, InvariantStatus
from inspector.lead_rules import LEAD_PREFIX
from inspector.list_selection import ENTRY_PREFIX
from inspector.model import Invariant, InvariantKind, Severity
from inspector.plan_checks import check_named
from inspector.plan_steps import PLAN_PREFIX, made_name
from inspector.prompt_commands import is_command
from inspector.rule_registry import Hit, rule
from inspector.statement_force import binding, standing
from inspector.statements import USER_KINDS, reply_to
from inspector.summary_claims import nothing_left, steps_heading
from inspector.text import counted, quoted

FAILURES = (InvariantKind.FAILURE, InvariantKind.FAILED_APPROACH, InvariantKind.SET_ASIDE)
"""Items owed until a later run ends them: failures of the work, and changes set aside (a `git stash`)."""


def owed(track: InvariantTrack) -> str:
    """How a finding names an owed item: an unresolved failure, or work set aside and not restored."""
    what = "work set aside" if track.invariant.kind is InvariantKind.SET_ASIDE else "unresolved failure"
    return f"{what} {quoted(track.invariant.text, 160)}"


def still(track: InvariantTrack, target: InvariantStatus, focus: int | None = None) -> Iterator[tuple[int, bool]]:
    """Every summary where the item is in `target` (the `focus` alone, when there is one), and whether it already
    was in the one before.

    Each summary is what the next agent works from: an item lost in S2 and still lost in S3 is missing
    from both, so both are reported (the second as "still").
    """
    if focus is not None:
        if focus > 0 and track.statuses[focus] is target:
            yield focus, track.status_before(focus, (InvariantStatus.UNKNOWN,)) is target
        return
    previous: InvariantStatus | None = None
    for k, status in enumerate(track.statuses):
        if status is target and k > 0:
            yield k, previous is target
        if status is not InvariantStatus.UNKNOWN:
            previous = status


def _user_said(track: InvariantTrack) -> str:
    """How a finding names a user's statement: its kind and words."""
    item = track.invariant
    return f"the user's {item.kind.value.removeprefix('user-')} {quoted(item.text, 160)}"


def session_tracks(facts: TraceFacts, kinds: frozenset[InvariantKind] | tuple[InvariantKind, ...]) -> list:
    """The mined items of these kinds: what the user said and what the runs left owed, in any trace. A trace's
    declared items have rules of their own (`inspector.detectors.invariants`)."""
    return [t for t in facts.invariants if t.invariant.kind in kinds and not t.invariant.declared]


@rule(
    "user-statement-lost",
    Severity.ERROR,
    "A constraint, decision, requirement, preference or correction the user stated is gone from a summary that "
    "covers it: the next agent will act as if it was never said. An error when the statement is a rule (a "
    "prohibition, an obligation, a correction, unhedged); a warning when it is a wish or a suggestion; a note when it "
    "is a request, a decision or a correction asking for a change that an earlier summary carried (one a summary "
    "drops after carrying it is most often done).",
)
def user_statement_lost(facts: TraceFacts) -> Iterator[Hit]:
    tracks = session_tracks(facts, USER_KINDS)
    chose_nothing: dict[int, bool] = {}
    for track in tracks:
        for k, again in still(track, InvariantStatus.LOST, facts.focus):
            item = track.invariant
            replied = reply_to(item, facts.trace.source(item.source_key or ""))
            answering = f" (in reply to {quoted(replied, 100)})" if replied else ""
            if is_command(item):
                answering = " (a command: the compaction came before the agent's turn answering it ended)"
            carrier = _dropped_by_choice(facts, tracks, track, k, chose_nothing)
            carried = (f" ({facts.generations[carrier].generation.label} carried it; {CARRIED_THEN_DROPPED[item.kind]})"
                       if carrier is not None else "")  # fmt: skip
            yield Hit(
                k,
                f"{_user_said(track)}{answering} is {'still ' if again else ''}gone from "
                f"{facts.generations[k].generation.label}{carried}",
                evidence={"invariant": item.id, "kind": item.kind.value} | ({"answering": replied} if replied else {})
                | ({"carried_by": carrier} if carrier is not None else {}),
                source=track.source_quote,
                severity=_lost_severity(item, carrier),
            )


def _lost_severity(item: Invariant, carrier: int | None) -> Severity | None:
    """A lost statement's severity: a note when a summary carried it and a later one dropped it (`_carrier`: most
    often done), the rule's error when it binds, else a warning."""
    if carrier is not None:
        return Severity.INFO
    return None if binding(item.text, item.kind is InvariantKind.CORRECTION) else Severity.WARNING


CARRIED_THEN_DROPPED = {
    InvariantKind.USER_REQUIREMENT: "a request a summary drops after carrying it is most often done",
    InvariantKind.USER_DECISION: "a decision a summary drops after carrying it is most often carried out",
    InvariantKind.CORRECTION: "a correction that asks for a change is most often made when a summary drops it",
}
"""The kinds a summary that carried them may drop by choice (`_carrier`), and what the finding says of it. A
correction or a decision only when it asks for a change: one that takes something out, forbids, declines a change,
decides against one or keeps something as it is stands after it was carried out (`statement_force.standing`)."""
_STANDS_WHEN_SO = frozenset({InvariantKind.CORRECTION, InvariantKind.USER_DECISION})
"""The kinds `statement_force.standing` is read for."""


def _dropped_by_choice(facts: TraceFacts, tracks: list[InvariantTrack], track: InvariantTrack, k: int,
                       chose_nothing: dict[int, bool]) -> int | None:  # fmt: skip
    """The summary that carried this request or decision before `k` (`_carrier`), unless the summary that dropped it
    after that collapsed (`collapse`) or holds no text (either cached in `chose_nothing` by summary): one that kept
    almost nothing of what was asked chose nothing, and its losses stand, in it and in every summary after it that
    still lacks them. The guard's list before a compaction (`guard_check.standing_items`) judges an empty summary not
    yet written: what the last summary carried still stands there."""
    item = track.invariant
    if not _droppable(item):
        return None  # before the chain is walked: most lost items are neither, and a long chain is long
    ancestors = _ancestors(facts, k)
    carrier = _carrier(track, ancestors)
    if carrier is None:
        return None
    after = [k, *ancestors[: ancestors.index(carrier)]]  # the summaries from `k` back to the carrier's child
    dropped = next(j for j in reversed(after) if track.statuses[j] is InvariantStatus.LOST)
    if dropped not in chose_nothing:  # no text at all: the guard's list before a summary is written judges an empty one
        generation = facts.generations[dropped].generation
        chose_nothing[dropped] = not generation.text.strip() or (
            generation.parent is not None and collapse(tracks, dropped, generation.parent, facts.config) is not None)
    return None if chose_nothing[dropped] else carrier


def _droppable(item: Invariant) -> bool:
    """Is this a statement a summary that carried it may later drop by choice (`CARRIED_THEN_DROPPED`): a request, or a
    correction or decision that asks for a change, not one that stands after it (`statement_force.standing`)?"""
    return item.kind in CARRIED_THEN_DROPPED and not (item.kind in _STANDS_WHEN_SO and standing(item.text))


def _ancestors(facts: TraceFacts, k: int) -> list[int]:
    """The summaries `k` was written from, its parent first: what the next agent's chain handed on to it."""
    found: list[int] = []
    parent = facts.generations[k].generation.parent
    while parent is not None and facts.generations[parent].is_summary:
        found.append(parent)
        parent = facts.generations[parent].generation.parent
    return found


def _carrier(track: InvariantTrack, ancestors: list[int]) -> int | None:
    """The nearest of `ancestors` that carried this request or decision (`CARRIED_THEN_DROPPED`: `_dropped_by_choice`
    asks only of those), or None when none did.

    A summary writer who had it before them and left it out most often left it because it was done: of the 33
    requirements the blind labels of 54 real sessions call carried by a summary and dropped by a later one, 30 are
    retired (done, shipped, merged; 17 sessions of 10 repositories) and 3 lost (one session, whose second summary kept
    2 of the 17 statements owed at it). A decision is most often an approval of one step ("Delete
    claude/merge-main-into-develop (#4).", "Yes — apply all auto-fixes.", "Rename to 'Dual'.") that the agent then
    takes: of the 15 decisions carried and then dropped outside that collapse, in 6 sessions of 6 repositories, the
    labels call 2 lost ("let's not archive mirror - still useful", "Blog post / writeup.") and the other 13 retired or
    no loss. The findings agree: against the blind labels of ../shared and of 16 fresh sets (74 sessions), 7 of the 33
    requests and decisions reported carried and then dropped are losses and 26 are not. Whether this one was done
    takes reading the log after it, so its loss is a note, for a reader who reads the log anyway, not a warning that
    cries wolf four times in five; and the guard does not give it back (given back, done work is done twice). A
    correction that asks for a change is a request for it ("instead it should say underneath type git add",
    planetfall_88508f41: made and committed before S1 carried it, retired at S2 by its blind label). A constraint or
    a preference binds after the work it was said about, as does a correction that takes something out or forbids
    ("no remove this again, the risk someone assumes it's a stable link is to big", entirecli_6113e919: lost at S2
    and S3 by its label), and what no summary ever carried was never handed on: those keep their severity, as does
    what a collapse dropped (`_dropped_by_choice`)."""
    for j in ancestors:
        status = track.statuses[j]
        if status in PRESENT:
            return j
        if status is InvariantStatus.NOT_INTRODUCED:
            return None
    return None


@rule(
    "user-statement-weakened",
    Severity.ERROR,
    "A user's prohibition survives in a summary without its force: the topic is there, the 'never' is not. A "
    "warning when the prohibition was a wish or held only for now.",
)
def user_statement_weakened(facts: TraceFacts) -> Iterator[Hit]:
    for track in session_tracks(facts, USER_KINDS):
        for k, again in still(track, InvariantStatus.WEAKENED, facts.focus):
            match = track.matches[k]
            yield Hit(
                k,
                f"{_user_said(track)} is {'still ' if again else ''}weakened in "
                f"{facts.generations[k].generation.label} ({match.reason})",
                match.start,
                match.end,
                {"invariant": track.invariant.id, "reason": match.reason},
                source=track.source_quote,
                severity=None if binding(track.invariant.text, track.invariant.kind is InvariantKind.CORRECTION)
                else Severity.WARNING,
            )


@rule(
    "open-failure-lost",
    Severity.WARNING,
    "A failure still unresolved at the compaction is not mentioned: the next agent may retry what failed, or "
    "believe it works.",
)
def open_failure_lost(facts: TraceFacts) -> Iterator[Hit]:
    yield from _not_in(facts, FAILURES, owed)


def _not_in(facts: TraceFacts, kinds: tuple[InvariantKind, ...], named: Callable[[InvariantTrack], str]
            ) -> Iterator[Hit]:  # fmt: skip
    """Each summary an item of these kinds is lost from, named as `named` says ("still" after the first)."""
    for track in session_tracks(facts, kinds):
        for k, again in still(track, InvariantStatus.LOST, facts.focus):
            yield Hit(k, f"{named(track)} is {'still ' if again else ''}not in {facts.generations[k].generation.label}",
                      evidence={"invariant": track.invariant.id}, source=track.source_quote)  # fmt: skip


@rule(
    "task-criterion-lost",
    Severity.WARNING,
    "An acceptance criterion of the issue the user set the agent on, a rule an agent team's lead set it, a step or "
    "check of the plan the user approved "
    "that nothing has made yet, or an entry the user chose from the agent's list and no tool call has acted on, is in "
    "no summary that covers it, neither by its label, name or command nor by what it asks: the next agent may call "
    "the task done without it.",
)
def task_criterion_lost(facts: TraceFacts) -> Iterator[Hit]:
    def named(track: InvariantTrack) -> str:
        if track.invariant.id.startswith(ENTRY_PREFIX):
            return f"{quoted(track.invariant.text, 200)}, which no tool call has acted on yet,"
        if track.invariant.id.startswith(PLAN_PREFIX):
            return (f"the step {quoted(track.invariant.text, 200)} of the plan the user approved, whose "
                    f"`{made_name(track.invariant)}` no edit has written yet,")
        check = check_named(track.invariant.id)
        if check is not None:
            return f"the check `{check.command}` of the plan the user approved, which no run has made yet,"
        if track.invariant.id.startswith(LEAD_PREFIX):
            return f"the rule {quoted(track.invariant.text, 160)} the team lead set this agent"
        return f"acceptance criterion {quoted(track.invariant.text, 160)} of the issue the user set the agent on"

    for hit in _not_in(facts, (InvariantKind.TASK_CRITERION,), named):
        yield _said_done(facts, hit)


def _said_done(facts: TraceFacts, hit: Hit) -> Hit:
    """The hit with the summary's word that nothing is left, when the work is known undone (a plan's step nothing
    wrote, a chosen entry no call acted on): an error when that word is its answer under its pending heading ("None.
    All 6 steps completed"), which sends the next agent to stop; a warning still when it is a sentence of its account
    ("I implemented the entire plan step by step") beside steps it lists as left. An issue's criterion may be met
    with no sign in the log, so it is never judged so."""
    if not str(hit.evidence.get("invariant")).startswith((PLAN_PREFIX, ENTRY_PREFIX)) or hit.generation is None:
        return hit
    claim = nothing_left(facts.generations[hit.generation].status_claims)
    if claim is None:
        return hit
    return replace(hit, message=f"{hit.message}, which says {quoted(claim.text, 140)}", start=claim.start,
                   end=claim.end, evidence=hit.evidence | {"claim": claim.text},
                   severity=Severity.ERROR if steps_heading(claim.section) else None)  # fmt: skip


STANDING = (*PRESENT, InvariantStatus.LOST)
"""Statuses of an item stated before a summary's compaction and not retired by it: kept by the summary or not."""


def collapse(tracks: list[InvariantTrack], k: int, parent: int, config: Config
             ) -> tuple[list[InvariantTrack], list[InvariantTrack]] | None:  # fmt: skip
    """The user statements owed at summary `k` (stated, not retired) that it could not leave out by choice, and those
    of them `k` carries, when it carries under `collapse_kept` of them: what it lost at once (None when it did not
    collapse).

    Those are the statements that bind beyond the work they were said about (a constraint, a preference, a correction
    or decision that stands) which its parent still carried, and every statement that came since its parent (its
    writer never saw it carried). A request or a decision for a step that the parent carried is left out: a writer
    most often drops one because it was done (`_carrier`), so dropping many of them is no collapse.
    osabio_ddb216ba's S2 (fresh63, faithful by its blind labels) dropped six of the eight requests and answers S1
    carried (where the thinking block goes, "Single changeset", "Keep onboarding flow": done by then), and was an
    error; entirecli_1e0816ef's S2, the collapse its labels call one, still is: it keeps 1 of the 10 statements that
    bind or came since. A statement an earlier summary already lost is drift, reported by its own finding; counting
    it again made a long chain's latest summary a collapse for the losses of those before it."""
    standing = [t for t in tracks if t.statuses[k] in STANDING
                and t.statuses[parent] not in (InvariantStatus.LOST, InvariantStatus.WEAKENED)
                and not (t.statuses[parent] in PRESENT and _droppable(t.invariant))]  # fmt: skip
    if len(standing) < config.collapse_min_items:
        return None
    kept = [t for t in standing if t.statuses[k] in PRESENT]
    return (standing, kept) if len(kept) < config.collapse_kept * len(standing) else None


@rule(
    "completed-actions-lost",
    Severity.WARNING,
    "Commits or pull requests made before a compaction are not in its summary: the next agent may redo or undo them.",
)
def completed_actions_lost(facts: TraceFacts) -> Iterator[Hit]:
    """One finding per summary: the actions form one series, and a summary drops them together. A summary naming
    most of them (`Config.actions_kept_share`) has kept the series. Every summary that lost it is reported, not
    only the first: each is what some next agent works from.

    Fewer commits left out than `Config.actions_lost_warned` (one) are a note: most often a step of work the summary
    tells as done, which git's log names. A pull request left out is not: it is the work's state on the remote, and
    an agent that does not know it was opened or merged opens or merges it again.

    An action an earlier summary recorded is settled history by the next one: that summary told an agent it was
    done, the work moved on, and git's log keeps it, so a later summary that stops naming it is noted, not warned
    of (readers of real sessions call such commits retired, not lost). Only actions no summary has recorded yet
    make the series a later summary must keep."""
    tracks = session_tracks(facts, (InvariantKind.COMPLETED_ACTION,))
    lost_at = [(track, {k for k, _ in still(track, InvariantStatus.LOST, facts.focus)}) for track in tracks]
    for generation in facts.judged():
        k = generation.generation.index
        settled = {id(t) for t in tracks if _recorded_before(t, k)}
        done = [t for t in tracks if t.statuses[k] in STANDING and id(t) not in settled]
        gone = [track for track, where in lost_at if k in where and id(track) not in settled]
        yield from _settled_dropped(generation.generation.label, k,
                                    [t for t, where in lost_at if k in where and id(t) in settled])
        if not gone:
            continue
        if len(gone) < len(done) and (len(done) - len(gone)) / len(done) > facts.config.actions_kept_share:
            continue  # most of the series is there: the few it leaves out are no loss of what was done
        listed, label = _listed(gone), generation.generation.label
        message = (f"{label} mentions none of the completed actions before it: {listed}" if len(gone) == len(done)
                   else f"{label} omits {len(gone)} of the {len(done)} completed actions before it: {listed}")
        yield Hit(
            k,
            message,
            evidence={"actions": [t.invariant.text for t in gone], "invariants": [t.invariant.id for t in gone],
                      "branches": _branches(gone)},
            source=gone[-1].source_quote,
            severity=Severity.INFO if len(gone) < facts.config.actions_lost_warned and _only_commits(gone) else None,
        )


@rule(
    "completed-actions-unnamed",
    Severity.WARNING,
    "Commits made before a compaction that its summary tells by their subject alone, without their sha: the next "
    "agent knows the work was done but not which commits hold it, to push, revert or cite them. A note when only one "
    "commit is told so, or when the summary names the pull request the session opened or worked on.",
)
def completed_actions_unnamed(facts: TraceFacts) -> Iterator[Hit]:
    """One finding per summary, as for the actions it drops (`completed_actions_lost`), over the same series: the
    commits no earlier summary recorded. A summary that names most of them by sha (`Config.actions_kept_share`) has
    kept the series' identity, and one commit told by subject alone (fewer than `Config.actions_lost_warned`) is a
    note.

    The identity is what the blind labels weigh: of the summaries of ../shared and fresh28–31 (44 sessions, 12
    repositories) that told two or more such commits by subject alone, 7 of 9 are called weakened or lost for it
    (tuicraft_04fd0b5b's S1 tells six commits by what they did and names only the review fix d64bec3 by sha; its
    labels call the four feature commits weakened), and the other two tell commits no label names or calls kept; of
    the 8 that told one, 5 are.

    A summary that names the pull request the session opened or pushed to has kept where the commits are: the next
    agent lists them from it. Of the summaries of ../shared and fresh42–63 that told two or more commits by subject
    alone, the four whose labels call nothing lost for it all name one (repiq_43511c41's PRs #5, #7 and #8,
    lockcodemanager_7c955a97's #899 and #900), and of the four called weakened, three name none (tame_e9167529's
    S1 names #90 and is called weakened): a note there."""
    actions = session_tracks(facts, (InvariantKind.COMPLETED_ACTION,))
    tracks = [t for t in actions if t.invariant.text.startswith("commit ")]
    pulls = [t for t in actions if t.invariant.text.startswith("pull request ")]
    for generation in facts.judged():
        k = generation.generation.index
        told = [t for t in tracks if t.statuses[k] in PRESENT and not _recorded_before(t, k)]
        unnamed = [t for t in told if t.statuses[k] is InvariantStatus.PARAPHRASED]
        if not unnamed or (len(told) - len(unnamed)) / len(told) > facts.config.actions_kept_share:
            continue
        yield Hit(
            k,
            f"{generation.generation.label} tells {_listed(unnamed)} by subject alone, without the sha",
            evidence={"actions": [t.invariant.text for t in unnamed], "invariants": [t.invariant.id for t in unnamed],
                      "branches": _branches(unnamed)},
            source=unnamed[-1].source_quote,
            severity=Severity.INFO if len(unnamed) < facts.config.actions_lost_warned or any(
                t.statuses[k] in PRESENT for t in pulls) else None,
        )


def _recorded_before(track: InvariantTrack, k: int) -> bool:
    """A summary before `k` recorded the action: settled history by `k` (`completed_actions_lost`)."""
    return any(status in PRESENT for status in track.statuses[1:k])


def _only_commits(tracks: list[InvariantTrack]) -> bool:
    return all(t.invariant.text.startswith("commit ") for t in tracks)


def _settled_dropped(label: str, k: int, dropped: list[InvariantTrack]) -> Iterator[Hit]:
    """A note that a summary no longer names actions an earlier one recorded (nothing when there are none)."""
    if dropped:
        yield Hit(k, f"{label} no longer names {_listed(dropped)}, which an earlier summary recorded as done",
                  evidence={"actions": [t.invariant.text for t in dropped],
                            "invariants": [t.invariant.id for t in dropped], "branches": _branches(dropped)},
                  source=dropped[-1].source_quote, severity=Severity.INFO)  # fmt: skip


def _branches(tracks: list[InvariantTrack]) -> list[str]:
    """The branches the commits among these actions were made on, each once, in order: what the guard says with them."""
    return list(dict.fromkeys(t.invariant.branch for t in tracks if t.invariant.branch))


def _listed(tracks: list[InvariantTrack]) -> str:
    """The actions by identity, commits by the branch they were made on: "2 commits on feat/x (2d6f7eb, 24c39af) and
    pull request #133", "… #324 merged". The branch is where the work is: a summary that names neither it nor the
    commits leaves the next agent to find them (cli_4b3ddf27, labelled blind in fresh80: S1 names no commit and not
    `alex/fix-worktree-shadow-branch-collision`, which its labels call lost)."""
    by_branch: dict[str | None, list[str]] = {}
    for track in tracks:
        if track.invariant.text.startswith("commit "):
            by_branch.setdefault(track.invariant.branch, []).append(track.invariant.text.split()[1])
    pulls = [t.invariant.text.removeprefix("pull request ").removesuffix(" opened") for t in tracks
             if t.invariant.text.startswith("pull request ")]  # fmt: skip
    parts = [f"{counted(len(shas), 'commit')}{f' on {branch}' if branch else ''} ({', '.join(shas)})"
             for branch, shas in by_branch.items()]  # fmt: skip
    if pulls:
        parts.append(f"pull request {', '.join(pulls)}")
    return " and ".join(parts)


__all__ = ["FAILURES", "STANDING", "collapse", "owed", "session_tracks", "still"]
