"""How each kind of session item survives in a summary: kept, gone, or misrepresented.

A user's words are rarely kept verbatim, so presence is the share of the item's topic terms one
passage carries; an item is called lost only when no passage carries even a third of them
(`Config.lost_coverage`) and none of its two-word phrases appears, so paraphrase is never reported
as loss. A failure that is still open is misrepresented when the summary presents it as fixed. A
completed action is kept when its identity (sha, PR number) or its subject is there.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from inspector.config import DEFAULT_CONFIG, Config
from inspector.invariants import IndexedText, InvariantMatch, InvariantStatus, match_invariant
from inspector.languages import same_language
from inspector.list_selection import ENTRY_PREFIX, entry_ids
from inspector.model import Invariant, InvariantKind
from inspector.plan_checks import Check, check_named
from inspector.plan_steps import PLAN_PREFIX, made_name
from inspector.presence import Presence, described_as_fixed, item_terms_text, presence, told_open, topic_terms
from inspector.prompt_commands import is_command
from inspector.shell_runs import about_subject, failure_subjects
from inspector.statement_force import NEGATING, PROHIBITING, forbidding
from inspector.statements import USER_KINDS, picks
from inspector.summary_claims import named_subjects
from inspector.task_spec import LABELLED
from inspector.text import LIST_ITEM, words

ItemMatcher = Callable[[Invariant, IndexedText, Config], InvariantMatch]


def _located(status: InvariantStatus, found: Presence, reason: str = "") -> InvariantMatch:
    return InvariantMatch(status, found.start, found.end, found.passage, reason)


def match_user_item(item: Invariant, indexed: IndexedText, config: Config = DEFAULT_CONFIG) -> InvariantMatch:
    if is_command(item):
        return match_command(item, indexed)
    if not same_language(item.text, indexed.language):
        return InvariantMatch(InvariantStatus.UNKNOWN, reason="the summary is in another language than the statement")
    if len(item.text.split()) >= config.verbatim_min_words and not picks(item):
        quoted = match_invariant(item.text, indexed, config=config)  # the user's words kept as they were
        if quoted.status is InvariantStatus.VERBATIM:
            return quoted
    found = presence(item_terms_text(item, indexed.language), indexed, config=config)
    if found.coverage >= config.kept_coverage and _prohibition_dropped(item, found.passage or ""):
        return _located(InvariantStatus.WEAKENED, found, "its prohibition is gone: the passage no longer says not to")
    if found.coverage >= config.verbatim_coverage:
        return _located(InvariantStatus.VERBATIM, found)
    if found.coverage >= config.kept_coverage:
        return _located(InvariantStatus.PARAPHRASED, found, f"{found.coverage:.0%} of its terms kept")
    if found.coverage < config.lost_coverage and not found.phrase:
        quoted = _quoted_in_part(item.text, indexed, config)
        if quoted is not None:
            start, end = quoted
            return InvariantMatch(InvariantStatus.PARAPHRASED, start, end, indexed.text[start:end],
                                  "a run of its words is quoted as typed")  # fmt: skip
        beside = _beside_question(item, indexed, config)
        if beside is not None:
            return _located(InvariantStatus.PARAPHRASED, beside, "kept in part, beside the question it answers")
        listed = _under_its_label(item, indexed)
        if listed is not None:
            start, end = listed
            return InvariantMatch(InvariantStatus.PARAPHRASED, start, end, indexed.text[start:end],
                                  "listed under the label its question was shown with")  # fmt: skip
        named = _names_its_subject(item, indexed)
        if named is not None:
            start, end = named
            return InvariantMatch(InvariantStatus.PARAPHRASED, start, end, indexed.text[start:end],
                                  "the summary names the file it is about")  # fmt: skip
        return InvariantMatch(InvariantStatus.LOST, reason="no passage carries its terms")
    # Partly there: a paraphrase we cannot confirm. Never reported as a loss (precision first).
    return _located(InvariantStatus.PARAPHRASED, found, f"only {found.coverage:.0%} of its terms in one passage")


def match_command(item: Invariant, indexed: IndexedText) -> InvariantMatch:
    """A command the user ran (`prompt_commands`) is known by its name: a summary that carries it names it, with or
    without its slash ("The `/simplify` skill was invoked"), a plugin's command with or without the plugin's name
    (`/superpowers:brainstorming` is `/brainstorming` where no other plugin has one); the work it asks for is its
    prompt's, which no summary repeats."""
    name = item.text.split()[0].lstrip("/")
    names = (name, name.split(":", 1)[1]) if ":" in name else (name,)
    spelled = "|".join(re.escape(n) for n in names)
    found = re.search(rf"(?<![\w:-])(?:{spelled})(?![\w-])", indexed.text, re.IGNORECASE)
    if found is None:
        return InvariantMatch(InvariantStatus.LOST, reason="the summary does not name the command")
    return InvariantMatch(InvariantStatus.VERBATIM, found.start(), found.end(), found.group(0))


