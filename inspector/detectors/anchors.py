"""Anchor rules: keys that do not resolve from the summary alone, elisions with no key, decay."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from inspector.anchors import Anchor, AnchorStatus, ResolvedAnchor, weakly_a_path
from inspector.facts import GenerationFacts, TraceFacts
from inspector.model import REDACTED_PATH, Severity
from inspector.rule_registry import Hit, rule
from inspector.text import Sentence, content_terms, quoted_name
from inspector.tool_names import INSTRUCTION_FILES


def _first_per_key(facts: GenerationFacts, status: AnchorStatus) -> Iterator[tuple[ResolvedAnchor, int]]:
    seen: dict[str, int] = {}
    for resolved in facts.anchors_with(status):
        seen[resolved.anchor.key] = seen.get(resolved.anchor.key, 0) + 1
    emitted: set[str] = set()
    for resolved in facts.anchors_with(status):
        if resolved.anchor.key not in emitted:
            emitted.add(resolved.anchor.key)
            yield resolved, seen[resolved.anchor.key]


SeverityOf = Callable[[ResolvedAnchor, GenerationFacts], Severity | None]
"""A finding's own severity from its anchor and the summary's facts, or None for the rule's."""


def _anchor_hits(facts: TraceFacts, status: AnchorStatus, describe: Callable[[ResolvedAnchor], str],
                 severity: SeverityOf = lambda *_: None) -> Iterator[Hit]:  # fmt: skip
    """One hit per distinct key with `status` in each summary, at its first occurrence (at `severity`'s, when it
    says one given the anchor and the summary's text, else the rule's)."""
    for generation in facts.judged():
        for resolved, count in _first_per_key(generation, status):
            anchor = resolved.anchor
            evidence = {"key": anchor.key, "occurrences": count}
            if resolved.referents:
                evidence["referents"] = list(resolved.referents)
            yield Hit(generation.generation.index, describe(resolved), anchor.start, anchor.end, evidence,
                      severity=severity(resolved, generation))  # fmt: skip


