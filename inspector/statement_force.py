"""How strongly a user's statement binds the next agent: a rule it must keep, or a wish it should weigh.

A finding's severity is how sure a careful reviewer would be, without reading further, that the loss harms
the next agent. "Never touch staging", "it must default to off", "keep it local!", "no, remove this again"
are rules: gone from a summary, the next agent breaks them, and a reviewer agrees at once. "Let's avoid
duplication", "I think B", "it would be good to note the load", "maybe test this first" are wishes and
suggestions: their loss matters, but whether it harmed depends on what came after, which the reviewer must
read. So a statement binds when it carries a prohibition, an obligation or an imperative to leave
something as it is, or corrects the agent, and no hedge softens it; the rest are reported as warnings.
"""

from __future__ import annotations

import re

from inspector.languages import FOREIGN_PROHIBITION, statement_language

PROHIBITING = ("never", "don't", "do not", "must not", "mustn't", "shall not", "may not", "not allowed", "forbidden",
               "prohibited", "read-only", "readonly", "off-limits", "off limits")  # fmt: skip
"""Words that forbid: the one list the native extractor's prohibition rule (`invariants`), the miner's
constraint rule (`items`) and the matcher's "its prohibition is gone" (`item_matching`) read."""
_IRREGULAR_PASTS = (
    "was were did had got made ran went saw said told wrote took gave knew thought found came left sent spent built "
    "brought bought caught taught felt meant heard held stood understood lost paid sold broke chose spoke drove fell "
    "forgot began drank threw grew drew flew seen done gone given taken written known been gotten broken chosen "
    "spoken driven fallen forgotten begun thrown grown drawn flown"
)
"""English's irregular simple pasts and past participles that differ from the base form (`put`, `set`, `read` do
not, and stay ambiguous): what "never" before one tells, not forbids."""
_PAST = rf"(?:{'|'.join(_IRREGULAR_PASTS.split())}|(?!(?:embed|shed|shred|wed)\b)[a-z]*[a-df-z]ed)"
"""A past form: an irregular one, or a word ending in "ed" not after another "e" ("changed", "asked"; not "need",
"proceed", "exceed", which are base forms, nor the few base forms that end in "ed" otherwise)."""
_NEVER_FORBIDDING = (r"(?<!\bhave )(?<!\bhas )(?<!\bhad )(?<!'ve )never"
                     rf"(?!\s+(?:(?:really|actually|even|once|ever|properly|fully)\s+)?{_PAST}\b(?!\s+to\b))")
""""Never" where it forbids ("never touch staging", "we never push to main", "were never meant to run on prod"), not
where it tells the past: "Auto is DNS only i never changed it" (taskai_b74e2201, a correction of what the agent
thought, read as a rule the summary weakened), "I've never seen this error", "it had never been run". A past form
followed by "to" says what was meant or allowed, and forbids ("never meant to", "never supposed to")."""


def prohibiting_pattern(words: tuple[str, ...] = PROHIBITING) -> str:
    """`words` as one regex alternation, "never" only where it forbids (`_NEVER_FORBIDDING`)."""
    return "|".join(_NEVER_FORBIDDING if word == "never" else re.escape(word) for word in words)


PROHIBITION = re.compile(rf"\b(?:{prohibiting_pattern()})\b", re.IGNORECASE)
"""A statement that forbids: one of `PROHIBITING`."""
NEGATING = frozenset(
    "never not no don't dont cannot can't mustn't shouldn't won't isn't aren't without avoid forbidden prohibited "
    "read-only readonly off-limits nothing none".split()
)
"""Words that say no, one word each: the negation markers an item's force is weighed by (`invariants`), and
what a passage must still say for a prohibition to have kept its force (`item_matching`)."""
_OBLIGATION = re.compile(
    r"\b(?:must|have to|has to|need to|needs to|required|requires?|make sure|ensure|only)\b", re.IGNORECASE
)
LEAVE_AS_IS = re.compile(r"(?<!\bwe )(?<!\bi )(?<!\byou )(?<!\bthey )\b(?:keep|leave|preserve)\s+(?:it|them|this|that|"
                          r"these|those)\b", re.IGNORECASE)  # fmt: skip
"""An imperative to leave something as it is ("keep it local", "leave them alone"), not a report of what
someone keeps ("we keep it in the cache")."""
_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|probably|possibly|i think|i guess|i suppose|i (?:don't|dont|do not) (?:think|believe|suppose)|"
    r"might|could|would be (?:good|nice|great|better)|"
    r"consider|let's|lets|let us|seems?|sounds?|ideally|if (?:possible|needed|you can)|"
    r"for (?:now|the moment|the time being))\b",
    re.IGNORECASE,
)
"""What makes a statement a suggestion: doubt ("I think", and its negation: "I don't think the reviewer would have
been making commits" doubts a cause, it forbids nothing), a proposal ("let's"), a judgement that invites another, a rule
said to hold only for now ("don't open an upstream PR for now": the user means to revisit it). Hedges
are read in English only, so in other languages only a prohibition binds (`languages.FOREIGN_PROHIBITION`):
"nunca", "절대", "不要" leave no doubt to read; an obligation's may be in words not listed."""


