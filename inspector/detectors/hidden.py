"""Hidden characters in a summary or a key: the text a reviewer reads is not the text the agent reads.

A bidi override makes a line display other text than it holds (Trojan Source); tag characters carry
ASCII no one sees (ASCII smuggling). Which characters count is `inspector.inert.HIDDEN`; the text pane
shows each one as a marked code point, and this rule says where they are.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from inspector.facts import TraceFacts
from inspector.inert import code_point, hidden_characters, terminal_text
from inspector.model import Severity
from inspector.rule_registry import Hit, rule
from inspector.text import clip

_NAMED = 3
"""Distinct code points a message names; the evidence lists them all."""

_BOM = "\ufeff"
_TAG_ASCII = range(0xE0020, 0xE007F)
"""Tag characters that mirror printable ASCII (U+E0020 space to U+E007E tilde)."""


def _reported(text: str) -> list[tuple[int, str]]:
    """Hidden characters worth a finding: all of them but a byte-order mark opening the text (a file's)."""
    return [(offset, char) for offset, char in hidden_characters(text) if offset or char != _BOM]


def _smuggled(chars: Sequence[str]) -> str:
    """The ASCII that tag characters spell: what an agent may read and a human never sees."""
    return "".join(chr(ord(c) - 0xE0000) for c in chars if ord(c) in _TAG_ASCII)


def _described(chars: Sequence[str], where: str) -> tuple[str, dict[str, object]]:
    """A message and evidence for hidden characters: a count, the first code points, any smuggled text.

    Code points are spelled, never quoted raw: the message is itself shown, and must not hide anything.
    """
    distinct = [code_point(c) for c in dict.fromkeys(chars)]
    named = ", ".join(distinct[:_NAMED]) + (", …" if len(distinct) > _NAMED else "")
    plural = "s" if len(chars) != 1 else ""
    message = f"{len(chars)} hidden character{plural} in {where}: {named}"
    evidence: dict[str, object] = {"count": len(chars), "code_points": distinct}
    if spelled := _smuggled(chars):
        message += f'; tag characters spell "{clip(spelled, 60)}"'
        evidence["smuggled"] = clip(spelled, 1_000)
    return message, evidence


@rule(
    "hidden-characters",
    Severity.ERROR,
    "A summary or key holds bidi controls or invisible characters: a reviewer reads other text than the next "
    "agent does, so no reading of it holds. A warning on session logs, whose summaries may quote pasted web "
    "text and math that carry zero-width spaces.",
    session_severity=Severity.WARNING,
)
def hidden_in_summaries_and_keys(facts: TraceFacts) -> Iterator[Hit]:
    for generation in facts.judged():
        text = generation.generation.text
        found = _reported(text) if text is not None else []
        if found:
            message, evidence = _described([char for _, char in found], "the summary text")
            start = found[0][0]
            yield Hit(generation.generation.index, message, start, start + 1, evidence)
    trace = facts.trace
    keys = [("source record key", source.key) for source in trace.sources]
    for invariant in trace.invariants or ():
        keys += [("invariant id", invariant.id), ("invariant source key", invariant.source_key or "")]
    hiding = [(what, key, found) for what, key in keys if (found := _reported(key))]
    if hiding:
        what, key, _ = hiding[0]
        more = len(hiding) - 1
        others = f" and {more} more key{'s' if more > 1 else ''}" if more else ""
        chars = [char for _, _, found in hiding for _, char in found]
        message, evidence = _described(chars, f"{what} '{terminal_text(key)}'{others}")
        evidence["keys"] = [terminal_text(key) for _, key, _ in hiding]
        yield Hit(None, message, evidence=evidence)


__all__: list[str] = []  # importing this module registers its rules; they are reached through the registry
