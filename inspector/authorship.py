"""Who wrote each span of a record: the user's own words apart from what rides in the user's record.

Real logs put much text in `user` records that no person typed: a wrapper's instructions, harness tags,
a sub-agent's report, shell output, pastes. A reader decides the record's author from its format's own
fields (`SourceRecord.authority`); this module then splits a record the user wrote into spans, in two
steps that every format shares:

1. **Envelopes.** Harnesses and wrappers wrap what they inject in tags of their own (`<system-reminder>`,
   Conductor's `<system_instruction>`, `<command-name>`, `<local-command-stdout>`, `<task-notification>`).
   A tag whose name joins words with `-` or `_` is no HTML element a person types, so such a block is
   the harness's (or, for the few tags below, a sub-agent's or a tool's) wherever it stands.
2. **Pastes.** What is left of the user's text can still hold a pasted log, stack trace, table, code or
   document: after a fence or a shell line feeding a here-document, after a line ending in a colon with much
   text after it, a copied terminal session or coding agent's screen, a line that looks machine-written, a log
   message pasted mid-line after a colon, a markdown document (headings), a web page copied from a browser (its
   footer's copyright line), a chat copied from another app (a date or a speaker alone on its line before each
   message), or a passage quoted in backticks across a line break. A paste that runs to the end of a stretch runs
   on through the tags that end it: a pasted prompt's `<output_format>` has a harness's kind of name, and what
   follows it is still the paste.

Only `Author.USER` spans are statements; the detectors never read the others as what the user said.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from inspector.config import DEFAULT_CONFIG
from inspector.model import Author, AuthoredSpan, SourceRecord
from inspector.text import HEADING

_ENVELOPE = re.compile(r"<(?P<tag>[A-Za-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?:\s[^<>]*)?>.*?</(?P=tag)\s*>", re.DOTALL)
"""A block in a tag of the harness's own: a name of joined words, opened and closed."""
_OPEN_ENVELOPE = re.compile(r"<(?P<tag>[A-Za-z][a-z0-9]*(?:[-_][a-z0-9]+)+)(?:\s[^<>]*)?>")
_ENVELOPE_AUTHORS = {
    "task-notification": Author.SUBAGENT,  # a background agent's report, delivered as a user record
    "teammate-message": Author.SUBAGENT,  # an agent team's message: a teammate's report, or the lead's assignment
    "local-command-stdout": Author.TOOL,
    "local-command-stderr": Author.TOOL,
    "bash-stdout": Author.TOOL,
    "bash-stderr": Author.TOOL,
    "bash-input": Author.USER_PASTE,  # typed by the user, but a shell command, not something said
    "command-args": Author.USER,  # the words after a slash command are the user's own
}
"""Tags whose content someone other than the harness wrote; every other joined-word tag is the harness's."""
_HARNESS_LINE = re.compile(r"^\s*\[Request interrupted by user[^\]\n]*\]\s*$|^Caveat: The messages below", re.MULTILINE)
"""Fixed notes the harness writes into a user record without a tag."""
_HOOK_STOPPED = re.compile(r"\A\s*Operation stopped by hook:.*", re.DOTALL)
"""What Claude Code writes in a user record in place of a prompt a hook blocked: the hook's message, to the end
(cli_4b3ddf27: "Operation stopped by hook: Warning: Shadow branch conflict detected! … Options: … 3. Continue the
previous session from the original worktree: …", whose option was mined as the user's requirement)."""
_HARNESS_MARK = re.compile(r"\[Image #\d+\]|\(Image attached\)|\[Pasted text #\d+(?: \+\d+ lines)?\]")
"""The harness's placeholder for what came with the user's words (Claude Code's `[Image #1]` in a prompt, `(Image
attached)` after an answer to its question tool, `[Pasted text #2 +40 lines]`), wherever it stands: no words of
theirs, so nothing they said."""

