"""What a summary claims happened: statuses, results with numbers, brevity, and the steps it leaves.

Losing an item is one way a compaction hurts the next agent; the other is a summary stating what the
log does not support, which the next agent then builds on. This module only reads the summary: each
claim is a line or sentence with its span and the section it sits under. `inspector.claim_evidence`
holds what the log says about it, and `inspector.detectors.claims` the rules.

Claude Code and Codex summaries follow loose section templates ("Errors and fixes", "Pending Tasks",
"Current Work", "Optional Next Step"). A heading is used when present, never required: a claim in
free prose is found by its own words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from inspector.anchors import extract_anchors
from inspector.config import MAX_SENTENCE_CHARS
from inspector.guarded_regex import guarded
from inspector.shell_runs import is_subject, subject_stem
from inspector.task_spec import CRITERION_LABEL
from inspector.text import enclosing_item, sentences


class ClaimKind(StrEnum):
    FIXED = "fixed"
    """A named change fixed something: "Fixed by using `pureHumanRemoved` directly"."""
    PASSING = "passing"
    """Tests pass, the build succeeds, it compiles."""
    PUSHED = "pushed"
    """Pushed, merged or deployed."""
    VERIFIED = "verified"
    """A search, a check or a run confirmed something."""
    RESULT = "result"
    """A measured figure: a speed-up, a percentage, a timing."""
    BRIEF = "brief"
    """The span was short: "one question, one search, and then exit"."""
    NO_ERRORS = "no-errors"
    """Nothing failed in the span."""
    NEXT_STEP = "next-step"
    """A pending task or the next step, still to do."""
    NOTHING_PENDING = "nothing-pending"
    """Nothing is left to do: "No explicitly pending tasks remain", "All tasks are complete"."""
    PRE_EXISTING = "pre-existing"
    """Something was there before the session's changes: "`invoke_failing_test` failed (pre-existing, unrelated)"."""


@dataclass(frozen=True, slots=True)
class Claim:
    kind: ClaimKind
    text: str
    start: int
    end: int
    section: str | None
    """The heading the claim sits under, as written ("Pending Tasks"), or None in free prose."""


_HEADING = re.compile(
    r"^\s*(?:#{1,6}\s+(?P<a>[^\n]{3,60}?)|(?:\d+\.\s+)?\*\*(?P<b>[^\n*]{3,60}?):?\*\*:?|"
    r"(?:\d+\.\s+)?(?P<c>[A-Z][^\s*:.]*(?: [^\s*:.]+){0,4}):)\s*$"
)
"""A section heading of a summary template: '## Pending', '7. **Pending Tasks**:', '9. Optional Next Step:'.
A numbered line without bold or a colon ('1. Run the tests') is an item, not a heading."""
_STEP_SECTION = guarded(r"\b(?:pending|next steps?|to ?do|remaining (?:work|tasks?)|follow[- ]ups?)\b", re.I)
_NOT_STEPS = guarded(r"\b(?:completed?|done|finished)\b", re.I)
"""'Completed tasks' is not a list of steps to take, whatever else its heading says."""


def nothing_left(claims: Sequence[Claim]) -> Claim | None:
    """Of a summary's claims, the one that says nothing is left to do: the line under its pending or next-steps
    heading, its own answer to what is left, when it gives one; else the first such sentence."""
    said = [c for c in claims if c.kind is ClaimKind.NOTHING_PENDING]
    return next((c for c in said if steps_heading(c.section)), said[0] if said else None)


def steps_heading(section: str | None) -> bool:
    """Does the heading list steps to take ("Pending Tasks", "Next Step"), not steps taken ("Completed tasks")?"""
    return bool(section and _STEP_SECTION.search(section) and not _NOT_STEPS.search(section))


PASSING = guarded(
    r"\b(?:all\s+(?:\d+\s+)?(?:unit\s+|integration\s+)?tests?\s+(?:now\s+)?pass(?:es|ed|ing)?|"
    r"(?:test suite|tests|build|ci)\s+(?:now\s+|are\s+|is\s+)?(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?)|"
    r"(?:compiles|builds)\s+(?:successfully|cleanly|without errors))\b",
    re.IGNORECASE,
)
FIXED_WORDS = ("fix", "fixes", "fixed", "solves", "solved", "resolves", "resolved", "works now", "working now",
               "passes", "passed", "succeeds", "succeeded")  # fmt: skip