@rule(
    "unresolved-anchor",
    Severity.ERROR,
    "A summary prints a key that binds to no source record: a dead pointer.",
    session_severity=Severity.WARNING,
)
def unresolved_anchor(facts: TraceFacts) -> Iterator[Hit]:
    """On a session log, a key that is a path only by an underscore or a digit is reported as info: unresolved,
    it is as likely a list of words joined by slashes as a dead path (`anchors.weakly_a_path`). So is a path the
    summary names as one to make ("(e) create `registry/cursor/block.json`"): a plan's file does not exist yet.
    And a placeholder path (`/path/to/image.png`, `plans/YYYY-MM-DD-x.md`: `_PLACEHOLDER`).
    And a path with its middle or head left out (`windows-scout-scope/.../spec.md`, `.../docker.service.drv`): the
    summary says it abbreviated it, so no record bears it as written. And an agent's instruction file
    (`/Users/…/wakil/CLAUDE.md`): the harness loads it into the context at the start, and a log need not record that
    (`tool_names.INSTRUCTION_FILES`). And a path a record after the compaction bears: the summary named a real path
    the log had not shown yet, known from what the log does not hold (a file the harness loaded, a sub-agent's work:
    teslamint's `.entirecontext/db/local.db`, opened with sqlite3 after S1; duet's `~/dev/lore/plans/…`, under a
    folder a sub-agent renamed, edited after S1). And every key of a summary that covers no record of the log: the
    session was continued from another file, which holds what it summarised (ohmyposh_030df228's log opens with its
    summary), so no key of it can be checked here; and so is every key of a log that holds no start of its session
    (`Trace.begins_mid_session`: an Entire checkpoint's transcript from the checkpoint on, cli_0cf3db51's S1 naming
    the ticket `ENT-112` its branch was named for, in the part of the session before the file). And a key the summary
    cut short, its text going on with an ellipsis (`_CUT_AFTER`). And a shorthand whose full form the summary prints
    and resolves (`_shorthand`): a range of names, or a name written without the head of the one beside it. And a
    path whose kind of file the log's exporter redacted in a call before the compaction (`model.REDACTED_PATH`:
    zodiacid_8f51d2b8's S1 names four `report_data.json` and `report_en.md` files its calls read as `REDACTED.json`
    and `REDACTED.md`): the log no longer shows the name, so its absence there is no evidence. And a path the
    summary itself says is not there (`_SAID_MISSING`), or one the log's commands wrote with a shell variable in it
    (`_variable_paths`): the summary prints it as the shell expanded it."""
    partial = facts.session_log and facts.trace.begins_mid_session
    variable_paths: list[tuple[re.Pattern[str], ...]] = []  # worked out at the first unresolved path
    full_forms: dict[int, _FullForms] = {}  # by summary, worked out at its first unresolved key
    redactions = [(r.key, r.extra[REDACTED_PATH]) for r in facts.trace.sources if REDACTED_PATH in r.extra]
    redacted_by: dict[int, frozenset[str]] = {}  # by summary: the suffixes of the paths redacted before it

    def redacted(anchor: Anchor, generation: GenerationFacts) -> bool:
        if not redactions:
            return False
        k = generation.generation.index
        if k not in redacted_by:
            covered = set(generation.generation.covers)
            redacted_by[k] = frozenset(suffix for key, suffix in redactions if key in covered)
        name = anchor.key.rsplit("/", 1)[-1]
        return "." in name and name[name.rindex(".") :] in redacted_by[k]

    def shorthand(anchor: Anchor, generation: GenerationFacts) -> bool:
        forms = full_forms.get(generation.generation.index)
        if forms is None:
            forms = full_forms[generation.generation.index] = _FullForms.of(generation)
        return _shorthand(anchor, generation, forms)

    def expanded(key: str) -> bool:
        if not variable_paths:
            variable_paths.append(_variable_paths(run.command for run in facts.shell_runs))
        return any(path.fullmatch(key) for path in variable_paths[0])

    def weak(resolved: ResolvedAnchor, generation: GenerationFacts) -> Severity | None:
        anchor = resolved.anchor
        text = generation.generation.text or ""
        cut = _CUT_AFTER.match(text, anchor.end) or anchor.key.endswith(("...", "…"))
        placeholder = _PLACEHOLDER.search(anchor.key) is not None
        lines = anchor.pattern == "ticket" and _lines(anchor.key)
        if facts.session_log and (not generation.generation.covers or partial or cut or placeholder or lines
                                  or shorthand(anchor, generation)):  # fmt: skip
            return Severity.INFO
        if facts.session_log and generation.names_a_file(anchor):
            return Severity.INFO
        if not facts.session_log or anchor.pattern != "path":
            return None
        elided = _ELIDED.search(anchor.key) is not None
        loaded = anchor.key.rsplit("/", 1)[-1] in INSTRUCTION_FILES
        missing = _SAID_MISSING.match(text, anchor.end) is not None
        return (Severity.INFO if elided or loaded or missing or weakly_a_path(anchor.key)
                or _to_make(text, anchor.start) or generation.bound_later(anchor) or redacted(anchor, generation)
                or expanded(anchor.key) else None)  # fmt: skip

    return _anchor_hits(facts, AnchorStatus.UNRESOLVED,
                        lambda r: f"{quoted_name(r.anchor.key)} resolves to no source record", weak)  # fmt: skip


_RANGE = re.compile(r"(?P<stem>[A-Za-z][\w.]*?)(?P<low>\d+)-(?P<high>\d+)")
"""A run of numbered names written as one (`PHASE3-8`: PHASE3 to PHASE8), read as a ticket's key."""
_HEAD_END = re.compile(r"[_-]")
"""Where the head of a name ends, that a list of its siblings leaves out after the first (`AGENT_TEAM_`)."""