AUTHORS = "authors"
"""A raw generation's extra key: [start, end, author] of every stretch of it that no person typed to the agent
(tool output, injected text, a sub-agent's report, a paste), so a view can dim and label it."""

TYPED_CHARS = 100_000
"""How much of one user turn is read for statements: far more than anyone types (about 25k tokens).
Past it a turn is a pasted document or dump, and reading a 50 MB paste sentence by sentence would
cost half a minute for nothing the user said."""

_PASTED_LINE = re.compile(
    r"^\s*(?:[$#>]\s|\w[\w.-]*@[\w.-]+:|at\s+[\w.$<>]+\s*\(|File \"|Traceback|[\w./-]+:\d+(?::\d+)?:|[{}\[\]();]\s*$|"
    r"[\w.$<>()]+ @ \S+:\d+|[\w./-]+:\d+(?::\d+)?\s+(?:Uncaught\s+)?(?:Warning|Error|[A-Z]\w*Error)\b|"
    r"(?:import\s+[\w.{*]+(?:\s+(?:as|from)\s.*)?;?\s*$|from\s+[\w.]+\s+import\s|(?:def|func|fn)\s+\w+\s*\(|"
    r"class\s+\w+\s*[:({<]|package\s+[\w.]+;?\s*$|return\b.*;\s*$|(?:const|let|var)\s+[\w{\[]+\s*[:=]|"
    r"(?:public|private|protected)\s+[\w<>\[\]]+\s+\w|#include\s*[<\"])|[│├└╰╭─━×]|"
    r"\s{4,}\S|.*\S(?:\t|\s{3,})\S)"
)
"""A line of a pasted log, shell session, stack trace (a browser console's `render @ chunk.js:2338`, its
`chunk.js:2338 Warning: …`), table or code rather than prose. A code keyword counts
only with the syntax after it ("let x =", "from a import b"): "let's keep it simple", "from now on …" and
"return to the old design" are what people type."""
_MID_LINE_PASTE = re.compile(
    r":\s+(?=(?:(?:Uncaught\s+)?(?:[A-Z][A-Za-z]*(?:Error|Exception|Warning))\b|(?:Warning|Error|ERROR|WARN|WARNING|"
    r"FATAL|FAIL|Traceback|panic)\b[:\s]|npm ERR!|error\[E\d+\]|[❯⏺⎿]))"
)
"""Where a log message pasted into the user's own sentence starts: a colon, then a log level or exception."""
_TRACE_LINE = re.compile(r"^\s*(?:at\s+\S|[\w.$<>()]+ @ \S+:\d+|File \"[^\"]+\", line \d+)")
"""A stack frame: a JavaScript engine's (`    at div`), a browser console's (`render @ chunk.js:2338`), Python's.
A frame starts on the line after its message, so a typed line that runs into frames ended in that message."""
_LOG_TAG = re.compile(
    r"[ \t]*(?:(?:LOG|INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|NOTICE)(?:[ \t]{2,}\S|[ \t]*\[)"
    r"|\[(?![Ii]mage\b|Pasted text\b)[^\]\n]{2,60}\](?!\())"
)
"""A log line's opening: a component, level or time in brackets (`[Proxy]`, `[WARN]`, `[11:34:48.865]`), or a level
in capitals before a tag or a column's padding (React Native's ` LOG  [Storage] …`, ` WARN  [Reanimated] …`, log4j's
`INFO [main] …`); not a markdown link (`[text](url)`), a checkbox (`[x]`) or the harness's placeholder for an image or
a pasted text."""
_LEAD_IN = re.compile(r":\s+(?=\S)")
"""The colon that ends the user's lead-in ("…warnings in the console: arning: Encountered …")."""
_PAGE_FOOTER = re.compile(r"^[ \t]*(?:Copyright[ \t]*)?©[ \t]*\d{4}(?:[-–]\d{2,4})?[ \t]+\S[^\n]{0,80}$",
                          re.MULTILINE)
