"""Statements: what the user said, clause by clause, and which of it binds the next agent.

Only the user's own words are read (`inspector.authorship`): typed prompts, answers given through a question
tool, the feedback typed when rejecting a tool call. Each sentence is cut into clauses, the questions riding
on it dropped, and each clause gets a kind by fixed rules (a correction, a constraint, a requirement, a
preference, a decision) or none: a question or a narrative commits nobody. A short reply borrows the topic
of the question the agent had just asked, and a reply that picks an offered option ("let's go with A")
carries what A was: alone, neither means anything to the next agent.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from typing import Any

from inspector.authorship import spans_for
from inspector.config import DEFAULT_CONFIG, Config
from inspector.languages import FOREIGN_OBLIGATION, FOREIGN_PROHIBITION, language_of
from inspector.model import Author, Invariant, InvariantKind, SourceRecord
from inspector.presence import topic_terms
from inspector.statement_force import DOUBT, LEAVE_AS_IS, PROHIBITING, prohibiting_pattern, without_waivers
from inspector.text import Sentence, clip, sentences

USER_KINDS = frozenset(
    {InvariantKind.USER_CONSTRAINT, InvariantKind.USER_DECISION, InvariantKind.USER_REQUIREMENT,
     InvariantKind.USER_PREFERENCE, InvariantKind.CORRECTION}
)  # fmt: skip
"""What the user said: losing one of these is an error."""

_AUXILIARY = (
    "can could would will shall should may might must do does did is are was were am have has had can't couldn't "
    "won't wouldn't shouldn't mustn't don't doesn't didn't isn't aren't wasn't weren't haven't hasn't hadn't"
).split()
"""Verbs that come before their subject in an English question ("do you…", "is it…", "don't we…")."""
_SUBJECT = (
    "i you we they he she it this that these those there someone somebody anyone anybody everyone everybody "
    "something anything everything the a an my your our their his her its any some all each every both"
).split()
"""What a subject opens with: a pronoun, or the determiner of a noun phrase ("does the build pass")."""
_WH = "what why how where when which who whom whose".split()


def _alternatives(words: list[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_INVERTED = rf"(?:{_alternatives(_AUXILIARY)})\s+(?:{_alternatives(_SUBJECT)})\b"
"""An auxiliary followed by its subject: the word order of a question. Followed by a verb it is an imperative
("Don't touch the production database", "Do run the migrations first") or drops its subject ("Has to be
done before the release", "Could be a race")."""
_PERSONS = "i you we they he she someone somebody anyone anybody everyone everybody".split()
_QUESTION_START = re.compile(
    rf"^(?:(?!do\s+(?!(?:{_alternatives(_PERSONS)})\b)){_INVERTED}|"
    rf"(?:{_alternatives(_WH)})\b(?!\s+(?:{_alternatives(_SUBJECT)})\b))", re.IGNORECASE
)
"""A question without its question mark: inverted word order, or a question word not followed by a subject
(followed by one it opens a clause of a statement: "when someone amends the commit, it's not feasible",
"what I want is…"). "Do" before a thing rather than a person is the imperative of the verb, not a question's
auxiliary: "Do the 3 changes that you suggest separately.", "Do it now", "Do all easy wins", "do a proposal" (14 of
the 15 sentences opening so without a question mark that users typed in the sessions held, ../shared, fresh42–76 and
the unlabelled pool; the other, "do all new tests use full assert eqs as described …", asks). "Do you …" asks."""
_QUESTION_CLAUSE = re.compile(rf",\s*(?=(?:(?:{_alternatives(_WH)})\s+)?{_INVERTED})", re.IGNORECASE)
"""A question riding on a statement after a comma: "ok, do nothing, can we add tests" (inverted word order)."""
_PARENTHESISED_QUESTION = re.compile(r"\([^()]*\?[^()]*\)")

_IMPERATIVE_VERBS = (
    "fix address add remove delete drop update change implement create write build run test push commit merge "
    "rebase revert retire rename move refactor use make keep leave review check document deploy release publish "
    "install upgrade replace skip stop start continue finish clean split combine introduce investigate try show "
    "explain compare verify rewrite restore reset undo apply open close mark set bump include exclude handle wire "
    "extract simplify port migrate convert generate send post resolve cover split do go put get"
).split()
"""Verbs a request to an agent opens with, in their base form: the work of a software session."""
_NO_THEN_A_CLAUSE = (rf"no\s+(?:{_alternatives(_IMPERATIVE_VERBS)}|{_alternatives(_SUBJECT)}|"
                     r"wait|not|just|actually|let's|lets|don't|dont|please)\b")
""""No remove this again", "no it should …", "no wait": the interjection, then what the user says instead. "No"
before a noun is the determiner ("No changes.", "No luck", "no need"): a report of what the user saw, or a wish,
and no correction of the agent's words."""
_CORRECTION_START = re.compile(
    rf"^(?:actually\b|no[,!.]|{_NO_THEN_A_CLAUSE}|nope\b|wrong\b|that(?:'s| is) (?:not|wrong)\b|"
    rf"i meant\b|not quite\b|instead\b|what do you mean\b|(?:wait[,!.]?\s+)?(?={DOUBT.pattern}))",
    re.IGNORECASE,
)
_NOT_AN_OBSERVATION = (r"(?!(?:don't|do not|dont|can't|cannot)\s+(?:see|know|understand|remember|recall|notice|"
                       r"get|find|hear|care)\b)"
                       r"(?!(?:(?<=\bi )|(?<=\bwe )|(?<=\bthey ))(?:don't|do not|dont)\s+have\b(?!\s+to\b))")
""""I don't see it on the PR", "we can't find the log": the speaker says what they perceive or know, which
forbids nothing; nor what they lack ("we don't have Vue.js for Catalyst, so try to see if you can port it"); "don't
touch staging", "I don't want a migration", "I don't think we should …", "don't have it auto-merge" still do."""
_NOT_MY_REPORT = r"(?<!\bi )"
""""I can't close that popup", "once I get to the paywall, I can't select any of the buttons": the user reports what
fails for them, a bug to fix, and forbids the agent nothing; "we can't change the API", "you cannot push" still do."""
_FORBIDDING = tuple(word for word in PROHIBITING if word != "may not")
"""The words that forbid, for the miner of every sentence a user wrote: all but "may not", which in prose is as
often what might be ("which may not match the intended semantics", entirecli_6113e919) as what is not allowed."""
_DISCOURSE = "ok okay yes yeah yep sure great cool perfect good alright right now then so and also please pls just"
_OPENING = rf"^(?:(?:{_alternatives(_DISCOURSE.split())})[,!.]?\s+)*"
"""The words a user opens a message with before what they ask ("ok, skip 5", "yes please go ahead"): a clause's head
past them is where an imperative (`_IMPERATIVE`) or an "avoid" said to the agent (`_AVOIDING`) begins."""
_AVOIDING = (r"(?:(?:let's|lets|let us|please|always|should|must|try to|needs? to|ha(?:ve|s) to|we|you|but|so)\s+|"
             r"[,;:–—]\s*(?:(?:and|but|so|then|just|please)\s+)*|"
             rf"{_OPENING})avoid")
""""Avoid" as a rule said to the agent: at the head of the clause or of a clause joined to it ("avoid force pushes",
"that didn't work, so avoid that approach"), or after a word that makes it one ("let's avoid code duplication", "we
should avoid tight coupling"). Not what something does ("using UTC would be more consistent … and avoid
timezone-related issues", a pasted review comment) nor why ("rebuild the WASM on start to avoid these issues": the
purpose of a request that is one by its own words)."""
_PLEASE_DO = rf"\bplease\s+(?:(?:still|also|just|now|then|kindly|do)\s+)?(?:{_alternatives(_IMPERATIVE_VERBS)})\b"
"""A request anywhere in the clause, "please" then a work verb ("if so please still use 2 agents for different
purposes"): a request at its head is the imperative (`_IMPERATIVE`); after the preference words, so "please use uv"
stays a preference, and before the decision words, which `statement_kind` reads last."""
_KIND_RULES: tuple[tuple[InvariantKind, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        (InvariantKind.CORRECTION,
         r"\b(?:instead of|rather than|you (?:are|were) wrong)\b|,\s*not\s+(?:the|a|an)\b"),
        (InvariantKind.USER_CONSTRAINT,
         rf"\b(?:{_NOT_AN_OBSERVATION}(?:{prohibiting_pattern(_FORBIDDING)}|dont|{_NOT_MY_REPORT}(?:can't|cannot))|"
         r"shouldn't|should not|"
         rf"{_AVOIDING}|"
         rf"{LEAVE_AS_IS.pattern}|do nothing|no more|without|not (?:really )?(?:feasible|possible|an option|safe)|"
         r"(?:we|you) (?:aren't|are not|'re not) (?:going )?to)\b"),
        (InvariantKind.USER_REQUIREMENT,
         r"\b(?:must|need to|needs to|have to|has to|required|require|ensure|make sure|i want|we want|"
         r"should|it would be good|the most important)\b"),
        (InvariantKind.USER_PREFERENCE,
         r"\b(?:prefer|please use|i like|too much|keep it simple|ideally|i'd rather|i would rather)\b"),
        (InvariantKind.USER_REQUIREMENT, _PLEASE_DO),
        (InvariantKind.USER_DECISION,
         r"\b(?:let's|lets|let us|go with|we'll|we will|decided|"
         r"for now|is fine|sounds good)\b"),
    )
)  # fmt: skip

def statement_sentences(text: str, author: Author = Author.USER) -> Iterator[Sentence]:
    """The sentences the user typed in a record's text (`inspector.authorship`): injected tags, pasted logs,
    code, documents and shell output are someone else's words, never a statement."""
    for span in spans_for(text, author):
        if span.author is Author.USER:
            for sentence in sentences(text[span.start : span.end]):
                yield Sentence(span.start + sentence.start, span.start + sentence.end, sentence.text)


def _clauses(sentence: str) -> Iterator[str]:
    """A sentence without the questions riding on it: "ok, do nothing, can we add tests?" → "ok, do nothing"."""
    sentence = _PARENTHESISED_QUESTION.sub(" ", sentence).strip()
    for clause in _QUESTION_CLAUSE.split(sentence):
        clause = clause.strip(" ,")
        if clause:
            yield clause


_GET_GOING = re.compile(
    r"\b(?:let's|lets|let us)\s+(?:now\s+|just\s+)?(?:proceed|implement|start|begin|continue|try|do it|get|look|"
    r"(?:take|have) a (?:quick |closer )?look|see|"
    r"check|fix|review|examine|run|write|create|add|build|work|dig|figure|move on|commit|push|update|make|mark|"
    r"discuss|talk|think|brainstorm|"
    r"go\b(?!\s+with))",
    re.IGNORECASE,
)
""""Let's proceed", "let's fix the rest", "let's take a look at level 2": the user sets the agent going; the work, not
the words, carries on. So with a conversation: "wait, let's discuss first" (cli_4b3ddf27, answered at once with "Sure,
let's discuss", then called a decision lost from S1), "let's think deeply about this"."""


_OBJECT = (r"(?:the|a|an|all|it|them|this|that|these|those|my|our|your|its|every|each|both|any|some|ahead|up|out|"
           r"back)\b|\d|[`\"'(]")
_IMPERATIVE = re.compile(
    rf"{_OPENING}(?:{_alternatives(_IMPERATIVE_VERBS)})\s+(?:{_OBJECT})",
    re.IGNORECASE,
)
"""A request in the imperative: a work verb first, then what it acts on ("Fix the issues and bugs and push them",
"address the findings", "ok, skip 5, 7 and 8", "Retire it, footer only"). The object must follow at once: a
verb's noun at the head of a report ("Build failed", "Review looks good") is followed by a verb instead."""


_GO = r"(?:proceed|go ahead|continue|do\s+(?:it|that|this|so)|go for it)"
"""The words that only say go: the agent's proposal, or the work under way, is what goes on."""
_DO_IT = re.compile(rf"{_OPENING}{_GO}(?:\s+(?:now|please|then|too|again))*[\s.!]*$", re.IGNORECASE)
"""A reply that only says go ("Do that", "ok do it now", "go ahead"): what it approves is the agent's proposal, which
the work carries out next; the words hold nothing a summary owes (flutterdocker_5e12a303, fresh55: "Do that",
labelled nothing; ovid_ec84c889, fresh75: "go ahead", whose labels track the refactor it approved), as a
question-tool answer that only says go (`_GO_AHEAD`)."""


_CONDITION = re.compile(r"\b(?:if|unless|in case)\b(?:(?!\s(?:please|then)\b)[^,;:.!?—–\n])*[,;:—–]", re.IGNORECASE)
"""A condition, up to the comma that ends it: the case a statement applies to, whose words state nothing the user
asks ("if you're running yarn or pnpm instead of npm, swap those in" asks a swap, and corrects nothing). One with no
comma ends where a "please" or a "then" opens what is asked ("if so please still use 2 agents …, but …")."""


def statement_kind(clause: str, language: str | None = None) -> InvariantKind | None:
    """The kind of item a user's clause states, or None for a question, request or narrative. `language` is
    the message's (`languages.language_of`): in one that is not English, English's rules are not read ("No
    cambies…" is no English "no, …" correction), only that language's words that forbid and oblige."""
    if language not in (None, "en"):
        return None if clause.endswith(("?", "？")) else _foreign_kind(clause)
    if _CORRECTION_START.match(clause):
        return InvariantKind.CORRECTION  # "what do you mean there's no …?" corrects, question mark or not
    if clause.endswith(("?", "？")) or _QUESTION_START.match(clause):
        return None
    # "we don't need to mention X" neither forbids nor obliges, and a condition's words ask nothing
    stated = _CONDITION.sub(lambda condition: " " * len(condition.group()), without_waivers(clause))
    kind = next((kind for kind, rule in _KIND_RULES if rule.search(stated)), None)
    if kind is None:
        kind = _foreign_kind(clause)
    if kind is None and DOUBT.search(clause):
        return InvariantKind.CORRECTION  # "…, so I dont think that we need to avoid migrations": disputes the agent
    if kind is None and picked_label(clause):
        return InvariantKind.USER_DECISION  # "I think B", "A. for now": the reply picks an option
    if kind is None and _IMPERATIVE.match(clause):
        return None if _DO_IT.match(clause) else InvariantKind.USER_REQUIREMENT
    if kind is InvariantKind.USER_DECISION and _GET_GOING.search(clause):
        rest = _GET_GOING.sub(" ", clause)
        return kind if _KIND_RULES[-1][1].search(rest) else None
    return kind


_ANAPHORIC = re.compile(r"(?:this|that|it|these|those)\s+(?:needs?|should|must|has to|have to|is not|isn't|"
                        r"would be)\b", re.IGNORECASE)
"""A statement whose subject is the sentence before it ("If one file was added, it should default to all. This needs
to persist across closing and opening the app"): alone it names nothing, so it is an item with that sentence."""
_GO_AHEAD = re.compile(rf"(?:yes|yeah|yep|ok|okay|sure)\b[\s,.!—–-]*(?:please\s+)?(?:{_GO}|(?:\w+\s+)?now)\b[\s.!]*",
                       re.IGNORECASE)  # fmt: skip
"""A question-tool answer that only says go ("Yes, proceed.", "Yes, upgrade now."): as with a typed "let's proceed"
(`_GET_GOING`), the work carries on, not the words; a summary written after it was done owes it nothing."""


def _foreign_kind(clause: str) -> InvariantKind | None:
    """A constraint by a word that forbids ("Nunca altere…", "절대 푸시하지 마세요"), a requirement by one that
    obliges or requests ("il faut garder…", "…실행하세요"), in the languages `inspector.languages` reads."""
    if FOREIGN_PROHIBITION.search(clause):
        return InvariantKind.USER_CONSTRAINT
    return InvariantKind.USER_REQUIREMENT if FOREIGN_OBLIGATION.search(clause) else None


_NOT_Y = re.compile(r"(?P<new>.+?),?\s+(?:and\s+)?not\s+(?P<old>(?:the|a|an)\s+[^,.;!?]+)", re.IGNORECASE)


def _replaced(clause: str, config: Config) -> str | None:
    """The superseded wording of an "X, not Y" correction: Y."""
    found = _NOT_Y.search(clause)
    return found.group("old").strip() if found and len(topic_terms(found.group("old"))) >= config.min_terms else None


QUESTION_TAIL_CHARS = 20_000
"""How far back from the end of an agent's turn its closing question is looked for: a question asked
pages earlier is not the one a reply answers, and a 50 MB turn is not split into sentences for it."""


def last_question(text: str, *, config: Config = DEFAULT_CONFIG) -> str | None:
    """The question an agent's turn ends on, with the options before it when it names none itself.

    "What's your preference?" says nothing; the two lines before it ("1. always 100%", "2. omit the
    field") are what a reply of "ok, do nothing" chose between. How far back it reads is
    `config.question_sentences` and `config.question_terms`.
    """
    spans = sentences(text[-QUESTION_TAIL_CHARS:])
    last = next((i for i in range(len(spans) - 1, -1, -1) if spans[i].text.rstrip(" *_`").endswith("?")), None)
    if last is None:
        return None
    first = last
    while first > 0 and last - first < config.question_sentences and not _says_enough(spans[first : last + 1], config):
        first -= 1
    return clip(" ".join(s.text for s in spans[first : last + 1]), 400)


def _says_enough(spans: Sequence[Sentence], config: Config) -> bool:
    """The question and the lines read with it name enough topic terms to give a short reply its topic."""
    return len(topic_terms(" ".join(s.text for s in spans))) >= config.question_terms


_OPTION = re.compile(
    r"^[ \t>|*_#-]*(?:option\s+)?(?P<label>[A-H]|[1-9])[*_]*(?:[.):]|\s+[-–—])[*_]*\s+(?P<text>\S[^\n]*)$",
    re.MULTILINE | re.IGNORECASE,
)
"""An option the agent offers, on a line of its own: "A. Delete the unused helper", "**Option B**: move it",
"| **A. Delete unused `X()`** | pros | cons |" (a table row: its first cell), "2) omit the field"."""
_PICK = re.compile(
    r"(?i:\b(?:option|approach|choice|variant|plan)\s+)(?P<named>[A-Ha-h1-9])\b"
    r"|^(?P<first>[A-Ha-h1-9](?=[.):])|[A-H1-9](?=,|\s*$))"
    r"|(?i:\b(?:go with|going with|pick|choose|prefer|take|i think|let's do|lets do|do)\s+)"
    r"(?:(?P<verb>[A-H])\b|(?P<numbered>[1-9])(?=\s*(?:[.,!;:)]|$)))"
    r"|\b(?P<judged>[A-H])\s+(?i:is (?:fine|good|better|best|ok|okay|the one)|seems|sounds|looks|works|please)\b"
)
"""A reply that picks an offered option by its label: "yes, let's go with A", "A. is fine", "I think B",
"option 2 works", "B seems like a good idea", "Go with 2. continue". The letters are capitals outside "option …",
since "a" is also an article; a number after a verb ends its clause, since "take 2 minutes" and "do 3 passes" count."""
_LABEL_ALONE = re.compile(r"\(?([A-H1-9])[.)]")
_OPTION_TITLE_END = re.compile(r" \| |\s[-–—]\s|\*\*:?\s")
"""Where an option's title ends: its table cell, a dash before its description, the close of its bold name."""
_ASIDE = re.compile(r"\s*\([^()]+\)")
"""A title's aside, "(Recommended)", "(this session)": said of the option, not what it is."""
def offered_options(turn: str) -> dict[str, str]:
    """The options an agent's turn offers, by label (upper-cased), each by its title without markup (not the
    description after it, which would outweigh the title when the item is looked for in a summary); a label
    offered twice keeps its last line, the one nearest the question."""
    tail = turn[-QUESTION_TAIL_CHARS:]
    titles = {found.group("label").upper(): _OPTION_TITLE_END.split(found.group("text"), 1)[0]
              for found in _OPTION.finditer(tail)}  # fmt: skip
    cleaned = {label: _ASIDE.sub("", title).replace("**", "").strip(" |*_") for label, title in titles.items()}
    if any(title.endswith(("?", ":")) for title in cleaned.values()):
        return {}  # numbered questions ("1. Who's the primary user?"), answered "1) …, 2) …": no options offered
    return {label: clip(title, DEFAULT_CONFIG.option_chars) for label, title in cleaned.items()}


_PICKS_RECOMMENDED = re.compile(
    rf"{_OPENING}(?:(?:let's|lets|let us)\s+)?(?:go(?:ing)?\s+(?:for|with)|proceed\s+with|take|pick|choose|use|apply|"
    r"implement|do)\s+(?:(?:the|your|what(?:'s|\s+is|\s+you))\s+)?recomm?end(?:ed|ation)\b"
    r"(?=\s*(?:$|[,.;:!)—–-]|(?:one|option|approach|fix|plan|path|solution|steps?|then|and|according|please|too)\b))",
    re.IGNORECASE,
)
"""A reply that picks the option the agent recommended ("go for recommended", "yes go for recomended", "Let's proceed
with your recommendation then", "go for what is recommended"): like a pick by label, it means nothing to the next
agent without what was recommended (`recommendation`). Only where the recommended thing is the agent's: "use the
recommended Node version" names a thing of its own."""
_RECOMMENDATION_HEAD = re.compile(
    r"^[ \t>*_#-]*(?:my\s+)?recomm?end(?:ations?|ed)?\b(?:[^:\n]{0,40}:|[*_ \t]*$)[*_ \t]*(?P<text>[^\n]*)$",
    re.IGNORECASE | re.MULTILINE,
)
"""A recommendation set out under its own head: "**Recommend:** record `pipe_stats` …", "**Recommendation (lazy):**"
with its text on the lines after it, a "## Recommendation" heading."""
_RECOMMENDING = re.compile(r"\b(?:I(?:'d|\s+would)?\s+recommend|my\s+recommendation\s+is)\b", re.IGNORECASE)
"""A recommendation said in a sentence: "I recommend **quarantine** — …", "My recommendation is the two tweaks"."""
_MARKED_RECOMMENDED = re.compile(r"^[ \t>|*_#-]*(?P<title>[^\n(]{3,}?)[*_ \t]*\((?:recommended)\)",
                                 re.IGNORECASE | re.MULTILINE)  # fmt: skip
"""An option marked as the one recommended: "- **Warn, don't delete** (recommended): removing a declaration …"."""
_MARKUP_MARKS = re.compile(r"[*`|]+|(?<!\w)_+|_+(?!\w)|(?:^|(?<=\s))[#>]+(?=\s)")
"""Markdown's marks: emphasis, code, table bars, a heading's or a quote's marks; not the `_` inside a name
(`pipe_stats`) nor the `#` of an issue (#26)."""
_TABLE_RULE = re.compile(r"\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*")
"""A table's rule under its header row: neither it nor the header ("| Aspect | Decision |") is what is recommended."""


def recommendation(turn: str | None, config: Config = DEFAULT_CONFIG) -> str | None:
    """What the agent's turn recommends, the last recommendation in it (the one its closing question puts): the text
    under a "Recommendation:" head (on its line, else the paragraph after it), the sentence that says "I recommend",
    or the title of the option marked "(recommended)"; its first sentence (the reasons follow it), without markup,
    clipped to `Config.option_chars`; or, when it names an option the turn offers, that option ("option A: …")."""
    if not turn:
        return None
    tail = turn[-QUESTION_TAIL_CHARS:]
    found: list[tuple[int, str]] = []
    for head in _RECOMMENDATION_HEAD.finditer(tail):
        text = head.group("text").strip()
        if not text:  # the head alone on its line: what it recommends is the paragraph after it
            rest = tail[head.end() :].lstrip("\n")
            lines = rest.split("\n\n", 1)[0].splitlines()
            ruled = [n for n, line in enumerate(lines) if _TABLE_RULE.fullmatch(line)]
            text = " ".join(line.strip() for n, line in enumerate(lines) if n not in ruled and n + 1 not in ruled)
        found.append((head.start(), text))
    for said in _RECOMMENDING.finditer(tail):  # from "I recommend" to the end of its line: its sentence is the first
        end = tail.find("\n", said.start())
        found.append((said.start(), tail[said.start() : end if end >= 0 else len(tail)]))
    found += [(marked.start(), marked.group("title")) for marked in _MARKED_RECOMMENDED.finditer(tail)]
    if not found:
        return None
    text = " ".join(_MARKUP_MARKS.sub("", max(found)[1]).split())
    option = picked_option(picked_label(text), turn)  # "I recommend **Option A** because:": A, as offered
    if option is not None:
        return option
    first = next(iter(sentences(text)), None)  # what it recommends; the sentences after it say why
    return clip(first.text, config.option_chars) if first is not None and any(c.isalnum() for c in first.text) else None


def picked_label(clause: str) -> str | None:
    """The label of the option a reply picks ("let's go with A" → A), or None."""
    found = _PICK.search(clause)
    return next(group for group in found.groups() if group).upper() if found else None


def picked_option(label: str | None, turn: str | None) -> str | None:
    """A picked option as "option A: its text", when the agent's turn before the reply offered that label."""
    text = offered_options(turn).get(label) if label and turn else None
    return f"{_OPTION_PICKED}{label}: {text}" if text else None


_OPTION_PICKED, _RECOMMENDED_PICKED = "option ", "recommended: "
"""How a decision's context (`Invariant.context`) opens when the decision picks what the agent offered."""


def picks(item: Invariant) -> bool:
    """Is the item a decision that picks an option or the agent's recommendation (`picked_option`, `recommendation`)?
    Its own words ("go for recommended", "let's go with A") say nothing without what was picked: a summary that quotes
    them in its list of the user's messages has not kept the decision, one that says what was picked has."""
    return item.kind is InvariantKind.USER_DECISION and (item.context or "").startswith(
        (_OPTION_PICKED, _RECOMMENDED_PICKED))


def user_items(record: SourceRecord, asked: str | None = None, turn: str | None = None, *, shown: str = "",
               config: Config = DEFAULT_CONFIG) -> Iterator[Invariant]:  # fmt: skip
    """Typed items from one user statement (a prompt, a question-tool answer, rejection feedback).

    A short decision ("A. is fine, ensure we log", "let's keep it simple for now") says little on its
    own: it borrows the topic of `asked`, the question the agent had just put (for a question-tool answer, the
    tool's question), to be found again. A question-tool answer that only says go ("Yes, proceed.") is no item. A reply
    that picks an option by its label ("let's go with A") means nothing to the next agent without what A
    was: it carries the option's text from `turn`, the agent's turn before it. A sentence copied from the agent's
    latest words (`shown`) is the agent's, not the user's (`_plain`); a copy alone is the user's only on one line,
    the option it picks (duet_cd680c64's "1. Fix the ingest — … This is the correct fix."): copies over several lines
    are a passage quoted (lightprotocol_345198a8's pasted review under "remove all of these", read as the user's rules).
    """
    answered = record.extra.get("via") == "question-tool"
    said = list(statement_sentences(record.text, record.author))
    if shown:  # the agent's words copied to answer them are the agent's; a copy alone may be the choice it names
        lowered = shown.lower()
        whole = cache(lambda: _plain(lowered))
        unseen = [not _copied(s.text, lowered, whole, config) for s in said]
        copies = [s.start for s, new in zip(said, unseen, strict=True) if not new]
        passage = len(copies) > 1 and record.text.find("\n", copies[0], copies[-1]) != -1  # over more than a line
        if passage or any(new and any(c.isalpha() for c in s.text) for s, new in zip(said, unseen, strict=True)):
            said = [s for s, new in zip(said, unseen, strict=True) if new or len(s.text) < config.quoted_back_chars]
    language = language_of(" ".join(sentence.text for sentence in said))  # of the words typed, not of a paste
    label: str | None = None  # "A." alone is a sentence of its own; the one after it says what of A
    for number, sentence in enumerate(said):
        alone = _LABEL_ALONE.fullmatch(sentence.text.strip())
        if alone:
            label = alone.group(1).upper()
            continue
        for clause in _clauses(sentence.text):
            if not any(char.isalnum() for char in clause):
                continue  # a stop left alone by the split ("." after "SUPERUSER_EMAILS と同じ"): no words, nothing said
            kind = InvariantKind.USER_DECISION if answered else statement_kind(clause, language)
            recommended = recommendation(turn, config) if not answered and _PICKS_RECOMMENDED.match(clause) else None
            if recommended is not None:
                kind = InvariantKind.USER_DECISION
            if kind is None or len(clause) > config.statement_chars:
                continue
            context = (f"{_RECOMMENDED_PICKED}{recommended}" if recommended is not None else
                       picked_option(picked_label(clause) or label, turn) if not answered else None)  # fmt: skip
            if answered and _GO_AHEAD.fullmatch(clause):
                continue
            tool_question = question_answered(record, sentence.text) if answered else None
            shown_as = question_label(record, sentence.text) if answered else None
            if context is None and len(topic_terms(clause)) < config.min_terms:
                question = tool_question if answered else asked
                context = question if question and len(topic_terms(f"{clause} {question}")) >= config.min_terms + 1 \
                    else None
                if context is None:
                    continue
            replaces = _replaced(clause, config) if kind is InvariantKind.CORRECTION else None
            quote = sentence.text if sentence.text != clause else None
            if number and clause == sentence.text and _ANAPHORIC.match(clause) and not answered:
                whole = f"{said[number - 1].text} {clause}"  # "…it should default to all. This needs to persist …"
                if len(whole) <= config.statement_chars:
                    clause, quote = whole, None
            yield Invariant(f"{kind.value}:{record.key}#{number}", kind, clause, record.key, replaces=replaces,
                            quote=quote, context=context, asked=tool_question if context is None else None,
                            label=shown_as)  # fmt: skip


def question_answered(record: SourceRecord | None, said: str) -> str | None:
    """The question a question tool put, when `said` is (in) the user's answer to it: "Yes, fixed control view."
    tells the next agent nothing without "Should we drop the first-person walking entirely?". It is shown with the
    answer; it is matched only with an answer too short to be found by its own words ("3 conditions."), as a typed
    reply borrows the agent's question (`user_items`)."""
    stretch = _answer_stretch(record, said)
    return (str(stretch[2]) or None) if stretch else None


def question_label(record: SourceRecord | None, said: str) -> str | None:
    """The short label the question tool showed the question under ("Finding 5"), when `said` is (in) the answer
    to one that had a label: a summary may list the answer by it alone ("Finding 5: Skip")."""
    stretch = _answer_stretch(record, said)
    return (str(stretch[3]) or None) if stretch and len(stretch) == 4 else None


def _answer_stretch(record: SourceRecord | None, said: str) -> list[Any] | tuple[Any, ...] | None:
    """The reader's `extra["asked"]` entry of the answer `said` is (in): [start, end, question] in the record's text,
    and the question's label when it had one."""
    at = record.text.find(said) if record is not None else -1
    if record is None or at < 0:
        return None
    for stretch in record.extra.get("asked") or ():
        if isinstance(stretch, list | tuple) and len(stretch) in (3, 4) and stretch[0] <= at < stretch[1]:
            return stretch
    return None


_MARKUP = re.compile(r"[*_`]+")
_WORD_RUN = re.compile(r"[^\W_]+")


def _copied(sentence: str, lowered: str, whole: Callable[[], str], config: Config = DEFAULT_CONFIG) -> bool:
    """Is the sentence, without markup (`_plain`), in the agent's words (`lowered`, in lower case; `whole`, those
    words without markup, worked out once if asked)? Looked for around each place its longest word is, so a message is
    not paid for by the whole of the agent's latest words, unless that word is in many places."""
    plain = _plain(sentence)
    words = _WORD_RUN.findall(plain)
    if not words:
        return False
    word = max(words, key=len)
    if lowered.count(word) > config.copy_places:
        return plain in whole()
    reach = 3 * len(sentence)  # markup only shortens: the copy, marked up, lies within this of its longest word
    at = lowered.find(word)
    while at >= 0:
        if plain in _plain(lowered[max(0, at - reach) : at + reach]):
            return True
        at = lowered.find(word, at + 1)
    return False


def _plain(text: str) -> str:
    """Text without markdown's emphasis and code marks, its blanks made one, in lower case: the agent's list item as
    the user copied it from the rendered page ("either remove it from `enabledPlugins`" → "…from enabledPlugins").
    A sentence of the user's found so in the agent's latest words is the agent's words quoted back (duet_cd680c64:
    "Make the call and either remove it from enabledPlugins or document the boundary.", pasted above the user's
    answer "yes, retire old frontend-design"), as long as it is `Config.quoted_back_chars` or more."""
    return " ".join(_MARKUP.sub("", text).split()).lower()


def reply_to(item: Invariant, record: SourceRecord | None) -> str | None:
    """What a user's item answered, to show beside it: the question or option it borrowed (`Invariant.context`), else
    the question the question tool put when the item is (in) an answer to it. `record`: the item's own."""
    return item.context or question_answered(record, item.quote or item.text)


__all__ = ["QUESTION_TAIL_CHARS", "USER_KINDS", "last_question", "offered_options", "picked_label", "picked_option",
           "picks", "question_answered", "question_label", "recommendation", "reply_to", "statement_kind",
           "statement_sentences", "user_items"]  # fmt: skip
