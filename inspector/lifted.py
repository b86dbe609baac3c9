"""A prohibition the user lifted later: "Never force-push to the release branch." … "Scratch that, you can
force-push to the release branch today."

A correction with "instead" or "No, don't …" is an item of its own, and the topic it corrects is owed in its new
words; but a permission states no rule, so nothing in the log marks the old one as gone. Given back after a
compaction, or listed for the compactor as standing, the old "never" would forbid what the user has since allowed.
So a constraint that forbids is retired by the first later typed clause that allows the same act: one that grants
("you can", "feel free to", "go ahead and", "it's fine to") or withdraws what was said ("scratch that", "forget what
I said"), forbids nothing itself, names the act forbidden (the first word the prohibition's "never" governs) and
carries most of its topic (`Config.kept_coverage`, the share that keeps an item in a summary): the same act on the
same thing, not "you can see the release branch failing".
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import replace

from inspector.config import DEFAULT_CONFIG, Config
from inspector.model import TRANSCRIPT, Invariant, InvariantKind, SourceRecord
from inspector.presence import topic_terms
from inspector.statement_force import NEGATING, forbidding
from inspector.statements import statement_sentences

_ALLOWING = re.compile(
    r"\b(?:you (?:can|may|are allowed to|have my permission to)(?!\s*(?:not|n't|'t)\b)|feel free to|go ahead and|"
    r"it(?:'s| is) (?:fine|ok|okay|alright) to|(?:you're|you are) free to|scratch that|disregard (?:that|what i said)|"
    r"forget (?:that|what i said|about that)|ignore (?:that|what i said|my (?:earlier|last|previous)))",
    re.IGNORECASE,
)
"""A clause that allows what was forbidden, or withdraws what was said."""
_NO = frozenset(word.replace("'", "") for word in NEGATING) | NEGATING


def lifted(items: list[Invariant], records: Sequence[SourceRecord], order: dict[str, int],
           config: Config = DEFAULT_CONFIG) -> Iterator[Invariant]:  # fmt: skip
    """`items`, each prohibition the user later allowed retired by the record that allowed it."""
    allowing = [(order.get(r.key, 0), r.key, clause) for r in records
                if r.namespace == TRANSCRIPT and r.kind == "user" and r.authority == "user"
                for clause in _allowing_clauses(r.text)]  # fmt: skip
    for item in items:
        if item.kind is not InvariantKind.USER_CONSTRAINT or item.retired_by or not forbidding(item.text):
            yield item
            continue
        topic, act = topic_terms(item.text) - _NO, _forbidden_act(item.text)
        since = order.get(item.source_key or "", 0)
        by = next((key for at, key, clause in allowing if at > since and act and act <= topic_terms(clause)
                   and len(topic & topic_terms(clause)) >= config.kept_coverage * len(topic)), None)  # fmt: skip
        yield replace(item, retired_by=by) if by else item


def _forbidden_act(text: str) -> frozenset[str]:
    """The first content word after the word that forbids: the act ("never *force-push* to …", "don't *touch* …")."""
    found = forbidding(text)
    for word in text[found.end() :].split() if found else ():
        terms = topic_terms(word) - _NO
        if terms:
            return terms
    return frozenset()


def _allowing_clauses(text: str) -> Iterator[str]:
    for sentence in statement_sentences(text):
        if _ALLOWING.search(sentence.text) and not forbidding(sentence.text):
            yield sentence.text


__all__ = ["lifted"]