"""A web page's copyright line, alone on its line (`© 2026 GitHub, Inc.`, `Copyright © 2024 The Rust Project
Developers`): the footer of a copied page. People do not sign what they type to an agent, so the message up to it
(and the footer's links after it) was copied from a browser: a GitHub Actions log, a README as GitHub shows it."""
_GLUED_HEADING = re.compile(r"[.?!][ \t]+(?P<hashes>#{1,6}[ \t]+[A-Z][^\n]*)$", re.MULTILINE)
"""A markdown document pasted straight after a typed sentence, with no line break between ("did we ever do this in a
branch? # Agentic Skill Remediation System"): its heading, mid-line after the sentence's end. A `#` typed in prose
("issue # 12", "C#") has no capitalised title after a sentence's end."""
_OPENING_HEADING = re.compile(r"\s*(?P<hashes>#{1,6}[ \t]+\S)")
"""A markdown heading where the user's stretch opens, right after a tag (`<command-args># Agentic Skill Remediation
System`): a line's start for the document, though no line break comes before it."""
_TERMINAL_PROMPT = re.compile(
    r"^[ \t]*(?:\(\S+\)\s+)?(?:\w[\w.-]*@[\w.-]+:[^\n]*?[$#%]|PS [A-Za-z]:\\[^\n>]*>)(?:[ \t]|$)", re.MULTILINE
)
"""A copied terminal prompt (`me@host:~/app$ `, `PS C:\\app> `): no one types their own host name, so from it
to the next blank line after the last prompt is a terminal session, its output lines however plain."""


def spans_for(text: str, author: Author) -> tuple[AuthoredSpan, ...]:
    """`text`, written by `author` as its reader decided, as spans covering it in order: a user's text split
    into what was typed, pasted and injected; anyone else's one span."""
    if author is not Author.USER:
        return (AuthoredSpan(0, len(text), author),)
    spans: list[AuthoredSpan] = []
    position = 0
    for start, end, inner, (inner_start, inner_end) in _envelopes(text):
        typed, pasting = _typed(text, position, start)
        spans.extend(typed)
        if pasting:  # a paste runs on through a tag of a harness's name inside it: a pasted prompt's `<output_format>`
            spans.append(AuthoredSpan(start, len(text), Author.USER_PASTE))
            return tuple(_merged(text, spans))
        if inner is Author.USER:  # the user's words in a harness's tag: the tags are the harness's
            spans.append(AuthoredSpan(start, inner_start, Author.HARNESS))
            spans.extend(_typed(text, inner_start, inner_end)[0])
            spans.append(AuthoredSpan(inner_end, end, Author.HARNESS))
        else:
            spans.append(AuthoredSpan(start, end, inner))
        position = end
    spans.extend(_typed(text, position, len(text))[0])
    return tuple(_merged(text, spans))


def spans_of(record: SourceRecord) -> tuple[AuthoredSpan, ...]:
    """The record's text as spans with their authors, in order, covering it."""
    return spans_for(record.text, record.author)


def user_spans(record: SourceRecord) -> Iterator[AuthoredSpan]:
    """The spans the user typed: the only ones a statement can come from."""
    return (span for span in spans_of(record) if span.author is Author.USER)


def said_by_user(record: SourceRecord, quote: str) -> bool:
    """Whether `quote` stands in the record inside a span the user typed: what the guard may call theirs."""
    position = record.text.find(quote) if quote else -1
    return position != -1 and any(s.start <= position and position + len(quote) <= s.end for s in user_spans(record))


def author_at(record: SourceRecord, start: int) -> Author:
    """Who wrote the character at `start` of the record (the record's author past its end)."""
    return next((s.author for s in spans_of(record) if s.start <= start < s.end), record.author)


Envelope = tuple[int, int, Author, tuple[int, int]]
"""Where a harness's block starts and ends, whose words are inside it, and where those words are."""