"""Words that say a failure is fixed: what `FIXED` finds, where a summary tells of a fix in any words."""
_FIXED_CLAIMED = ("fixed", "resolved", "solved")
"""The few of `FIXED_WORDS` a fix claim is made in: a fix named as done. 'Passes' and 'succeeds' are what a
`PASSING` claim says, and 'fix' alone is as often the plan as the deed."""
assert set(_FIXED_CLAIMED) <= set(FIXED_WORDS)
FIXED = guarded(rf"\b(?:{'|'.join(map(re.escape, FIXED_WORDS))})\b", re.IGNORECASE)
"""A passage that says something is fixed, in any of `FIXED_WORDS` (`presence.described_as_fixed`)."""
_FIXED = guarded(rf"\b(?:{'|'.join(_FIXED_CLAIMED)})\b", re.IGNORECASE)
_CONSTANT_MEASURE = re.compile(r"\s+`?(?:height|width|size|length|number|count|limit|interval|rate|position|"
                               r"capacity|seed|timeout|delay|offset|amount|template|layout|header|footer|sidebar|"
                               r"columns?|rows?|window|budget|schedule|price|cost|view|camera|point|sensors?)\b",
                               re.IGNORECASE)  # fmt: skip
"""What "fixed" qualifies when it means constant: a measure, a place on a page, a setting held the same."""
_ATTRIBUTIVE = guarded(r"\b(?:a|an|the|from|to|with|use|using|uses|of|in|by|at)\s+$", re.IGNORECASE)
"""Before "fixed", a word that makes it qualify the noun after it: "from fixed `height: 120px` to flex-1", "a fixed
number like 8", "with fixed template + dynamic sections" say constant, and nothing was repaired."""


def says_fixed(text: str, words: re.Pattern[str] = FIXED) -> bool:
    """Does `text` tell of a fix in one of `words` (`FIXED`, or the fewer a fix claim is made in)? Not where
    "fixed" means constant: the first half of a compound ("fixed-width label", "fixed-capacity buffer") or a measure
    after an article or a preposition (`_ATTRIBUTIVE`). Read as a fix, "changed the chart from fixed `height` to
    flex-1" was a fix claim no check ran after, an error once the next summary carried it (fresh set 34)."""
    for found in words.finditer(text):
        end = found.end()
        if found.group().lower() != "fixed":
            return True
        if text.startswith("-", end) and text[end + 1 : end + 2].isalnum():
            continue
        before = max(0, found.start() - 12)  # room for the longest of `_ATTRIBUTIVE`'s words and its blanks
        if _CONSTANT_MEASURE.match(text, end) and _ATTRIBUTIVE.search(text, before, found.start()):
            continue
        return True
    return False