@dataclass(frozen=True, slots=True)
class _FullForms:
    """What a summary prints in full and resolves: its keys, their names (a path's last part), and where each key it
    prints starts (`_shorthand`)."""

    keys: tuple[str, ...]
    names: frozenset[str]
    printed: tuple[Anchor, ...]
    starts: tuple[int, ...]

    @classmethod
    def of(cls, generation: GenerationFacts) -> _FullForms:
        keys = tuple(a.anchor.key for a in generation.anchors if a.status is not AnchorStatus.UNRESOLVED)
        printed = generation.printed
        return cls(keys, frozenset(key.rsplit("/", 1)[-1] for key in keys), printed, tuple(a.start for a in printed))


def _shorthand(anchor: Anchor, generation: GenerationFacts, forms: _FullForms) -> bool:
    """A key the summary writes as shorthand for names it prints in full and that resolve: a range (cybervpn's "the
    AGENT_TEAM prompt files (GAPS, MVP, PHASE3-8)", beside AGENT_TEAM_PHASE3_PROMPT.md and …PHASE8…), both of whose
    ends are in such names; or a name written without the head of the name before it on its line ("Read
    AGENT_TEAM_PHASE8_PROMPT.md and PHASE7_PROMPT.md"), which with that head is such a name."""
    ranged = _RANGE.fullmatch(anchor.key)
    if ranged is not None and int(ranged["low"]) < int(ranged["high"]):
        ends = [re.compile(rf"(?<![A-Za-z]){re.escape(ranged['stem'] + ranged[end])}(?!\d)") for end in ("low", "high")]
        if all(any(end.search(key) for key in forms.keys) for end in ends):
            return True
    text = generation.generation.text or ""
    line_start = text.rfind("\n", 0, anchor.start) + 1
    for other in forms.printed[bisect_left(forms.starts, line_start) : bisect_left(forms.starts, anchor.start)]:
        base = other.key.rsplit("/", 1)[-1]
        if any(base[: m.end()] + anchor.key in forms.names for m in _HEAD_END.finditer(base)):
            return True
    return False


_CUT_AFTER = re.compile(r"/?(?:\.\.\.|…)")
"""What a summary writes right after a key it cut short (`https://linear.app/entirehq/issue/ENT-250/...`,
cli_1284c080's S1 quoting the user), or at its end when the key's pattern takes it in (a URI takes `…`): the key as
written is a head of the one the log holds. A folder followed by `/...` names some path under it, not itself
(`/var/folders/...`, what a temporary folder on macOS starts with)."""
_ELIDED = re.compile(r"(?:^|/)\.\.\./")
"""A path's segments left out, as summaries shorten long paths: in its middle (`/tmp/.../scratchpad/argenv.Dockerfile`)
or at its head (`.../docker.service.drv` of `/nix/store/jpc8…-docker.service.drv`)."""
_SAID_MISSING = re.compile(
    r"[`'\")\]*]*[ \t]*(?:[\w-]+[ \t]+){0,4}?(?:(?:does|did|do)[ \t]*(?:n't|not)[ \t]+exist|not found|no such file)\b",
    re.IGNORECASE,
)
"""Words right after a path that say it is not there ("`…/docalign/context/signals.md` doesn't exist; actual path is
`_planning/context/signals.md`", "`cmd/entire/cli/commands` but that directory doesn't exist"): the summary tells a
wrong path as wrong, and points the next agent at none."""
_VARIABLE = re.compile(r"\$\{?[A-Za-z_]\w*\}?")
"""A shell variable in a command's path (`~/.gstack/projects/$SLUG/main-reviews.jsonl`)."""
_WORD = re.compile(r"[^\s'\"`;|&<>()]+")


def _variable_paths(commands: Iterable[str]) -> tuple[re.Pattern[str], ...]:
    """The paths the log's commands write with a shell variable, each as a pattern in which the variable stands for
    one segment: a summary prints the path as the shell expanded it (localroots_2def5933's S1 names
    `~/.gstack/projects/paretoimproved-local-roots/main-reviews.jsonl`, which every call wrote with `$SLUG`), and no
    record bears that text."""
    found = {word for command in commands if "$" in command for word in _WORD.findall(command)
             if "/" in word and _VARIABLE.search(word) and _VARIABLE.sub("", word).strip("/")}  # fmt: skip
    segment = "[^/\\s]+"
    return tuple(re.compile(segment.join(re.escape(part) for part in _VARIABLE.split(word))) for word in sorted(found))


