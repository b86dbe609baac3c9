"""A summary its harness changed as it stored it: the next agent reads text the summarising model never wrote.

Claude Code pastes a copy of a summary's own analysis wherever the summary held "$`"
(`inspector.readers.pasted_analysis`), so code the summary quoted, a regular expression's closing `$` most often,
reaches the next agent broken, with a kilobyte or more of repeated analysis in the middle of its line. The copy
is certain (a verbatim repeat of the block the summary opened with) and so is what it replaced; what it costs the
next agent depends on the code it broke, so the rule warns.
"""

from __future__ import annotations

from collections.abc import Iterator

from inspector.facts import TraceFacts
from inspector.model import PASTED_FOR, Severity
from inspector.rule_registry import Hit, rule
from inspector.text import quoted

_NAMED = 2
"""Places a message quotes; the evidence lists them all."""


def _before(text: str, start: int, limit: int = 60) -> str:
    """The end of the line a copy begins in, up to the copy, within `limit` characters: the code the paste cut."""
    line = text[text.rfind("\n", 0, start) + 1 : start]
    return line if len(line) <= limit else "…" + line[1 - limit :].lstrip()


@rule(
    "summary-text-corrupted",
    Severity.WARNING,
    "The harness changed a summary as it stored it: Claude Code pastes a copy of the summary's own analysis "
    "wherever the summary held “$`” (its String.replace reads the summary as a replacement pattern), so the code "
    "the summary quoted there reaches the next agent without its “$`”, and a copy of the analysis sits in its line.",
)
def summary_text_corrupted(facts: TraceFacts) -> Iterator[Hit]:
    for generation in facts.judged():
        copies, text = generation.pasted, generation.generation.text
        if not copies or text is None:
            continue
        places = [_before(text, start) for start, _ in copies]
        named = ", ".join(f"after {quoted(place)}" for place in places[:_NAMED])
        more = f" and {len(places) - _NAMED} more" if len(places) > _NAMED else ""
        where = f"at {len(places)} places ({named}{more})" if len(places) > 1 else named
        size = copies[0][1] - copies[0][0]
        message = (
            f"{generation.generation.label} was corrupted as Claude Code stored it: {where} a copy of its own "
            f"analysis ({size:,} characters) stands where the summary held {quoted(PASTED_FOR)}, so the next agent "
            f"reads the code there without it"
        )
        evidence = {"replaced": PASTED_FOR, "copy_characters": size,
                    "places": [{"after": place, "start": start, "end": end}
                               for place, (start, end) in zip(places, copies, strict=True)]}  # fmt: skip
        yield Hit(generation.generation.index, message, copies[0][0], copies[0][1], evidence)


__all__: list[str] = []  # importing this module registers its rules; they are reached through the registry