NAMED = re.compile(r"`([^`\s]{4,120})`")
"""What a fix claim names in backticks: the identifier, file or value the change introduced."""
_PUSHED = guarded(r"\b(?:pushed|force-pushed)\b(?!\s+back)", re.IGNORECASE)
_GIT_OBJECT = guarded(
    r"\b(?:commit(?:s|ted)?|branch(?:es)?|remote|origin|upstream|fork|PR|pull request|repo(?:sitory)?|github|"
    r"gitlab|main|master|tags?|changes|[0-9a-f]{7,40})\b|#\d+|\bpushed (?:\w+ ){0,3}to `?[\w.]+[/-]",
    re.IGNORECASE,
)
"""What a git push pushes or pushes to: a sentence saying "pushed" without one is another push ("routes pushed
outside the shell", a navigator's)."""
_VERIFIED = guarded(
    r"\b(?:web\s+search|search(?:ing)?|documentation|docs)\s+(?:results?\s+)?(?:confirmed|showed|shows|revealed|"
    r"found|verified)\b|\bconfirmed\s+(?:via|by|through|with)\s+(?:a\s+|the\s+)?(?:web\s+)?search\b|"
    r"\bweb\s*(?:search|fetch)`?\s+(?:tool\s+|call\s+)?(?:results?\s+)?(?:confirmed|showed|shows|revealed|found|"
    r"verified)\b",
    re.IGNORECASE,
)
_RESULT_WORDS = guarded(
    r"\b(?:speed-?ups?|faster|slower|improvements?|savings?|reductions?|throughput|latency|overhead|"
    r"performance|benchmarks?)\b",
    re.IGNORECASE,
)
FIGURE = guarded(r"(?<![\w.])(?P<low>\d+(?:\.\d+)?)(?:\s*[-–]\s*(?P<high>\d+(?:\.\d+)?))?\s*(?P<unit>[x×%])(?!\w)")
"""A figure with its unit: '2.46×', '21-26×', '50-80%', '3x'. Times and sizes are left out: a summary
restates configured values ('timeout 30s', '512 MB') far more often than it invents them."""
BRIEF = guarded(
    r"\b(?:the|this) (?:conversation|session|exchange) was (?:very |quite |fairly |relatively )?(?:short|brief)\b|"
    r"\b(?:just|only) one (?:question|message|user message|request|exchange)\b",
    re.IGNORECASE,
)
NO_ERRORS = guarded(
    r"\bno errors? (?:were |was |have been |has been )?(?:encountered|occurred|found|hit|seen)\b|"
    r"\bthere were no errors\b|\bwithout (?:any )?errors\b",
    re.IGNORECASE,
)
NOTHING_PENDING = guarded(
    r"^[-*•\s]*(?:none\b(?! of)|nothing\b)|"
    r"\bno (?:explicitly |other |further |more |remaining |outstanding |open )*(?:pending )?(?:tasks?|work|items?|"
    r"todos?|steps?) (?:remain\w*|left|pending|outstanding)\b|"
    r"\bno (?:explicitly |other |further |more )*(?:pending|remaining|outstanding) (?:tasks?|work|items?|todos?)\b|"
    r"\bnothing (?:else )?(?:remains|left|pending|outstanding)\b|"
    r"\ball (?:\d+ )?(?:tasks|work|items|steps|phases|requested work) (?:are |is |have been |has been |were )?(?:now )?"
    r"(?:complete|completed|done|finished|implemented)\b|"
    r"\b(?:implemented|completed|finished) (?:all (?:\d+ )?(?:steps|tasks|phases)\b|the (?:entire|whole|full|complete) "
    r"(?:[\w-]+ ){0,3}?plan\b)",
    re.IGNORECASE,
)
"""A summary saying nothing is left to do: in prose, or as the line under its pending heading ("- None"), or as the
whole of a plan carried out ("All 6 steps completed", "implemented the entire Phase 4 plan")."""
PRE_EXISTING = guarded(
    r"\bpre-?existing\b|\balready (?:failing|failed|broken)\b|"
    r"\b(?:failing|failed|broken) (?:before|on main|on master)\b|"
    r"\b(?:unrelated|not related) to (?:(?:our|my|the|these|this session's) )?(?:changes|edits)\b|"
    r"\bnot (?:caused|introduced) by (?:our|my|the|these) changes\b",
    re.IGNORECASE,
)
"""Words that place a failure before the session's changes: "pre-existing", "already failing", "unrelated to our
changes". What shows it is a run of the code without them (`claim_evidence.unbaselined`)."""
FAILURE_WORDS = guarded(r"\b(?:fail(?:s|ed|ing|ures?)?|FAIL|errors?|time(?:d out|outs?)|overflow(?:s|ed)?|"
                         r"panic(?:s|ked)?|crash(?:es|ed)?|flak(?:y|e|iness))\b", re.IGNORECASE)  # fmt: skip