_LINE_RANGE = re.compile(r"L(\d+)-(\d+)")


def _lines(key: str) -> bool:
    """Lines of a file as an editor or GitHub writes them (tiny_8800a864's "Template section (~L161-163)"): read as a
    ticket's key, it is a place in a file, which no record bears as a key. A range runs forward."""
    found = _LINE_RANGE.fullmatch(key)
    return found is not None and int(found[2]) >= int(found[1])


_PLACEHOLDER = re.compile(r"(?:^|/)path/to/|YYYY-?MM-?DD")
"""The placeholders of a manual's example or a naming rule: its folders (`/path/to/file`,
`file:///path/to/image.png` in a comment of the summary's code) and a date to fill in
(`docs/superpowers/plans/YYYY-MM-DD-skip-system-blueprints.md`, where a skill says a plan is to be saved): an
illustration or a template, not a path anything read or wrote."""
_TO_MAKE = re.compile(
    r"\b(?:(?:create|add|write|scaffold|generate|introduce|new)|(?:extract|move|split)\s+(?:[\w()`-]+\s+){0,4}?"
    r"(?:to|into))\s+(?:(?:a|an|the)\s+)?(?:new\s+)?(?:file\s+)?[`'\"(]*$",
    re.IGNORECASE,
)
"""The words before a path that name it as one to make: a verb of making in its base form (a plan's step, not
"created", which says it was made), or "new"; or one of taking code out into it ("move `tableContextKey` exports to a
separate `<script>` block or extract to a `tableContext.ts` file", ravencloak_31505fc3's S2)."""


def _to_make(text: str, start: int) -> bool:
    """The path at `start` is the object of a verb of making, on its own line of the summary."""
    head = text.rfind("\n", 0, start) + 1
    return _TO_MAKE.search(text, max(head, start - 60), start) is not None


@rule(
    "ambiguous-anchor",
    Severity.ERROR,
    "A summary prints a key that binds to records in more than one place: resolution may pick the wrong one.",
    session_severity=Severity.INFO,
)
def ambiguous_anchor(facts: TraceFacts) -> Iterator[Hit]:
    return _anchor_hits(
        facts,
        AnchorStatus.AMBIGUOUS,
        lambda r: f"{quoted_name(r.anchor.key)} binds to {len(r.referents)} records: {', '.join(r.referents[:4])}",
    )


@rule(
    "no-anchors",
    Severity.ERROR,
    "A summary elides context but prints no key at all: every elision is orphaned.",
    session_severity=Severity.INFO,
)
def no_anchors(facts: TraceFacts) -> Iterator[Hit]:
    for generation in facts.judged():
        if generation.elisions and not generation.anchors:
            yield Hit(
                generation.generation.index,
                f"{len(generation.elisions)} elisions and no anchors",
                evidence={"elisions": len(generation.elisions)},
            )


@rule(
    "orphaned-anaphora",
    Severity.WARNING,
    "'As noted earlier', 'the above', 'etc.' with no stable key in the same sentence: its referent is gone.",
    session_severity=Severity.INFO,
)
def orphaned_anaphora(facts: TraceFacts) -> Iterator[Hit]:
    for generation in facts.judged():
        for elision in generation.elisions:
            if elision.orphaned:
                yield Hit(
                    generation.generation.index,
                    f"{quoted_name(elision.text)} points back with no key beside it",
                    elision.start,
                    elision.end,
                )