def _envelopes(text: str) -> list[Envelope]:
    """Tagged blocks of the harness's (an opened tag never closed, at a line's start, runs to the end: a
    truncated injection) and its untagged notes, in order, none inside another."""
    found: list[Envelope] = []
    position = 0
    while (opened := _OPEN_ENVELOPE.search(text, position)) is not None:
        closed = _ENVELOPE.match(text, opened.start())
        if closed is None and opened.start() > 0 and text[opened.start() - 1] != "\n":
            position = opened.end()  # a placeholder such as "<feature-name>.md" inside a sentence or a paste
            continue
        end = closed.end() if closed is not None else len(text)
        inner_end = text.rindex("</", opened.end(), end) if closed is not None else end
        author = _ENVELOPE_AUTHORS.get(opened.group("tag"), Author.HARNESS)
        found.append((opened.start(), end, author, (opened.end(), inner_end)))
        position = end
    found += [(m.start(), m.end(), Author.HARNESS, (m.start(), m.end()))
              for pattern in (_HARNESS_LINE, _HARNESS_MARK, _HOOK_STOPPED) for m in pattern.finditer(text)]  # fmt: skip
    found.sort()
    kept: list[Envelope] = []
    for envelope in found:
        if not kept or envelope[0] >= kept[-1][1]:
            kept.append(envelope)
    return kept


def _typed(text: str, start: int, end: int) -> tuple[list[AuthoredSpan], bool]:
    """Spans of the user's own text between envelopes: typed lines, and what was pasted among them; and whether a
    paste runs to the end (a document, a fence, a colon's dump), so that it goes on past the tag that ends the
    stretch: a pasted XML prompt's `<output_format>` has a harness's kind of name, and is no harness's. A passage
    quoted in backticks over several lines (`_quoted_passages`) is pasted wherever it stands, and what is typed
    around it is read as typed text of its own."""
    read_to = min(end, start + TYPED_CHARS)
    spans: list[AuthoredSpan] = []
    position = start
    for quote_from, quote_to in _quoted_passages(text, start, read_to):
        spans += _stretch(text, position, quote_from)[0]
        spans.append(AuthoredSpan(quote_from, quote_to, Author.USER_PASTE))
        position = quote_to
    last, runs_on = _stretch(text, position, read_to)
    spans += [*last, AuthoredSpan(read_to, end, Author.USER_PASTE)]  # past what anyone types
    return spans, runs_on or read_to < end


def _stretch(text: str, start: int, end: int) -> tuple[list[AuthoredSpan], bool]:
    """Typed lines and the paste among them (`_pasted`) of a stretch with no quoted passage; and whether the paste
    runs to its end."""
    paste_from, paste_to = _pasted(text, start, end)
    spans = [*_lines(text, start, paste_from), AuthoredSpan(paste_from, paste_to, Author.USER_PASTE),
             *_lines(text, paste_to, end)]  # fmt: skip
    return spans, paste_from < paste_to == end


_BACKTICKS = re.compile(r"`+")


def _quoted_passages(text: str, start: int, end: int) -> Iterator[tuple[int, int]]:
    """Passages the user quoted in backticks across a line break (a paragraph copied out of a PDF, its lines broken
    where the page broke them, to ask about it): code typed in a sentence (`npm test`) stays on its line, so a quote
    that breaks one was copied. Backtick runs pair in order, a closing run only where it closes a word (no space
    before it: a run with a space before it opens the next code span, and the one before it was left open); a fence
    opening a line (three or more at its start), which `_pasted` reads, or a run left open ends the search."""
    runs = _BACKTICKS.finditer(text, start, end)
    for opening in runs:
        line_start = max(text.rfind("\n", start, opening.start()) + 1, start)
        if len(opening.group()) >= 3 and not text[line_start : opening.start()].strip():
            return
        closing = next(runs, None)
        if closing is None or text[closing.start() - 1].isspace():
            return
        if "\n" in text[opening.end() : closing.start()]:
            yield opening.start(), closing.end()