def _quoted_in_part(statement: str, indexed: IndexedText, config: Config) -> tuple[int, int] | None:
    """Where the summary holds a run of the statement's words as typed (`Config.quoted_run_words`, one of them a
    topic word): a short answer's option letters and small words carry what it chose, and are no terms."""
    typed = words(statement)
    terms = topic_terms(statement)
    size = config.quoted_run_words
    for n in range(len(typed) - size + 1):
        quote = " ".join(typed[n : n + size])
        found = indexed.lowered.find(quote) if terms & topic_terms(quote) else -1
        if found >= 0:
            return found, found + len(quote)
    return None


def _beside_question(item: Invariant, indexed: IndexedText, config: Config) -> Presence | None:
    """A passage that keeps a question-tool answer in part beside its question's topic (`Invariant.asked`): the
    answer is one of the options the tool offered, and a summary says what was chosen in the question's words with
    some of the option's ("User selected: localStorage persistence" for "Browser localStorage only."). The passage
    must hold one of the answer's own terms: the question's topic alone says nothing of what was chosen."""
    if item.asked is None:
        return None
    found = presence(f"{item.text} {item.asked}", indexed, config=config)
    own = topic_terms(item.text) & topic_terms(found.passage or "")
    return found if found.coverage >= config.kept_coverage and own else None


def _under_its_label(item: Invariant, indexed: IndexedText) -> tuple[int, int] | None:
    """The line of the summary that lists a question-tool answer under the label its question was shown with
    (`Invariant.label`): a line naming the label that holds one of the answer's own terms ("Finding 5 (second ask):
    "Skip"" for "Skip." to a question shown as "Finding 5"). The label is the agent's own handle for the question,
    the one a summary reaches for when it lists many answers, so the question's words need not be there."""
    own = topic_terms(item.text)
    if item.label is None or not own:
        return None
    lowered = indexed.lowered
    for found in re.finditer(rf"(?<!\w){re.escape(item.label.lower())}(?!\w)", lowered):
        start = lowered.rfind("\n", 0, found.start()) + 1
        end = lowered.find("\n", found.end())
        end = len(lowered) if end < 0 else end
        if own & topic_terms(indexed.text[start:end]):
            return start, end
    return None


_NAME = re.compile(r"(?<![\w./-])(?:\.[A-Za-z][\w-]+|[\w-]{2,}(?:[./][\w-]+)*\.[A-Za-z][\w-]+)(?![\w/-])")
"""A file's name as written in prose: a dotfile (`.gitignore`, `.env`) or a name with an extension, with or without
its folders (`config.yaml`, `src/app.py`): a token no prose word is, so a summary that writes it is about that file."""


def _names_its_subject(item: Invariant, indexed: IndexedText) -> tuple[int, int] | None:
    """Where the summary names the file a user's request or wish is about, when no passage shares two of its terms:
    "make sure it is included in .gitignore" against ".gitignore (added .env)". One shared term shows neither
    presence nor absence (`Config.min_terms`), but a file's name is no word every summary holds: the summary still
    speaks of what the item is about, so its loss is not shown. Not for a prohibition: a summary that names the file
    and drops the "never" is the loss itself."""
    if forbidding(item.text):
        return None
    for name in dict.fromkeys(m.group().rstrip(".") for m in _NAME.finditer(item.text)):
        found = re.search(rf"(?<![\w./-]){re.escape(name.lower())}(?![\w-])", indexed.lowered)
        if found is not None:
            return found.start(), found.end()
    return None


_ANY_NEGATION = re.compile(rf"\b(?:{'|'.join(map(re.escape, sorted(NEGATING | set(PROHIBITING) | {'only'})))})\b|n't\b",
                           re.IGNORECASE)  # fmt: skip
"""A passage that still says no: a word that does (`NEGATING`), any that forbid (`PROHIBITING`, 'off limits'
among them), any "-n't", or "only" (a restriction kept as what alone is allowed)."""


def _prohibition_dropped(item: Invariant, passage: str) -> bool:
    """A user's "never …" carried by a passage that no longer says no: the topic survived, the force did not."""
    return item.kind is InvariantKind.USER_CONSTRAINT and bool(forbidding(item.text)) and not (
        _ANY_NEGATION.search(passage)
    )


