"""Trace text made inert for each place it is written: one escaping function per output kind.

Trace text comes from other people's machines. Written raw, it can act instead of being read: an
escape sequence retitles a terminal, a bidi override makes a line show other text than it holds
(Trojan Source), a tag character hides an instruction a human never sees. Every writer goes through
the function for its output kind; HTML goes through `html.escape` in `inspector.render`.

The character classes below are the one definition of "hidden": the text pane marks them, the
`hidden-characters` rule reports them, and the terminal writer spells them out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
"""Embeddings, overrides and isolates: they reorder how text is displayed (Trojan Source).

The implicit marks (LRM, RLM, ALM) are left out: they only nudge neutral characters, and ordinary
Hebrew and Arabic text carries them.
"""

_INVISIBLE_RANGES = (
    ("\u200b", "\u200b"),  # zero-width space
    ("\u2060", "\u2064"),  # word joiner, invisible operators
    ("\ufeff", "\ufeff"),  # a byte-order mark inside text
    ("\U000e0000", "\U000e007f"),  # tag characters: invisible ASCII ("ASCII smuggling")
    ("\U000e0100", "\U000e01ef"),  # variation selectors 17-256: arbitrary bytes hidden after a character
)
"""Characters that render as nothing yet carry content. Zero-width joiners are left out: emoji need them."""

HIDDEN = re.compile(
    "[" + re.escape(BIDI_CONTROLS) + "".join(f"{re.escape(a)}-{re.escape(b)}" for a, b in _INVISIBLE_RANGES) + "]"
)
"""One hidden character: a bidi control or an invisible one."""

TERMINAL_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f" + HIDDEN.pattern[1:])
"""What a terminal must not receive raw: C0 and C1 controls (escape sequences start with ESC or CSI), DEL,
and the hidden characters. Tab and newline are layout, kept where a writer keeps lines."""


def code_point(char: str) -> str:
    """How a hidden or control character is spelled when shown: `\\u202e`, `\\x1b`, `\\U000e0041`."""
    number = ord(char)
    if number <= 0xFF:
        return f"\\x{number:02x}"
    if number <= 0xFFFF:
        return f"\\u{number:04x}"
    return f"\\U{number:08x}"


def hidden_characters(text: str) -> list[tuple[int, str]]:
    """(offset, character) of each hidden character in `text`, in order."""
    return [(match.start(), match.group()) for match in HIDDEN.finditer(text)]


def terminal_text(text: str, *, keep_newlines: bool = False) -> str:
    """Text for a terminal: every control and hidden character spelled as its code point.

    A newline is spelled too unless the writer prints the text as lines of its own
    (`keep_newlines`): inside a one-line field, a raw newline could forge a line of the report.
    """
    spelled = _spelled(text)
    return spelled if keep_newlines else spelled.replace("\n", "\\n")


def visible(text: str) -> str:
    """Text shown where no markup fits (a table cell, a tooltip, a graph label): each control and hidden
    character spelled as its code point, line breaks and tabs kept. A bidi override in a table cell
    would otherwise reorder what a reviewer reads there just as it did in the text pane."""
    return _spelled(text)


def _spelled(text: str) -> str:
    return TERMINAL_UNSAFE.sub(lambda m: code_point(m.group()), text)


def _one_line(text: str) -> str:
    """Markdown fields sit inside a line: a line break would end a table row or start a heading."""
    return _spelled(" ".join(text.split()))


_MARKDOWN_PUNCTUATION = re.compile(r"[!-/:-@\[-`{-~]")
"""Every ASCII punctuation character: CommonMark lets a backslash make any of them literal."""


def markdown_text(text: str) -> str:
    """Text for Markdown prose: on one line, every ASCII punctuation character backslash-escaped.

    Escaping all of them, not a chosen few, leaves no construct to forget: no tag, entity, link,
    image, emphasis, heading, list, table pipe, or GFM autolink (`:` and `.` are escaped too).
    """
    return _MARKDOWN_PUNCTUATION.sub(lambda m: "\\" + m.group(), _one_line(text))


def markdown_code(text: str) -> str:
    """Text in a code span whose fence is longer than any run of backticks inside: nothing in it is markup.

    Hidden characters and controls are spelled even here: a code span still shows a bidi override.
    """
    flat = _one_line(text)
    longest = max((len(run) for run in re.findall("`+", flat)), default=0)
    fence = "`" * (longest + 1)
    return f"{fence} {flat} {fence}"


_FORMULA = re.compile(r"'*[=+\-@\t\r]")
"""A cell a spreadsheet would run as a formula (OWASP's list), behind any number of apostrophes."""


def csv_cell(value: object) -> object:
    """A value for a CSV cell: text a spreadsheet would run as a formula gets an apostrophe in front.

    Only text: a number written from an int or float (a negative trend) stays a number. Text that
    already starts with apostrophes before a formula character gets one more, so `from_csv_cell`
    can take exactly one off and a round trip loses nothing: `=1` is written `'=1`, `'=1` as `''=1`.
    """
    return "'" + value if isinstance(value, str) and _FORMULA.match(value) else value


def from_csv_cell(cell: str) -> str:
    """The text `csv_cell` was given: one apostrophe off a cell it escaped, any other cell as is."""
    return cell[1:] if cell.startswith("'") and _FORMULA.match(cell, 1) else cell


_JSON_UNSAFE = re.compile("[\x7f-\x9f" + HIDDEN.pattern[1:])
"""What orjson writes raw that a terminal must not receive: DEL, C1 controls, hidden characters (C0 it escapes)."""


def inert_json(document: bytes) -> bytes:
    """orjson's UTF-8 output with DEL, C1 and hidden characters written as `\\u` escapes: the same value, inert on
    screen (`inert_json_pieces`, joined)."""
    return b"".join(inert_json_pieces(document))


def inert_json_pieces(document: bytes) -> Iterator[bytes | memoryview]:
    """`inert_json` in pieces, in order, for a writer that writes them one by one: a piece kept as it is is a view
    of the document, not a copy, so a report is not held twice.

    For JSON whose structure is ASCII (orjson's output), where such a character can only sit inside a string, so
    escaping it changes no value. Each is one character, so the document is looked at in pieces cut between
    characters, and a piece of ASCII without DEL (most of any report) is kept as it is, found in C rather than by
    the pattern: a 40 MB report took 0.26 s to scan. Bytes in and out: every writer of it writes bytes, and a
    report decoded, escaped, given its newline and encoded again was held as text beside itself (two or four bytes
    a character where it holds one past U+00FF): 80 MB more at the peak of the 100 MB × 364-summary bench shape.
    """
    if _inert_as_is(document):
        yield document
        return
    view = memoryview(document)
    start, size = 0, len(document)
    while start < size:
        end = min(start + _JSON_PIECE, size)
        while end < size and 0x80 <= document[end] < 0xC0:
            end += 1  # a UTF-8 continuation byte: the piece ends after the character it continues
        piece = document[start:end]
        yield view[start:end] if _inert_as_is(piece) else _JSON_UNSAFE.sub(_json_escaped, piece.decode()).encode()
        start = end


def _inert_as_is(document: bytes) -> bool:
    """ASCII without DEL: nothing in it `inert_json` escapes (the only ASCII character `_JSON_UNSAFE` holds)."""
    return document.isascii() and b"\x7f" not in document


_JSON_PIECE = 4096
"""How many bytes of a JSON document are kept or scanned at once: bounds work, not what is found (small enough that
most pieces of a report are pure ASCII, large enough that the pieces cost nothing)."""


def _json_escaped(match: re.Match[str]) -> str:
    return _json_escape(ord(match.group()))


def _json_escape(number: int) -> str:
    if number <= 0xFFFF:
        return f"\\u{number:04x}"
    number -= 0x10000  # beyond the BMP: a UTF-16 surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (number >> 10):04x}\\u{0xDC00 + (number & 0x3FF):04x}"


__all__ = ["HIDDEN", "code_point", "csv_cell", "from_csv_cell", "hidden_characters", "inert_json", "inert_json_pieces",
           "markdown_code", "markdown_text", "terminal_text", "visible"]  # fmt: skip