@rule(
    "anchor-density-floor",
    Severity.WARNING,
    "Anchors / (anchors + elisions) is below the floor: pointers are being paraphrased into prose.",
    session_severity=Severity.INFO,
)
def anchor_density_floor(facts: TraceFacts) -> Iterator[Hit]:
    floor = facts.config.min_anchor_density
    for generation in facts.judged():
        density = generation.density
        if density is not None and density < floor:
            yield Hit(
                generation.generation.index,
                f"anchor density {density:.2f} is below the floor {floor:.2f}",
                evidence={"density": density, "floor": floor},
            )


@rule(
    "anchor-density-collapse",
    Severity.ERROR,
    "Anchor density fell to half or less of the first summary's: keys are traded for prose wholesale.",
    session_severity=Severity.INFO,
)
def anchor_density_collapse(facts: TraceFacts) -> Iterator[Hit]:
    measured = [g for g in facts.summaries() if g.density is not None]
    if not measured:
        return
    baseline = measured[0].density or 0.0
    if baseline == 0.0:
        return  # a first summary with no anchors has no density to lose: every later one would "collapse" from 0
    limit = baseline * facts.config.collapse_ratio
    collapsed_before = False
    for generation in measured[1:]:
        collapsed = (generation.density or 0.0) <= limit
        if collapsed and not collapsed_before:
            yield Hit(
                generation.generation.index,
                f"anchor density {generation.density:.2f} fell from {baseline:.2f} in "
                f"{measured[0].generation.label}",
                evidence={"density": generation.density, "baseline": baseline},
            )
        collapsed_before = collapsed


@rule(
    "anchor-set-drift",
    Severity.ERROR,
    "Re-compaction dropped a key the parent printed, yet a child sentence still says what the parent's sentence "
    "around that key said: the pointer decayed into a description.",
    session_severity=Severity.INFO,
)
def anchor_set_drift(facts: TraceFacts) -> Iterator[Hit]:
    by_index = {g.generation.index: g for g in facts.generations}
    for child in facts.judged():
        parent = by_index.get(child.generation.parent) if child.generation.parent is not None else None
        if parent is None or not parent.is_summary or child.indexed is None or parent.generation.text is None:
            continue
        first: dict[str, Anchor] = {}  # each key's first place in the parent
        for found in parent.anchors:
            first.setdefault(found.anchor.key, found.anchor)
        for key in sorted(parent.anchor_keys - child.anchor_keys):
            described = _still_described(key, first[key], parent, child, facts.config.drift_overlap)
            if described is not None:
                sentence, share = described
                yield Hit(
                    child.generation.index,
                    f"{quoted_name(key)} was dropped from {parent.generation.label} "
                    "but its referent is still described",
                    sentence.start,
                    sentence.end,
                    {"key": key, "overlap": round(share, 2), "description": sentence.text},
                )


def _still_described(
    key: str, occurrence: Anchor, parent: GenerationFacts, child: GenerationFacts, threshold: float
) -> tuple[Sentence, float] | None:
    """The child sentence sharing most of the parent's sentence around the dropped key (its terms, less the key's
    own) at its first place there (`occurrence`), if it shares at least two and `threshold` of them: the parent's
    wording, not the record, is compared."""
    if parent.indexed is None or child.indexed is None:
        return None
    position = parent.indexed.sentence_at(occurrence.start)
    if position is None:
        return None
    terms = parent.indexed.terms[position] - _key_terms(key)  # the sentence's terms, indexed once, less the key's
    if len(terms) < 2:
        return None
    # The sentence sharing the most terms wins, the earliest among equals.
    counts = child.indexed.overlaps(terms)
    most = max(counts.values(), default=0)
    if most < 2 or most / len(terms) < threshold:
        return None
    position = min(position for position, shared in counts.items() if shared == most)
    return child.indexed.sentences[position], most / len(terms)


@lru_cache(maxsize=1 << 12)
def _key_terms(key: str) -> frozenset[str]:
    """`content_terms` of a dropped key, kept: in a long chain the same keys drop from summary to summary again and
    again (49,000 times over 364 summaries of the 100 MB bench session), each time stemmed anew."""
    return frozenset(content_terms(key))


__all__: list[str] = []  # importing this module registers its rules; they are reached through the registry