def _lines(text: str, start: int, end: int) -> list[AuthoredSpan]:
    """Typed lines, a line that looks machine-written pasted, a log pasted mid-line after a colon."""
    spans: list[AuthoredSpan] = []
    line_start = start
    ends = list(_line_ends(text, start, end))
    logged = _logged(text, start, ends)
    for at, line_end in enumerate(ends):
        line = text[line_start:line_end]
        pasted = logged[at] or _PASTED_LINE.match(line) is not None
        cut = None if pasted else _MID_LINE_PASTE.search(line) or _message_of_trace(text, line, ends, at, logged)
        if pasted:
            spans.append(AuthoredSpan(line_start, line_end, Author.USER_PASTE))
        elif cut is not None:
            spans.append(AuthoredSpan(line_start, line_start + cut.start() + 1, Author.USER))
            spans.append(AuthoredSpan(line_start + cut.start() + 1, line_end, Author.USER_PASTE))
        else:
            spans.append(AuthoredSpan(line_start, line_end, Author.USER))
        line_start = line_end
    return spans


def _message_of_trace(text: str, line: str, ends: list[int], at: int, logged: list[bool]) -> re.Match[str] | None:
    """The colon a pasted error message or log starts after, on a typed line the next line's stack frame or a tagged
    log's lines follow: the message may be cut short or have no log level ("arning: Encountered two children …",
    "…a git clone issue: [ProviderRoutes] Cursor Agent: ✓ Available"), but what follows says it was pasted. A line
    with no colon is left typed: it may be all the user wrote before the paste."""
    following = text[ends[at] : ends[at + 1]] if at + 1 < len(ends) else ""
    pasted_after = bool(following) and (_TRACE_LINE.match(following) is not None or logged[at + 1])
    return _LEAD_IN.search(line) if pasted_after else None


def _logged(text: str, start: int, ends: list[int]) -> list[bool]:
    """Which lines belong to a tagged log: lines that each open with a tag or a level (`[Proxy] GET /api`,
    `[11:34:48.865] [API] GET`, ` WARN  [Reanimated] …`), `log_run_lines` or more of them with fewer untagged lines
    than that between two (a message's second line: "Run 'copilot update' to check for updates."; blank lines, which
    a logger prints between messages, not counted), and those lines between. People type one such line at most (an
    `[Image #1]` the harness put there is no tag of a log); a program prints them in runs."""
    tagged = []
    written = [0]  # lines holding something before each line: what counts between two tagged ones, blanks left out
    line_start = start
    for at, line_end in enumerate(ends):
        if _LOG_TAG.match(text, line_start, line_end) is not None:
            tagged.append(at)
        written.append(written[-1] + bool(text[line_start:line_end].strip()))
        line_start = line_end
    logged = [False] * len(ends)
    printed: set[str] = set()  # the lines marked so far, as the log printed them
    run = DEFAULT_CONFIG.log_run_lines
    first = 0
    for number, at in enumerate(tagged):
        last = number + 1 == len(tagged) or written[tagged[number + 1]] - written[at + 1] >= run
        if last:
            if number - first + 1 >= run:
                for inside in range(tagged[first], at + 1):
                    logged[inside] = True
                    printed.add(_line(text, start, ends, inside))
                _repeated_after(text, start, ends, logged, printed, at + 1)
            first = number + 1
    return logged


def _repeated_after(text: str, start: int, ends: list[int], logged: list[bool], printed: set[str], after: int
                    ) -> None:  # fmt: skip
    """Mark the lines after a log's last tagged line that the log already printed (the rest of its last message,
    which it repeats: a warning's "If you don't want to see this message, …" after every ` WARN  [Reanimated]`): no
    one retypes a log's line. The first line the log did not print ends it, typed words after the paste among them."""
    for at in range(after, len(ends)):
        line = _line(text, start, ends, at)
        if line and line not in printed:
            return
        logged[at] = True


def _line(text: str, start: int, ends: list[int], at: int) -> str:
    return text[ends[at - 1] if at else start : ends[at]].strip()


