"""A lexicon's regex behind a look-ahead for the characters its matches can start with: the same matches, fewer tries.

Python's `re` tries an alternation that starts at a word boundary (`\\b(?:not|never|until|once|…)`) at every word
boundary of a text, each of its branches in turn. A summary's sentences are read by a dozen such lexicons, and most
of their words start with none of the letters any branch starts with. A leading `(?=[nuo…])` lets `re` reject those
positions with one test of a character class: on the 56,000 sentences of the 100 MB bench session, 1.5 to 2.5 times
faster for each of the claim lexicons. A pattern that opens with a literal character is left as it is: `re` already
searches for that character.

The look-ahead is worked out from the pattern as `re` parses it, so it cannot fall out of step with the lexicon: a
match consumes its first character through the pattern's first consuming element, so that character is one of the
element's. Zero-width elements before it (`\\b`, `^`, look-arounds) are passed over, and a repeat that may run no
time adds what follows it. Where an element matches too many characters to list (`\\w`, a negated class, `.`, a wide
range) or the pattern may match empty, no look-ahead is added. The look-ahead's class is compiled with the pattern's
own flags, so under `re.IGNORECASE` it folds case exactly as the pattern's own literals do. Matches, their spans and
their order are unchanged.
"""

from __future__ import annotations

import re
from re import _constants as sre  # the parsed form `re` compiles from: the only way to read a pattern's structure
from re import _parser

_MAX_CLASS = 64
"""Characters listed at most: a wider range (`[a-z]` is 26) says too little to be worth testing first."""
_ZERO_WIDTH = frozenset((sre.AT_BEGINNING, sre.AT_BEGINNING_STRING, sre.AT_BOUNDARY, sre.AT_NON_BOUNDARY))
"""Assertions that consume nothing and cannot let an empty match through on their own (`$` at the start could)."""
_CATEGORIES = {sre.CATEGORY_SPACE: r"\s", sre.CATEGORY_DIGIT: r"\d"}
r"""Classes of characters a look-ahead may hold as they are; `\w` and the negated ones would let nearly all through."""


def guarded(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`pattern` compiled with a leading look-ahead for its first characters, or as it is when they cannot be told."""
    try:
        parsed = _parser.parse(pattern, flags)
        first = _first_chars(parsed)
        if first and len(first) <= _MAX_CLASS and not _starts_with_a_literal(parsed):
            members = "".join(member if len(member) > 1 else re.escape(member) for member in sorted(first))
            return re.compile(f"(?=[{members}])(?:{pattern})", flags)
    except (re.error, TypeError, ValueError):  # a construct this reading does not know (global inline flags): as it is
        pass
    return re.compile(pattern, flags)


def _starts_with_a_literal(items: list[tuple[object, object]] | _parser.SubPattern) -> bool:
    """Does the pattern open with a literal character (in groups or not)? `re` then finds where it can start by
    searching for that character itself, faster than a look-ahead would (`` `name` `` in backticks)."""
    while items:
        op, argument = items[0]
        if op is not sre.SUBPATTERN:
            return op is sre.LITERAL
        items = argument[-1]  # type: ignore[index]
    return False


def _first_chars(items: list[tuple[object, object]] | _parser.SubPattern) -> set[str] | None:
    r"""What a match of `items` can start with (characters, and `\s` or `\d` for those classes), or None when it
    could be anything or nothing (an empty match)."""
    found: set[str] = set()
    for op, argument in items:
        if op is sre.AT and argument in _ZERO_WIDTH or op in (sre.ASSERT, sre.ASSERT_NOT):
            continue
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT) and argument[0] == 0:  # type: ignore[index]
            chars = _first_chars(argument[2])  # type: ignore[index]
            if chars is None:
                return None
            found |= chars  # it may run no time: what follows may start the match too
            continue
        chars = _element_first_chars(op, argument)
        return None if chars is None else found | chars
    return None  # nothing needs to consume: the pattern may match empty


def _element_first_chars(op: object, argument: object) -> set[str] | None:
    if op is sre.LITERAL:
        return {chr(argument)}  # type: ignore[arg-type]
    if op is sre.IN:
        return _class_chars(argument)  # type: ignore[arg-type]
    if op is sre.BRANCH:
        found: set[str] = set()
        for branch in argument[1]:  # type: ignore[index]
            chars = _first_chars(branch)
            if chars is None:
                return None
            found |= chars
        return found
    if op is sre.SUBPATTERN:
        _, added, removed, body = argument  # type: ignore[misc]
        return _first_chars(body) if not (added or removed) else None  # a group's own flags: no look-ahead
    if op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
        return _first_chars(argument[2])  # type: ignore[index]  # runs at least once (`_first_chars` took the rest)
    return None


def _class_chars(members: list[tuple[object, object]]) -> set[str] | None:
    found: set[str] = set()
    for op, argument in members:
        if op is sre.LITERAL:
            found.add(chr(argument))  # type: ignore[arg-type]
        elif op is sre.RANGE and argument[1] - argument[0] < _MAX_CLASS:  # type: ignore[index,operator]
            found.update(map(chr, range(argument[0], argument[1] + 1)))  # type: ignore[index,operator]
        elif op is sre.CATEGORY and argument in _CATEGORIES:
            found.add(_CATEGORIES[argument])  # type: ignore[index]
        else:  # a negated class, `\w`, a wide range
            return None
    return found


__all__ = ["guarded"]