WAIVER = re.compile(r"\b(?:don't|dont|do not|doesn't|does not|never)\s+(?:really\s+|actually\s+|even\s+|"
                    r"necessarily\s+)?(?:need|have|has)\s+to\b|\bno need to\b", re.IGNORECASE)  # fmt: skip
"""A waiver: "we don't really need to mention ralph", "you don't have to rerun it", "no need to restart". It
lifts an obligation and forbids nothing, so neither its "don't" nor its "need to" makes a rule of the statement."""


DOUBT = re.compile(r"\b(?:i|we)\s+(?:don't|dont|do not)\s+(?:really\s+)?(?:think|believe|suppose|reckon)\b"
                   r"(?![^.;!?\n]*\b(?:should|ought to|shall)\b)(?:(?!\b(?:but|however|though)\b)[^.;!?\n])*",
                   re.IGNORECASE)  # fmt: skip
"""A doubt of what is so: "I don't think the reviewer would have been making commits" (cli_0cf3db51, disputing the
agent's race theory; its labels call it a correction the investigation then left behind), "so I dont think that we
need to avoid migrations based on dev". Its "don't" is the belief's, and what it doubts, to the end of its sentence,
is no rule of the user's (the migrations are not to be avoided), up to a "but" that says what is; "I don't think we
should push yet" still forbids, by its "should"."""


def without_waivers(text: str) -> str:
    """The statement with its waivers (`WAIVER`) and doubts (`DOUBT`) blanked out, each by as many spaces: what is
    left to forbid or oblige, at the offsets it had."""
    return DOUBT.sub(_blank, WAIVER.sub(_blank, text))


def _blank(found: re.Match[str]) -> str:
    return " " * len(found.group())


def forbidding(text: str) -> re.Match[str] | None:
    """Where a statement forbids: its first `PROHIBITION` outside a waiver. Every reader of an item's prohibition
    asks this, so "keep it local, you don't have to test it" is no prohibition to lose, lift or break."""
    return PROHIBITION.search(without_waivers(text))


_TAKING_OUT = re.compile(r"\b(?:remov|delet|revert|undo\b|undid\b|get rid of\b|"
                         r"take (?:it|this|that|them|these|those) out\b)", re.IGNORECASE)  # fmt: skip
"""A correction that takes something out: "no remove this again", "revert that", "get rid of the banner"."""
_DECLINING = re.compile(r"^\W*no\b.*?\b(?:is|are|looks?|seems?)\s+(?:fine|ok|okay|good|right)\b", re.IGNORECASE)
"""A correction that declines the change the agent proposed: "No I think this is fine and has to much risk of false
positive."."""


_NOT_DOING = re.compile(r"\b(?:let'?s|let us)\s+not\b", re.IGNORECASE)
"""A decision not to do something: "let's not archive mirror - still useful"."""


def standing(statement: str) -> bool:
    """Does a correction or a decision hold past the work that carried it out? One that asks for a change ("instead it
    should say `git add`") is done once made, and the code shows it made; one that takes something out, forbids,
    declines a change, decides against one ("let's not archive mirror", duet_cd680c64, kept by S1 and dropped by S2,
    whose labels call that a loss) or keeps something as it is leaves nothing in the code to say so, and the next
    agent may undo it."""
    return bool(_TAKING_OUT.search(statement) or forbidding(statement) or _DECLINING.search(statement)
                or LEAVE_AS_IS.search(statement) or _NOT_DOING.search(statement))


def binding(text: str, correction: bool = False) -> bool:
    """Does the statement bind the next agent (a rule), rather than suggest (a wish)? A correction binds by
    what it is: the agent was wrong, and the summary that drops it lets the next agent be wrong again. A statement
    in another language binds by its own language's words, never by an English word it borrows ("기존 only 유료
    플랜" is "the existing paid-only plan", no "only" of a rule)."""
    if _HEDGE.search(text):
        return False
    text = without_waivers(text)
    read_in_english = statement_language(text) in (None, "en")
    english = read_in_english and (PROHIBITION.search(text) or _OBLIGATION.search(text) or LEAVE_AS_IS.search(text))
    return correction or bool(english or FOREIGN_PROHIBITION.search(text))


__all__ = ["DOUBT", "LEAVE_AS_IS", "NEGATING", "PROHIBITING", "PROHIBITION", "WAIVER", "binding", "forbidding",
           "prohibiting_pattern", "standing", "without_waivers"]
