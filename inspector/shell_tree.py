"""The steps of a shell line read from tree-sitter's bash grammar: a parser in C, trusted only where its tree is whole.

A real 4 MB session holds a hundred lines too rich for the plain reading (`shell_runs._plain_steps`: loops,
substitutions, heredocs). bashlex, the pure-Python parser that read them before, took about 2 ms a line (0.2 s of a
first `check`, most of its analysis) and misread quoting (`"Won't fix"` lost its apostrophe, `-F'\\t'` became `-Ft`,
`if ! a; then` made `a` a pipeline's second stage). tree-sitter-bash parses such a line in about 20 µs and reads
quoting as the shell does. The tree is read into steps: the simple commands of its lists and pipelines in the order
they run, each with the connector it follows by; the words of a command unquoted, with expansions and substitutions
kept as written; assignments, redirections and comments left out.

tree-sitter recovers from what it cannot parse instead of refusing it, and tree-sitter-bash 0.25 also builds
whole-looking trees that are wrong: on real lines it left the `-` of `python3 - <<PY` out of every node, ran a
command across a line break into the next line's words, and took `?format=png` for an assignment. So a tree is
trusted only when it has no error node and every character of the line outside its leaves is blank; otherwise the
caller reads the line with the shell lexer (`shell_runs._lexed_steps`). What real lines showed is mended: a word
between a command and its heredoc is the command's argument; a line break between a command's words ends it
(`_breaks_inside_commands`); an "assignment" to a name no shell allows is a word the shell runs.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tree_sitter

RawStep = tuple[tuple[str, ...], str, bool]
"""A step as (its words, the connector it follows by, whether a later pipeline stage reads its output):
`shell_runs.Step`'s fields, which that module builds from these."""

_STATEMENTS = frozenset((
    "command", "pipeline", "list", "redirected_statement", "negated_command", "test_command", "subshell",
    "compound_statement", "if_statement", "elif_clause", "else_clause", "while_statement", "for_statement",
    "c_style_for_statement", "case_statement", "case_item", "do_group", "function_definition",
    "variable_assignment", "variable_assignments", "declaration_command", "unset_command",
))  # fmt: skip
"""The nodes that run something or hold what does: a compound's other children (a loop's variable and values, a
case's patterns, a heredoc's body) are data."""
_NOT_WORDS = frozenset(("variable_assignment", "file_redirect", "heredoc_redirect", "herestring_redirect", "comment"))
"""A command's children that are not its words: the shell applies them around the program it runs."""
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What the shell takes as a variable's name (`_assigns`)."""
_CONTINUED = b"\\\n"
_BLANK = re.compile(rb"(?<!\\)[ \t\n]")
"""A blank no backslash escapes: it ends a word, so a word node holding one is two words run together."""
_READINGS = 4
"""Readings of a line at most, each after putting `;` where the one before ran a command across a line break
(`_breaks_inside_commands`): real lines needed two; one that still runs on after four is left to the shell lexer."""


def tree_steps(command: str) -> list[RawStep] | None:
    """The steps of a shell line as (words, connector, piped on), or None when the tree is not whole (see above)."""
    source = command.encode("utf-8", "surrogatepass")
    for _ in range(_READINGS):
        root = _parser().parse(source).root_node
        breaks = _breaks_inside_commands(root, source)
        if not breaks:
            break
        mended = bytearray(source)
        for start, end in sorted(breaks):
            ended = mended[:start].rstrip().endswith(b";")  # a comment on a line of its own: the break before it
            mended[start:end] = b" " * (end - start - 1) + (b" " if ended else b";")  # ended the command already
        source = bytes(mended)
    else:
        return None
    if root.has_error or _broken(root, source):
        return None
    steps: list[RawStep] = []
    try:
        _walk(root, "", steps, source)
    except RecursionError:  # a list or nesting deeper than Python's stack (`a && $(b) && …` a thousand times)
        return None
    return steps