_HEREDOC = re.compile(r"""^[^\n]*<<-?[ \t]*(?P<q>['"]?)(?P<word>[A-Za-z_]\w*)(?P=q)[^\n]*$""", re.MULTILINE)
"""A shell line that feeds a here-document (`cat > f << 'EOF'`): what follows is a script up to its terminator line."""


def _pasted(text: str, start: int, end: int) -> tuple[int, int]:
    """The stretch of the user's text that was pasted whole: a markdown document, or a copied web page (from the
    start to its footer), up to a short plain paragraph typed after it; or from a fence, or from a colon line with
    much after it, to the end."""
    footer = _PAGE_FOOTER.search(text, start, end)
    if footer is not None:  # a copied page, its code blocks among it: from the start, through its footer, to what
        return start, _typed_after(text, footer.end(), end)  # was typed after it
    cut = end
    fence = text.find("```", start, end)
    if fence != -1:
        cut = fence
    heredoc = _HEREDOC.search(text, start, cut) if text.find("<<", start, cut) != -1 else None  # most texts have none
    if heredoc is not None and re.compile(rf"^[ \t]*{re.escape(heredoc['word'])}[ \t]*$", re.MULTILINE).search(
            text, heredoc.end(), end):  # fmt: skip
        cut = heredoc.start()  # a shell line feeding a here-document, its terminator below: a script pasted, as a fence
    line_start, glued = HEADING.search(text, start, cut), _GLUED_HEADING.search(text, start, cut)
    opening = _OPENING_HEADING.match(text, start, cut)
    heading = min((at for at in (opening and opening.start("hashes"), line_start and line_start.start(),
                                 glued and glued.start("hashes")) if at is not None), default=None)  # fmt: skip
    headed = heading is not None and len(text[heading:end].strip()) > DEFAULT_CONFIG.document_chars
    document = heading if headed and heading is not None else cut
    terminal = _terminal(text, start, min(cut, document)) or _agent_screen(text, start, min(cut, document))
    if terminal is not None:
        return terminal
    position = start
    ends = list(_line_ends(text, start, min(cut, document)))
    for line_end, logged in zip(ends, _logged(text, start, ends), strict=True):
        line = text[position:line_end].rstrip()
        if line.endswith(":") and not logged and cut - line_end > DEFAULT_CONFIG.paste_chars:
            # a colon a log printed ("… Refer to:") is the log's, no lead-in of the user's; and a dump under a
            # heading is a headed document pasted whole ("## Error Message\nCannot find module …\nRequire stack:")
            return (heading if heading is not None and heading < position else line_end), end
        position = line_end
    if document < cut:
        return document, end if cut < end else _typed_after(text, document, end)
    conversation = _conversation(text, start, cut)
    if conversation is not None:
        return conversation[0], _typed_after(text, conversation[1], end) if cut == end else end
    return cut, end


def _agent_screen(text: str, start: int, end: int) -> tuple[int, int] | None:
    """An agent's terminal screen copied into the message (`_SCREEN_MARK`): from its first marked line through the
    last one and the indented or blank lines that continue it, up to the first line typed flush left after it."""
    marks = list(_SCREEN_MARK.finditer(text, start, end))
    if not marks:
        return None
    last = line_start = marks[-1].start()
    for line_end in _line_ends(text, line_start, end):
        line = text[line_start:line_end]
        if line.strip() and not line[:1].isspace() and line_start > marks[-1].start():
            break  # typed flush left: the user's words after the screen
        if line.strip():
            last = line_end
        line_start = line_end
    return marks[0].start(), last