"""What makes a pre-existing thing a failure: "pre-existing test timeout", not "26 pre-existing tests" or "the
pre-existing docs commit". Asked of the claim's sentence and of the head of the list item it sits in ("- Error 3: Stack
overflow in some registry tests" over "Root cause: Pre-existing deep call stack")."""
_IDENTIFIER = re.compile(r"\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
"""A name joined by underscores, as code writes one and prose never does: a test a summary names without backticks
("Symptom: test_custom_forester_batched and test_register_and_update_forester_pda had stack overflow")."""


def failure_names(text: str) -> list[str]:
    """What a passage names that a failure may be of: a word in backticks, a path, a name joined by underscores;
    the longest first (`invoke_failing_test` before `system-test`, the package beside it), each once."""
    named = {name for name in NAMED.findall(text) if not name.isdigit()}
    named |= {a.key for a in extract_anchors(text) if a.pattern == "path"}
    named |= set(_IDENTIFIER.findall(text))
    return sorted(named, key=lambda name: (-len(name), name))


_NEGATED = guarded(r"\b(?:not|n't|never|no longer|fail(?:s|ed|ing)?|until|once|after|if|when|should|will|"
                   r"need(?:s|ed)? to|to be)\b", re.IGNORECASE)  # fmt: skip
"""Words that turn a status into something else: 'tests do not pass yet', 'once the build succeeds'."""
_SUBORDINATE = guarded(r"\b(?:after|once|when|until|before|if|unless)\s+$", re.IGNORECASE)
"""A clause's head right before "all tasks completed" that makes it a time or a condition, not the state at the
compaction: "After all tasks completed and review passed, user selected option 2: Push and create a Pull Request"
(portcli_bf44fc35's S1, narrating, was called a claim that nothing was left while a failure was open)."""
_EXCEPTED = re.compile(r"\s*,?\s*(?:except|but|apart from|other than|save for)\b", re.IGNORECASE)
"""What right after "all items completed" names what is not: "All items completed except "Run tests and verify all
pass" which was in_progress" (sequant_170a6d5b's S2, its one failing test told as still being verified, was called a
claim that nothing was left)."""
_SOUGHT = guarded(r"\b(?:verify|ensure|confirm|check|make sure|see)\s+(?:that\s+|if\s+|whether\s+)?(?:the\s+)?$",
                  re.IGNORECASE)  # fmt: skip
"""Words before a status that make it what a step sets out to check, not what it found: 'the next step would be to run
`cargo test` again to verify all tests pass', 'then make sure the tests pass'."""


_CODE = re.compile(r"`([^`\n]{2,200})`")


def named_subjects(sentence: str) -> frozenset[str]:
    """The programs, tests and files a sentence names, by stem: the paths it writes, else the words it puts in
    backticks (`npx tsx bin/cli.ts merge` → cli; `go test` → test). The most specific names only: `go test
    ./pkg/a` is about a, not about every test run. Empty for a sentence about the whole run ("all tests pass",
    "no errors encountered"), which every failure of the run is about.

    Kept for a sentence's next reading, as a summary's inherited wording is read again (`text.sentence_terms`);
    a longer text (a whole line) is read each time, so that what is kept stays bounded."""
    return _kept_subjects(sentence) if len(sentence) <= MAX_SENTENCE_CHARS else _subjects(sentence)


def _subjects(sentence: str) -> frozenset[str]:
    code = [w for span in _CODE.findall(sentence) for w in span.split() if not w.startswith("-")]
    paths = [w for w in code if "/" in w or "." in w.strip(".")]
    paths += [a.key for a in extract_anchors(sentence) if a.pattern == "path"]
    return frozenset(s for w in paths or code if is_subject(s := subject_stem(w)))


_kept_subjects = lru_cache(maxsize=1 << 14)(_subjects)


def confirmed(claim: str) -> str:
    """What a verification claim says was confirmed: its words after "search confirmed", "docs showed"…"""
    found = _VERIFIED.search(claim)
    return claim[found.end() :].strip(" :,.") if found else ""


def claims_in(text: str, skip: tuple[tuple[int, int], ...] = ()) -> list[Claim]:
    """Every claim of a summary, in order. One pass over its lines; `skip` spans (boilerplate) are ignored.

    A bullet or line under a pending / next-step heading is a step; elsewhere each sentence is read
    for the status, verification, result, brevity and no-error wordings above.
    """
    found: list[Claim] = []
    section: str | None = None
    steps = False  # the section lists steps (worked out once per heading, not once per line)
    offset = 0
    in_code = False
    for line in text.splitlines(keepends=True):
        start, stripped = offset, line.strip()
        offset += len(line)
        if stripped.startswith("```"):
            in_code = not in_code
            continue
        if not stripped or skip and any(lo <= start < hi for lo, hi in skip):
            continue
        heading = None if in_code else _HEADING.match(line)
        if heading:
            section = next(title for title in heading.groups() if title).strip()
            steps = steps_heading(section)
            continue
        lead = line.index(stripped[0])
        if steps:
            # A step, or a line of the command block a step gives: the command is what would be run; or the
            # line saying there is none.
            kind = ClaimKind.NEXT_STEP if in_code or not _says_nothing_left(stripped) else ClaimKind.NOTHING_PENDING
            found.append(Claim(kind, stripped, start + lead, start + lead + len(stripped), section))
            continue
        if in_code:
            continue
        claimed = [c for sentence in sentences(line) for c in _sentence_claims(sentence.text, start + sentence.start,
                                                                               section)]  # fmt: skip
        if claimed and not _criterion(text, start + lead, stripped, section, lead > 0):
            found.extend(claimed)
    return found


_CRITERIA = guarded(r"\b(?:criteria|criterion|requirements?|definition of done|goals?|objectives?)\b", re.IGNORECASE)
"""A heading over what must hold: "Acceptance Criteria", "Requirements", "Definition of done"."""
_STATUS_MARK = guarded(r"[✅✓✔☑]|\[x\]|\b(?:done|met|verified|passed|completed?|satisfied)\b", re.IGNORECASE)
"""What says a criterion now holds: a tick, or a word of its status ("AC-4: All tests pass ✅ (1447 passed)")."""


def _criterion(text: str, start: int, line: str, section: str | None, indented: bool) -> bool:
    """Is the line a criterion: what must hold, not what holds? One with a criterion's label at its head ("- AC-4: All
    tests pass", an issue's criteria quoted in sequant_170a6d5b's S1, called an unsupported claim that tests passed),
    or under a heading or (when `indented`) a list item over criteria, that says no status of its own."""
    if _STATUS_MARK.search(line):
        return False
    item = line.lstrip("-*• ").lstrip("0123456789.) ")
    return bool(CRITERION_LABEL.match(item) or section and _CRITERIA.search(section)
                or indented and _CRITERIA.search(enclosing_item(text, start)))


def _says_nothing_left(text: str) -> bool:
    """`NOTHING_PENDING`, unless as a clause's time or condition (`_SUBORDINATE`) or with what is left named right
    after it (`_EXCEPTED`)."""
    pending = NOTHING_PENDING.search(text)
    return pending is not None and not _SUBORDINATE.search(text, 0, pending.start()) and not _EXCEPTED.match(
        text, pending.end())  # fmt: skip


def _sentence_claims(sentence: str, start: int, section: str | None) -> Iterator[Claim]:
    for kind in _claim_kinds(sentence):
        yield Claim(kind, sentence, start, start + len(sentence), section)


@lru_cache(maxsize=1 << 14)
def _claim_kinds(sentence: str) -> tuple[ClaimKind, ...]:
    """What a sentence claims, in the order above; kept for the sentence's next reading, since a summary inherits
    much of its parent's wording (`text.sentence_terms`). A sentence is at most `MAX_SENTENCE_CHARS`."""
    kinds = []
    if BRIEF.search(sentence):
        kinds.append(ClaimKind.BRIEF)
    if _says_nothing_left(sentence) and not sentence.lstrip(" -*•").lower().startswith(("none", "nothing")):
        kinds.append(ClaimKind.NOTHING_PENDING)  # "None" alone says nothing outside a pending section
    if NO_ERRORS.search(sentence):
        kinds.append(ClaimKind.NO_ERRORS)
    negated = _NEGATED.search(sentence)
    passing = PASSING.search(sentence)
    if passing and not negated and not _SOUGHT.search(sentence, 0, passing.start()):
        kinds.append(ClaimKind.PASSING)
    if says_fixed(sentence, _FIXED) and NAMED.search(sentence) and not negated:
        kinds.append(ClaimKind.FIXED)
    if _PUSHED.search(sentence) and _GIT_OBJECT.search(sentence) and not negated:
        kinds.append(ClaimKind.PUSHED)
    if _VERIFIED.search(sentence) and not negated:
        kinds.append(ClaimKind.VERIFIED)
    if _RESULT_WORDS.search(sentence) and FIGURE.search(sentence):
        kinds.append(ClaimKind.RESULT)
    if PRE_EXISTING.search(sentence):
        kinds.append(ClaimKind.PRE_EXISTING)  # of a failure, if its words or its item's say so (`FAILURE_WORDS`)
    return tuple(kinds)


__all__ = ["Claim", "ClaimKind", "FAILURE_WORDS", "FIGURE", "FIXED", "FIXED_WORDS", "NAMED", "PASSING", "PRE_EXISTING",
           "claims_in", "confirmed", "failure_names", "named_subjects", "nothing_left", "says_fixed", "steps_heading"]