def _breaks_inside_commands(root: tree_sitter.Node, source: bytes) -> list[tuple[int, int]]:
    """Where the tree runs a command on across a line break: for each, the span to blank up to the break, whose
    place then holds `;`. tree-sitter-bash 0.25 does so after a number on real lines (`… | head -3⏎cp /tmp/s.bak
    x.go`); the break lies between two words, in no word or string, so it ends the command as the shell reads it,
    and the line is read again with `;` in its place (one byte for one). A comment the command ran into runs to the
    break and holds no step: it is blanked with it, as the `;` would otherwise be part of it."""
    found: list[tuple[int, int]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        children = node.children
        if node.type == "command":
            for before, after in zip(children, children[1:], strict=False):
                gap = source[before.end_byte:after.start_byte]
                at = gap.find(b"\n")
                while at >= 0:
                    if not gap[:at].endswith(b"\\"):  # a continued line is one line
                        start = before.start_byte if before.type == "comment" else before.end_byte + at
                        found.append((start, before.end_byte + at + 1))
                    at = gap.find(b"\n", at + 1)
        stack.extend(children)
    return found


@cache
def _parser() -> tree_sitter.Parser:
    """The parser, made on first use: a command that parses no shell line (`rules`, `--help`, a scan of native
    traces) does not import it (tree_sitter_bash brings importlib.resources, 5 ms)."""
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def _walk(node: tree_sitter.Node, after: str, steps: list[RawStep], source: bytes) -> None:
    """Append the steps under a node in the order they run; `after` is the connector its first step follows by."""
    kind = node.type
    if kind == "command":
        words = [word for child in node.named_children for word in _words_of(child, source)]
        steps.append((tuple(words), after, False))
    elif kind == "variable_assignment" and not _assigns(node, source):  # `?format=png` alone: a word, run
        steps.append(((unescaped(_text(node, source)),), after, False))
    elif kind in ("variable_assignment", "variable_assignments"):
        steps.append(((), after, False))  # a step with no program, which the caller drops
    elif kind in ("declaration_command", "unset_command"):  # `export A=1`: the builtin runs, with its words
        steps.append((tuple(_text(c, source) if not c.is_named else _word(c, source) for c in node.children
                            if c.type != "comment"), after, False))  # fmt: skip
    elif kind == "test_command":  # `[ -f "$x" ]`: the test's words, unquoted
        steps.append((tuple(_split(_text(node, source))), after, False))
    elif kind == "pipeline":
        stages = [child for child in node.named_children if child.type != "comment"]
        for number, stage in enumerate(stages):
            start = len(steps)
            _walk(stage, after if number == 0 else "|", steps, source)
            if number < len(stages) - 1 and len(steps) > start:
                words, connector, _ = steps[-1]
                steps[-1] = (words, connector, True)
    elif kind == "list":  # `a && b || c`, nested to the left
        connector, first = ";", True
        for child in node.children:
            if not child.is_named:
                connector = child.type if child.type in ("&&", "||") else ";"
            elif child.type != "comment":
                _walk(child, after if first else connector, steps, source)
                first = False
    elif kind == "redirected_statement":
        body = node.child_by_field_name("body")
        if body is not None:
            start = len(steps)
            _walk(body, after, steps, source)
            skipped = [*_heredoc_words(node, source),
                       *(word for child in node.named_children if child.type == "file_redirect"
                         for word in _words_of(child, source))]  # fmt: skip
            if skipped and len(steps) > start:  # the words follow the body's last command, whatever holds it
                words, connector, piped = steps[-1]
                steps[-1] = ((*words, *skipped), connector, piped)
    else:  # a program, a compound, a loop, a branch: its statements in order, each after the one before
        first = True
        for child in node.named_children:
            if child.type in _STATEMENTS:
                _walk(child, after if first else ";", steps, source)
                first = False


def _words_of(node: tree_sitter.Node, source: bytes) -> list[str]:
    """A command's words in one of its children: none in an assignment, a comment or a redirection, but those after
    a redirection's target (`ls 2>/dev/null src/`: tree-sitter-bash makes `src/` a second target; the shell passes
    it to `ls`)."""
    if node.type == "file_redirect":
        return [_word(extra, source) for extra in node.children_by_field_name("destination")[1:]]
    return [] if node.type in _NOT_WORDS else [_word(node, source)]


def _word(node: tree_sitter.Node, source: bytes) -> str:
    """A word as the program receives it: quotes removed, escapes applied, expansions as written."""
    kind = node.type
    if kind == "raw_string":  # '…': every character as it stands
        return _text(node, source)[1:-1]
    if kind == "string":
        return _double_quoted(node, source)
    if kind in ("word", "number"):
        return unescaped(_text(node, source))
    if kind in ("concatenation", "command_name"):
        return "".join(_word(child, source) for child in node.children)
    if kind == "variable_assignment":  # an `export`'s argument: its value unquoted
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        return f"{_text(name, source) if name else ''}={_word(value, source) if value else ''}"
    return _text(node, source)  # $x, ${x}, $(…), `…`, $'…', <(…): as written


def _double_quoted(node: tree_sitter.Node, source: bytes) -> str:
    """"…" unquoted: its literal text with escapes applied, as the plain reading does (`shell_runs._unquoted`), and
    its expansions as written. The grammar leaves blanks beside an expansion in no node, or in the closing quote's."""
    parts: list[str] = []
    children = node.children
    position = node.start_byte + 1
    for number, child in enumerate(children):
        if number == 0 and child.type == '"':
            continue
        if child.start_byte > position:
            parts.append(unescaped(source[position:child.start_byte].decode("utf-8", "surrogatepass")))
        position = child.end_byte
        text = _text(child, source)
        if child.is_named and child.type != "string_content":
            parts.append(text)
        else:
            parts.append(unescaped(text[:-1] if number == len(children) - 1 and child.type == '"' else text))
    return "".join(parts)


def _heredoc_words(node: tree_sitter.Node, source: bytes) -> Iterator[str]:
    """Words the grammar left out between a command and its heredoc (`python3 - <<PY` loses its `-`)."""
    children = node.children
    for before, child in zip(children, children[1:], strict=False):
        if child.type == "heredoc_redirect":
            yield from _split(source[before.end_byte:child.start_byte].decode("utf-8", "surrogatepass"))


def unescaped(text: str) -> str:
    """`text` with each backslash dropped and the character after it kept: how the shell reads an unquoted word and
    the literal text of a double-quoted string (`shell_runs` reads a plain line's quoted strings the same way)."""
    return _ESCAPE.sub(r"\1", text)


def _split(text: str) -> list[str]:
    """Words as the shell splits them, unquoted; by blanks when a quote is left open."""
    try:
        return shlex.split(text)
    except ValueError:
        return text.split()


def _broken(root: tree_sitter.Node, source: bytes) -> bool:
    """The tree leaves text of the line outside every leaf (but the mended heredoc words), runs words into one, or
    takes a command's program for an assignment: it is not the line."""
    outside = source[:root.start_byte] + source[root.end_byte:]  # the root itself can leave out a leading `-`
    if outside.replace(_CONTINUED, b"").strip():
        return True
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "word" and _BLANK.search(source, node.start_byte, node.end_byte):
            return True  # `cd ] ]`: the grammar ran two words the shell splits into one
        if node.type == "command" and any(child.type == "variable_assignment" and not _assigns(child, source)
                                          for child in node.children):  # fmt: skip
            return True  # `?x=1 make`: the first word is the program, which the tree took for an assignment
        children = node.children
        if not children or node.type == "heredoc_body":  # a heredoc's text lies between its expansions
            continue
        edges = [node.start_byte, *(edge for child in children for edge in (child.start_byte, child.end_byte)),
                 node.end_byte]  # fmt: skip
        for number, (start, end) in enumerate(zip(edges[0::2], edges[1::2], strict=True)):
            gap = source[start:end].replace(_CONTINUED, b"")
            heredoc_next = number < len(children) and children[number].type == "heredoc_redirect"
            if gap.strip() and not (node.type == "redirected_statement" and heredoc_next and number == 1):
                return True
        stack.extend(children)
    return False


def _assigns(node: tree_sitter.Node, source: bytes) -> bool:
    """An assignment the shell makes: the grammar also takes `?format=png` for one, whose name no shell allows."""
    name = node.child_by_field_name("name")
    return name is None or name.type != "variable_name" or bool(_NAME.fullmatch(_text(name, source)))


def _text(node: tree_sitter.Node, source: bytes) -> str:
    return source[node.start_byte:node.end_byte].decode("utf-8", "surrogatepass")


__all__ = ["tree_steps", "unescaped"]