def match_failure(item: Invariant, indexed: IndexedText, config: Config = DEFAULT_CONFIG) -> InvariantMatch:
    found = presence(item.text, indexed, config=config)
    if found.coverage < config.lost_coverage and not found.phrase:
        return InvariantMatch(InvariantStatus.LOST, reason="the summary does not mention it")
    if found.start is not None and found.passage is not None and found.coverage >= config.kept_coverage:
        at, line = _status_line(indexed.text, found, item.text)
        # Only a line about what failed calls it fixed: one naming another program, test or file is about that.
        if (about_subject(item.text, named_subjects(line)) and described_as_fixed(indexed.text, at, line, item.text)
                and not told_open(indexed.text, failure_subjects(item.text))):  # fmt: skip
            return _located(InvariantStatus.WEAKENED, found,
                            "presented as fixed, but no later run of it succeeded")  # fmt: skip
        return _located(InvariantStatus.PARAPHRASED, found)
    return _located(InvariantStatus.PARAPHRASED, found, f"only {found.coverage:.0%} of its terms in one passage")


def _status_line(text: str, found: Presence, item_text: str) -> tuple[int, str]:
    """Where the words that say what became of an item begin, and those words: the passage it was found in, or
    the whole list item (a bullet, a numbered line) the passage sits on, since a bullet's status may be in
    another of its sentences ("**X**: two broken links. The second is pending."). A passage is found with the
    sentence after it, so the passage may be the heading above the bullet that names the item ("Errors and
    fixes:"): of the two lines, the one carrying more of the item's terms."""
    start = found.start or 0
    head = text.rfind("\n", 0, start) + 1
    first, _, rest = text[head:].partition("\n")
    second = rest.split("\n", 1)[0]
    terms = topic_terms(item_text)
    if LIST_ITEM.match(second) and len(terms & topic_terms(second)) > len(terms & topic_terms(first)):
        return head + len(first) + 1, second
    return (head, first) if LIST_ITEM.match(first) else (start, found.passage or "")


_STASH = re.compile(r"\bstash", re.IGNORECASE)


def match_set_aside(item: Invariant, indexed: IndexedText, config: Config = DEFAULT_CONFIG) -> InvariantMatch:
    """A stash is known by the word: a summary that speaks of a stash anywhere keeps it, unless each line that
    does files it as fixed (a stash is owed until popped, so "used `git stash` to get the rebase through"
    under "Errors and fixes" presents it as done). The command around it (what was rebased or checked out) is
    no part of what the next agent must know."""
    lines = []
    for found in _STASH.finditer(indexed.text):
        head = indexed.text.rfind("\n", 0, found.start()) + 1
        end = indexed.text.find("\n", found.end())
        lines.append((head, indexed.text[head : end if end >= 0 else len(indexed.text)]))
    if not lines:
        return InvariantMatch(InvariantStatus.LOST, reason="the summary does not mention the stash")
    for head, line in lines:
        if not described_as_fixed(indexed.text, head, line, item.text):
            return InvariantMatch(InvariantStatus.PARAPHRASED, head, head + len(line), line)
    head, line = lines[0]
    return InvariantMatch(InvariantStatus.WEAKENED, head, head + len(line), line,
                          "presented as handled, but nothing later popped or applied it")


def _range_names(prefix: str, number: str, text: str) -> bool:
    """Does a range in the summary take the label in ("AC-1 through AC-7", "AC-1–AC-7", "AC-1..7")?"""
    spans = re.finditer(rf"\b{prefix}-?(\d+)\s*(?:through|to|–|—|-|\.\.)\s*(?:{prefix}-?)?(\d+)\b", text)
    return any(int(a) <= int(number) <= int(b) for a, b in (s.groups() for s in spans))


def match_criterion(item: Invariant, indexed: IndexedText, config: Config = DEFAULT_CONFIG) -> InvariantMatch:
    """A criterion with a label is kept by its label, alone or in a range; otherwise it is looked for by what it
    asks, as a user's words are (`match_user_item`, so a paraphrase is never called a loss). An entry the user chose
    from a list is kept by its identifier, or by half of what tells it from the list's other entries (`distinct`):
    with no middle ground, since a passage that carries less of it is about a neighbour, which shares its words."""
    if item.id.startswith(ENTRY_PREFIX):
        return _match_entry(item, indexed, config)
    if item.id.startswith(PLAN_PREFIX):
        return _match_plan_step(item, indexed)
    check = check_named(item.id)
    if check is not None:
        return _match_plan_check(check, item, indexed)
    labelled = LABELLED.match(item.text)
    if labelled is None:
        return match_user_item(item, indexed, config)
    prefix, number = labelled.group("prefix", "number")
    named = re.search(rf"\b{prefix}[- ]?{number}\b", indexed.text)
    if named is not None:
        return InvariantMatch(InvariantStatus.VERBATIM, named.start(), named.end(), named.group(0))
    if _range_names(prefix, number, indexed.text):
        return InvariantMatch(InvariantStatus.PARAPHRASED, reason="named in a range of its labels")
    return match_user_item(replace(item, text=item.text[labelled.end() :]), indexed, config)