def _terminal(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A terminal session copied into the message: its first prompt to the first blank line after its last."""
    prompts = list(_TERMINAL_PROMPT.finditer(text, start, end))
    if not prompts:
        return None
    blank = text.find("\n\n", prompts[-1].end(), end)
    return prompts[0].start(), end if blank == -1 else blank + 1


_SCREEN_MARK = re.compile(r"^[ \t]*[❯⏺⎿✻]", re.MULTILINE)
"""A line of a coding agent's terminal screen as the user copied it: Claude Code marks the user's prompt `❯`, each of
the agent's messages and tool calls `⏺`, a tool's output `⎿`, its thinking `✻` ("⏺ Done! Committed the red.md file",
cli_1284c080; "⏺ CBMC has been running 14 minutes …", lightprotocol_15dc2f98). The agent's words and the user's old
prompts, shown back: nothing the user says now."""


_STAMP = re.compile(r"^[ \t]*(?=[^\n]*\w)([^\n]{1,40}?)[ \t]*$", re.MULTILINE)
"""A short line holding a letter or digit (not a rule of dashes): one a chat's copy may print before every message."""


def _conversation(text: str, start: int, end: int) -> tuple[int, int] | None:
    """A chat copied into the message (another assistant's, a voice conversation's transcript): one short line alone
    `Config.transcript_stamps` times or more, as a copied chat prints a date or a speaker before each message ("Feb
    17", "ChatGPT said:"), over a stretch as long as a document (`Config.document_chars`); a line a log or a stack
    trace prints over and over (`at div`, `LOG  [Bridge] ready`) is none. The paste runs from the message before its
    first stamp, never before the stretch's second line (the first is the user's lead-in: "here's my raw conversation
    with claude, …"), to the end of its last stamp's line; what comes after is read by `_typed_after`. None when no
    line repeats so."""
    lines = list(_STAMP.finditer(text, start, end))
    counts = Counter(m.group(1) for m in lines if _PASTED_LINE.match(m.group()) is None
                     and _LOG_TAG.match(m.group()) is None)  # fmt: skip
    found = [m for m in lines if counts[m.group(1)] >= DEFAULT_CONFIG.transcript_stamps]
    if not found:
        return None
    first_line_end = text.find("\n", start, end)
    if first_line_end == -1 or found[-1].end() - found[0].start() < DEFAULT_CONFIG.document_chars:
        return None  # answers typed under a few questions ("yes" three times) are no chat's run of messages
    message_end = len(text[first_line_end : found[0].start()].rstrip()) + first_line_end  # the message it stamps
    before = text.rfind("\n\n", first_line_end, message_end)
    return (before + 2 if before != -1 else first_line_end + 1), found[-1].end()


def _typed_after(text: str, start: int, end: int) -> int:
    """Where a short plain paragraph typed after a pasted document starts (`end` when there is none)."""
    last = text.rfind("\n\n", start, end)
    if last == -1:
        return end
    tail = text[last:end]
    plain = not any(_PASTED_LINE.match(line) or line.lstrip().startswith(("#", "-", "*", "|", ">"))
                    or re.match(r"\s*\d+[.)]\s", line) for line in tail.splitlines() if line.strip())  # fmt: skip
    return last + 2 if plain and len(tail.strip()) <= DEFAULT_CONFIG.paste_chars else end


def _line_ends(text: str, start: int, end: int) -> Iterator[int]:
    """The end (after its line break) of each line between `start` and `end`."""
    position = start
    while position < end:
        newline = text.find("\n", position, end)
        position = end if newline == -1 else newline + 1
        yield position


def _merged(text: str, spans: list[AuthoredSpan]) -> Iterator[AuthoredSpan]:
    """Neighbours by the same author as one span, blank stretches joined to the span before them (a line
    break between two harness tags is not the user speaking); empty spans dropped."""
    current: AuthoredSpan | None = None
    for span in spans:
        if span.end <= span.start:
            continue
        if current is not None and (current.author is span.author or not text[span.start : span.end].strip()):
            current = AuthoredSpan(current.start, span.end, current.author)
            continue
        if current is not None:
            yield current
        current = span
    if current is not None:
        yield current


__all__ = ["AUTHORS", "TYPED_CHARS", "author_at", "said_by_user", "spans_for",
           "spans_of", "user_spans"]  # fmt: skip
