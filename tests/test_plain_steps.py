"""A plain shell line (words, quoted strings with nothing to expand and redirections, joined by `&&`, `||`, `;` and
`|`) is split into its steps without the shell grammar, and the steps are the grammar's: checked on every such line
of the real sessions in ../shared and the bundled fixtures, and on thousands of generated ones."""

from __future__ import annotations

import random

import pytest

from inspector import shell_runs
from inspector.readers.registry import load_trace
from inspector.shell_tree import tree_steps
from tests.helpers import REAL_TRACES, REPO, needs_shared


def parsed(command: str) -> tuple[shell_runs.Step, ...] | None:
    """What the shell grammar (tree-sitter's) gives, as `parse_steps` would without the plain reading; None where it
    does not read the line whole (`shell_tree`), and there is no grammar's reading to hold the plain one to."""
    tree = tree_steps(command)
    if tree is None:
        return None
    steps = [shell_runs.Step(*raw) for raw in tree]
    return tuple(shell_runs.Step(shell_runs._unwrapped(s.words), s.after, s.piped_on)  # noqa: SLF001
                 for s in steps if shell_runs._unwrapped(s.words))  # noqa: SLF001  # fmt: skip


def commands_of(paths: list) -> list[str]:
    found = []
    for path in paths:
        trace = load_trace(path)
        found += [record.extra["command"] for record in trace.sources
                  if isinstance(record.extra.get("command"), str)]  # fmt: skip
    return found


def test_a_plain_line_is_split_as_the_parser_splits_it():
    rng = random.Random(3)
    words = ["git", "status", "cd", "src", "go", "test", "./...", "-v", "pytest", "-q", "tests/x.py", "--x=1", "a=b",
             "if", "done", "for", "!", "{", "uv", "run", "python3", "timeout", "30", "make", "clean", "%1", "@a",
             "x,y", "+x", ":", "-", "--", '"a b"', "'x | y'", '""', "'$HOME'", '"$HOME"', "2>&1", "> out.txt",
             "2>/dev/null", ">>log", "< in", '-m "fix: it"', "'{a,b}'", "*.py", "a#b", "#c", '"it\'s"', "'a\\b'",
             "-F'\\t'", "x'y'z", "&", "~/x", "[", "]", '"a\\|b"', '"a\\"b"', '"a\\\\b"', '"x\\$y"',
             '"\\`x"', '"a\\!"', '"it\\\'s"', '"\\n"']  # fmt: skip
    joins = [" && ", " || ", "; ", " | ", "&&", "|", ";", " ; ", "||", "\n", " \n ", "\n\n", " &&\n", "|\n", ";\n"]
    checked = plain = 0
    for _ in range(6000):
        parts = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 4)))]
        for _ in range(rng.randint(0, 3)):
            parts += [rng.choice(joins), " ".join(rng.choice(words) for _ in range(rng.randint(0, 4)))]
        command = "".join(parts)
        fast = shell_runs._plain_steps(command)  # noqa: SLF001
        grammar = parsed(command)
        if fast is not None and grammar is not None:
            plain += 1
            assert tuple(shell_runs.Step(shell_runs._unwrapped(s.words), s.after, s.piped_on)  # noqa: SLF001
                         for s in fast if shell_runs._unwrapped(s.words)) == grammar, command  # noqa: SLF001  # fmt: skip
        checked += 1
    assert plain > checked // 6  # a good share of generated lines were plain ones, and read whole by the grammar


@needs_shared(REAL_TRACES)
def test_every_plain_line_of_the_real_sessions_is_split_as_the_parser_splits_it():
    lines = commands_of(sorted(REAL_TRACES.glob("*/*.jsonl")) + sorted((REPO / "tests" / "fixtures").rglob("*.jsonl")))
    plain = [line for line in lines if shell_runs._plain_steps(line) is not None]  # noqa: SLF001
    assert len(plain) > 100, len(plain)
    for line in plain:
        assert shell_runs.parse_steps.__wrapped__(line) == parsed(line), line


@pytest.mark.parametrize("line", ["FOO=1 make test", "for x in a; do echo x; done", "a &", "echo $HOME", "ls \\\n-la",
                                  "a && && b", 'echo "$(date)"', "cat <<EOF", "(cd x && make)", "make # build",
                                  'gh api -f body="Won\'t fix"', "awk -F'\\t' '{print}'"])  # fmt: skip
def test_a_line_that_is_not_plain_goes_to_the_parser(line):
    assert shell_runs._plain_steps(line) is None  # noqa: SLF001


def test_a_script_of_plain_lines_is_plain():
    """A line break ends a command as `;` does; after a join, or on a blank line, the command goes on."""
    assert shell_runs._plain_steps('cd src &&\n  go test ./...\n\ngit status | head -3\n') == [  # noqa: SLF001
        shell_runs.Step(("cd", "src"), ""), shell_runs.Step(("go", "test", "./..."), "&&"),
        shell_runs.Step(("git", "status"), ";", piped_on=True), shell_runs.Step(("head", "-3"), "|")]


def test_quoted_words_and_redirections_are_plain():
    assert shell_runs._plain_steps('grep -n "docs/plans" .gitignore 2>&1 | tail -3 > out.txt') == [  # noqa: SLF001
        shell_runs.Step(("grep", "-n", "docs/plans", ".gitignore"), "", piped_on=True),
        shell_runs.Step(("tail", "-3"), "|")]