def _match_entry(item: Invariant, indexed: IndexedText, config: Config) -> InvariantMatch:
    for identifier in entry_ids(item, config):
        at = indexed.text.find(identifier)
        if at >= 0:
            return InvariantMatch(InvariantStatus.VERBATIM, at, at + len(identifier), identifier)
    found = presence(item.distinct or item.quote or item.text, indexed, config=config)
    if found.coverage >= config.kept_coverage:
        return _located(InvariantStatus.PARAPHRASED, found, f"{found.coverage:.0%} of what tells it from its list kept")
    return InvariantMatch(InvariantStatus.LOST, reason="neither its id nor what tells it from its list is there")


def _match_plan_step(item: Invariant, indexed: IndexedText) -> InvariantMatch:
    """A plan's step not yet made is kept only by the name of what it makes: a summary that speaks of its topic
    without the name tells the next agent nothing of a thing still to write, and reads as the step done
    (cipherbox_71b7117f's S1 has the plan's "lazy migration" and never `migrateFilePointers()`)."""
    name = made_name(item)
    at = indexed.lowered.find(name.lower())
    if at >= 0:
        return InvariantMatch(InvariantStatus.VERBATIM, at, at + len(name), indexed.text[at : at + len(name)])
    return InvariantMatch(InvariantStatus.LOST, reason=f"it does not name `{name}`")


def _match_plan_check(check: Check, item: Invariant, indexed: IndexedText) -> InvariantMatch:
    """A plan's check not yet run is kept by its command, or by the words any run of it carries, in order ("run
    `lint` before calling it done" keeps `npm run lint`): the next agent then knows it is still to run. Or by the
    plan's file (`Invariant.reference`), which holds the check: a summary that sends the next agent to the plan
    ("the approved plan at ~/.claude/plans/zazzy-bouncing-sonnet.md", hypergraph_a560566f's S1, mid-way through its
    steps) has it read there what to run before calling the work done."""
    for said in (check.command.split(), check.defining):
        found = re.search(r"(?<![\w-])" + r"\s+".join(map(re.escape, said)) + r"(?![\w-])", indexed.text,
                          re.IGNORECASE)  # fmt: skip
        if found is not None:
            return InvariantMatch(InvariantStatus.VERBATIM, found.start(), found.end(), found.group(0))
    name = item.reference.rsplit("/", 1)[-1] if item.reference else None
    at = indexed.text.find(name) if name else -1
    if name and at >= 0:
        return InvariantMatch(InvariantStatus.PARAPHRASED, at, at + len(name), name, "it names the plan's file")
    return InvariantMatch(InvariantStatus.LOST, reason=f"it does not name `{check.command}`")


_SHA = re.compile(r"^commit ([0-9a-f]{7,40}) ")
_PR = re.compile(r"^pull request #(\d+)")


def match_action(item: Invariant, indexed: IndexedText, config: Config = DEFAULT_CONFIG) -> InvariantMatch:
    sha, pr = _SHA.match(item.text), _PR.match(item.text)
    if sha is not None:
        at = indexed.lowered.find(sha.group(1)[:7])
        if at >= 0:
            return InvariantMatch(InvariantStatus.VERBATIM, at, at + 7, indexed.text[at : at + 7])
        subject = item.text[sha.end() :]
        found = presence(subject, indexed, config=config)
        if found.coverage >= config.kept_coverage:
            return _located(InvariantStatus.PARAPHRASED, found, "its subject is kept, not its sha")
        return InvariantMatch(InvariantStatus.LOST, reason="neither its sha nor its subject is there")
    if pr is not None:
        number = pr.group(1)
        found_pr = re.search(rf"(?:#|pull/|\bPR\s*#?\s*){number}\b", indexed.text, re.IGNORECASE)
        if found_pr is not None:
            return InvariantMatch(InvariantStatus.VERBATIM, found_pr.start(), found_pr.end(), found_pr.group(0))
        return InvariantMatch(InvariantStatus.LOST, reason="its number is not there")
    return match_user_item(item, indexed, config)


ITEM_MATCHERS: dict[InvariantKind, ItemMatcher] = {
    **{kind: match_user_item for kind in USER_KINDS},
    InvariantKind.FAILURE: match_failure,
    InvariantKind.FAILED_APPROACH: match_failure,
    InvariantKind.SET_ASIDE: match_set_aside,
    InvariantKind.TASK_CRITERION: match_criterion,
    InvariantKind.COMPLETED_ACTION: match_action,
}
"""The matcher for each kind of item mined from a session log (native traces keep `match_invariant`)."""


__all__ = ["ITEM_MATCHERS", "match_action", "match_command", "match_criterion", "match_failure", "match_set_aside",
           "match_user_item"]
