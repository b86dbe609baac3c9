"""Shell runs and failures: what each shell command attempted, how it ended, and the life of each failure.

A shell line is read into its steps (`_plain_steps` for a plain line, else tree-sitter's bash grammar): the simple
commands of its lists and pipelines, without the assignments, redirections and wrappers (`timeout 30`, `uv run`,
`npx`) around them. What a line *attempted* is its last step that does work, not one that looks (`ls`, `grep`,
`git status`) or prepares (`cd`, `export`, `rm -rf build`, `mkdir`): `make clean && make` attempts `make`. Its exit
status is the last pipeline's last stage's, so a run that pipes its output into a filter (`pip list | grep cupy`,
`go test | tail`) or ends in `|| true` says nothing by its status about what it attempted; its output still
does (a crash, test-failure rows).

A failure is opened by a run that broke; it is superseded by a later failure of the same attempt (the
problem as it now stands), and retired by a later run that shows it gone: the same attempt run clean, the
whole test suite passing, inline code retried in another form and run clean, the failing file removed, a fetched
file got from another address. A later run that failed still shows the steps before the one that failed
succeeded, when its output shows that step ran (`ShellRun.succeeded`).
Whether it is still open at a compaction is where the compaction falls against those records
(`inspector.facts.retired_at`).
"""

from __future__ import annotations

import heapq
import re
import shlex
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from itertools import groupby

from inspector.config import DEFAULT_CONFIG
from inspector.last_answer import for_the_same
from inspector.literals import Literals
from inspector.model import TRANSCRIPT, USER_REFUSED, Invariant, InvariantKind, SourceRecord
from inspector.shell_tree import tree_steps, unescaped
from inspector.text import clip

# --- what a line runs ------------------------------------------------------------------------------

_LOOKING = frozenset(
    "ls cat head tail find grep egrep fgrep rg ag fd pwd which whereis wc file stat tree du df env sed awk sort "
    "uniq diff less more type command readlink realpath basename dirname date whoami id ps jq cut tr column "
    "xxd od hexdump nl tee".split()
)
"""Commands that look: their failure is exploration, not an open problem."""
_PREPARING = frozenset(
    "cd pushd popd export unset set source . echo printf mkdir rm rmdir cp mv touch chmod chown ln sleep true "
    "false test [ [[ kill pkill clear exit return wait trap shopt alias".split()
)
"""Commands that set the scene or tidy it: never what a line attempted, and their failure is no open problem."""
_GIT_LOOKING = frozenset(
    "status log diff show branch ls-files ls-tree rev-parse rev-list remote config blame grep describe reflog "
    "shortlog cat-file for-each-ref name-rev merge-base help version".split()
)
"""Git subcommands that only look; the others (push, commit, rebase, merge, pull…) act, and can fail as work."""
_FILTERS = frozenset("grep egrep fgrep rg ag head tail wc sort uniq cut tr sed awk jq less more tee column nl".split())
"""Stages a pipeline's output is read through: a pipeline ending in one has that filter's exit status."""
_WRAPPERS = {"timeout": 1, "time": 0, "nice": 0, "nohup": 0, "sudo": 0, "exec": 0, "command": 0, "env": 0,
             "stdbuf": 0, "caffeinate": 0, "npx": 0, "bunx": 0, "pnpx": 0}  # fmt: skip
"""Programs that run the next word: the program is what they run (`timeout` first takes a duration)."""
_RUN_SUBCOMMANDS = {"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "rye": "run", "hatch": "run",
                    "pnpm": "exec", "npm": "exec", "bundle": "exec", "conda": "run"}  # fmt: skip
"""Tool runners whose subcommand runs the rest of the line in its environment: `uv run python3 x.py` is `python3
x.py` in another form."""
_RUN_OPTION_VALUES = {
    "conda": frozenset(("-n", "--name", "-p", "--prefix", "--cwd")),
    "uv": frozenset(("--with", "-w", "--with-requirements", "--with-editable", "--python", "-p", "--project",
                     "--directory", "--package", "--group", "--extra", "--env-file", "--index", "--default-index")),
    "poetry": frozenset(("-C", "--directory", "-P", "--project")),
    "pdm": frozenset(("-p", "--project")),
    "pnpm": frozenset(("-C", "--dir", "-F", "--filter")),
    "npm": frozenset(("-w", "--workspace", "-c", "--call", "-p", "--package")),
    "bundle": frozenset(("--gemfile",)),
}  # fmt: skip
"""The options of those subcommands that take the next word as their value, as each tool's manual lists them:
`conda run -n flits python -m pytest` runs python in the environment flits, not a program named flits."""
_RUNNERS = frozenset("python node go cargo make cmake mise npm yarn pnpm bun uv pip pytest sh bash tsx deno".split())
"""Programs whose first argument says what runs (`make test`, `go build`, `npm run lint`), kept in the signature."""
_C_FAMILY = frozenset("gcc g++ cc c++ clang clang++ nvcc".split())
"""Compilers of one program: a build is named by what it writes (`-o prog`), whichever of them ran it."""
_INLINE = frozenset(("-c", "-e", "--eval", "-", "--command"))
"""An interpreter given its code on the line or on standard input: code written for this run, not a file."""
_CODE_FLAGS = _INLINE - {"-"}
"""The flags whose next word is code given on the line."""
_PYTHON = re.compile(r"python(?:\d+(?:\.\d+)*)?")
_BARE_NUMBER = re.compile(r"[\d.,:x%]+[smh]?")


@dataclass(frozen=True, slots=True)
class Step:
    """One simple command of a line, its program first (assignments, redirections and wrappers removed)."""

    words: tuple[str, ...]
    after: str
    """How it follows the step before: "" (first), "&&", "||", ";" or "|"."""
    piped_on: bool = False
    """A later pipeline stage reads its output."""


_CONTINUED = re.compile(r"\\\n")
"""A backslash before a line break: the shell joins the lines and drops both, where the standard library's lexer
keeps the break as a character of the next word (a line `&& \\` then `bash x.sh` ran a program named "\\nbash")."""


def _lexed_steps(command: str) -> list[Step]:
    """What a line runs when the shell grammar does not read it whole (`shell_tree`: an unclosed quote or `$((`,
    a tree that runs on across line breaks): the standard library's shell lexer, which keeps quotes whole and gives
    the operators as tokens."""
    lexer = shlex.shlex(_CONTINUED.sub("", command), posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    steps: list[Step] = []
    words: list[str] = []
    after = ""
    try:
        tokens = list(lexer)
    except ValueError:  # an unclosed quote: the words before it
        tokens = command.split()
    for token in [*tokens, ";"]:
        if token in ("&&", "||", ";", "|", "&", ";;", "|&"):
            if words:
                steps.append(Step(tuple(words), after, piped_on=token in ("|", "|&")))
            words, after = [], "|" if token in ("|", "|&") else token if token in ("&&", "||") else ";"
        elif not re.fullmatch(r"\w+=.*|\d*[<>]+&?\S*|[()<>]+", token):
            words.append(token)
    return steps


_LITERAL = r"""'[^'"\\]*'|"(?:[^"$`\\!']|\\[^\n'!])*"|[A-Za-z0-9_./:@%+,=~*?^-]"""
"""A stretch of a word the shell takes as it stands: a quoted string with nothing to expand and no quote of the other
kind inside (those are left to the grammar), or a plain character. A backslash in double quotes is dropped and the
character after it stays (`"a\\|b"` is `a|b`, a grep pattern's alternation as agents write one), as tree-sitter's
reading has it too; the shell would keep that backslash, and no step's signature depends on it. None in single
quotes."""
_PLAIN_TOKEN = re.compile(
    rf"""[ \t]+|(?P<join>&&|\|\||;|\n|\|(?![|&]))|\d*(?:>>|>&|<&|&>|>|<)(?![<>&|])[ \t]*(?:{_LITERAL})+"""
    rf"""|(?P<word>(?:{_LITERAL}|[\[\]{{}}])(?:{_LITERAL}|[\[\]{{}}#])*)"""
)
"""One token of a plain line: blanks, a join (a line break ends a command as `;` does), a redirection (dropped, as
the parser drops it), or a word."""
_QUOTED = re.compile(r"'([^']*)'|\"((?:[^\"\\]|\\.)*)\"")
_RESERVED = frozenset("if then else elif fi for while until do done case esac in function select time coproc { } ! "
                      "[[ ]]".split())  # fmt: skip
"""Words the shell reads as its grammar where a command starts: a plain line holding one anywhere is left to the
parser, which reads one after a command's first word as grammar too (`make { a=b` drops `a=b`; a line break after
`{ if` is a syntax error to it). No real line holds one past its first word."""


def _plain_steps(command: str) -> list[Step] | None:
    """The steps of a plain line, as the shell parser gives them, without it: words, quoted strings with nothing to
    expand, redirections, joined by `&&`, `||`, `;`, `|` and line breaks (no variable, substitution, heredoc,
    grouping, comment, background job or continued line). Parsing each line was half of the analysis of a real 4 MB
    session when the parser was pure Python, and a call into tree-sitter still costs more than this; a real session's
    lines are mostly `cd src && go test ./... 2>&1 | tail -20` and `grep -n "x" f`, and an agent's scripts of several
    lines are as plain line by line. None for any other line, and for one whose steps
    would be empty or start with a reserved word or an assignment."""
    steps: list[Step] = []
    words: list[str] = []
    after, position, redirected = "", 0, False
    for token in _PLAIN_TOKEN.finditer(command):
        if token.start() != position:
            return None
        position = token.end()
        join, word = token.group("join", "word")
        if join == "\n" and not words and not redirected:
            continue  # a blank line, or the break after a join: the command goes on on the next line
        if join:
            if not words:
                return None
            steps.append(Step(tuple(words), after, piped_on=join == "|"))
            words, after, redirected = [], join if join in ("&&", "||", "|") else ";", False
        elif word:
            words.append(_QUOTED.sub(_unquoted, word))
        elif not token.group().isspace():
            redirected = True
    if position != len(command) or (not words and after in ("&&", "||", "|")):
        return None
    if words:
        steps.append(Step(tuple(words), after))
    if not steps or any("=" in step.words[0] or any(word in _RESERVED for word in step.words) for step in steps):
        return None
    return steps


def _unquoted(quoted: re.Match[str]) -> str:
    single, double = quoted.groups()
    return single if single is not None else unescaped(double)


@lru_cache(maxsize=1 << 12)
def parse_steps(command: str) -> tuple[Step, ...]:
    """The steps of a shell line in the order they run, each without its wrappers.

    Cached: a session runs the same few commands again and again, and each costs a parse.
    """
    steps = _plain_steps(command)
    if steps is None:
        steps = _parsed_steps(command)
    return tuple(Step(_unwrapped(step.words), step.after, step.piped_on) for step in steps if _unwrapped(step.words))


def _parsed_steps(command: str) -> list[Step]:
    """The steps the shell grammar gives a line (`shell_tree`), or the shell lexer's when it does not read it whole."""
    tree = tree_steps(command)
    return [Step(*raw) for raw in tree] if tree is not None else _lexed_steps(command)


def _unwrapped(words: tuple[str, ...]) -> tuple[str, ...]:
    """A step's words from the program it runs: `timeout 30 uv run python3 x.py` → `python3 x.py`."""
    rest = list(words)
    while rest:
        head = rest[0]
        if head in _WRAPPERS:
            rest = rest[1:]
            while rest and (rest[0].startswith("-") or "=" in rest[0]):
                rest = rest[1:]
            rest = rest[_WRAPPERS[head]:] if rest and _WRAPPERS[head] and _BARE_NUMBER.fullmatch(rest[0]) else rest
        elif head in _RUN_SUBCOMMANDS and len(rest) > 1 and rest[1] == _RUN_SUBCOMMANDS[head]:
            rest = rest[2:]
            valued = _RUN_OPTION_VALUES.get(head, frozenset())
            while rest and rest[0].startswith("-"):
                rest = rest[2:] if rest[0] in valued else rest[1:]
        else:
            break
    return tuple(rest)


def _program(word: str) -> str:
    """The program a step's first word names: an interpreter by its family (`python3.12` → `python`), a path
    by its file name when it is absolute (from the root or the home folder: `~/go/bin/swag`, `$HOME/.cargo/bin/x`,
    an installed program) or names a known runner (`.venv/bin/python`)."""
    name = word.rsplit("/", 1)[-1]
    if _PYTHON.fullmatch(name):
        return "python"
    absolute = word.startswith(("/", "~/", "$HOME/", "${HOME}/"))
    return name if absolute or name in _RUNNERS or name in _C_FAMILY else word


def inline_code(step: Step, command: str = "") -> bool:
    """Code written for this run: given on the line or on standard input (`python -c`, `node -e`, `python3 -
    <<PY`), or a file the same line writes before it runs or builds it (`echo '…' > t.c && gcc t.c`). No
    file of the project names what it runs, so its retries take other forms."""
    if len(step.words) > 1 and any(w in _INLINE for w in step.words[1:3]):
        return True
    return bool(command) and any(_written_to(w, command) for w in step.words[1:] if "." in w)


def _written_to(name: str, command: str) -> bool:
    """`command` redirects into the file `name` (`> t.c`, `>'t.c'`): the name whole, after a `>`, blanks and at
    most one quote. A search for the word, not a pattern made of it: one per word of every run would be compiled
    anew (they are all different), and that cost a check more than the search itself."""
    at = command.find(name)
    while at >= 0:
        end = at + len(name)
        if end == len(command) or not (command[end].isalnum() or command[end] in "_."):
            before = at - 1 if at > 0 and command[at - 1] in "'\"" else at
            while before > 0 and command[before - 1].isspace():
                before -= 1
            if before > 0 and command[before - 1] == ">":
                return True
        at = command.find(name, at + 1)
    return False


def step_signature(step: Step) -> tuple[str, ...]:
    """What a step runs, without where it ran or its flags: `python3 x.py -n 3` → (python, x.py)."""
    program = _program(step.words[0])
    args = [w for w in step.words[1:] if not w.startswith("-") and not _BARE_NUMBER.fullmatch(w)]
    if program in _C_FAMILY:
        words = list(step.words)
        output = words[words.index("-o") + 1] if "-o" in words[:-1] else next(
            (w for w in args if re.search(r"\.(?:c|cc|cpp|cxx|cu|m)$", w)), "")  # fmt: skip
        return ("cc", output.rsplit("/", 1)[-1])
    if inline_code(step):  # the code is on the line: nothing names it
        return (program, "-")
    if program == "git":
        return (program, _git_subcommand(step.words))
    depth = 2 if program in _RUNNERS and args and not re.search(r"[/.]", args[0]) else 1
    return (program, *args[:depth])


def git_arguments(words: Sequence[str]) -> tuple[str, ...]:
    """A git step's subcommand and its arguments, past git's global options (`git -C repo add x` → add x)."""
    rest = list(words[1:])
    while rest and rest[0].startswith("-"):
        rest = rest[2:] if rest[0] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace") else rest[1:]
    return tuple(rest)


def _git_subcommand(words: Sequence[str]) -> str:
    """Git's subcommand, past its global options (`git -C repo add` → add)."""
    rest = git_arguments(words)
    return rest[0] if rest else ""


def _works(step: Step) -> bool:
    """The step does work: it neither looks nor prepares."""
    program = _program(step.words[0])
    if program == "git":
        sub = _git_subcommand(step.words)
        return sub not in _GIT_LOOKING and not (sub == "stash" and "list" in step.words)
    return program not in _LOOKING and program not in _PREPARING


def attempted(steps: Sequence[Step]) -> Step | None:
    """The step a line was run for: its last step that does work, read from the head of its pipeline."""
    working = [s for s in steps if _works(s) and s.after != "|"]
    return working[-1] if working else None


@lru_cache(maxsize=1 << 12)
def command_signature(command: str) -> tuple[str, ...]:
    """What a line attempted, without where it ran or its flags: `cd bench && python3 x.py -n 3` → (python,
    x.py); () for a line that only looks or prepares. Two runs with one signature are the same attempt."""
    step = attempted(parse_steps(command))
    return step_signature(step) if step is not None else ()


def _status_speaks(steps: Sequence[Step], step: Step) -> bool:
    """The line's exit status is the attempted step's: nothing runs after it that sets the status instead
    (a filter it is piped into, `|| true`, `; echo done`)."""
    return bool(steps) and steps[-1] is step


def proven_steps(steps: Sequence[Step]) -> list[Step]:
    """The steps a line's success proves succeeded: the last, and those chained to it by `&&`."""
    proven: list[Step] = []
    for step in reversed(steps):
        if step.piped_on:
            continue  # a pipeline's status is its last stage's
        proven.append(step)
        if step.after != "&&":
            break
    return proven


# --- how a run ended ---------------------------------------------------------------------------------

_CRASH = re.compile(
    r"malloc\(\): [^\n]+|double free[^\n]*|free\(\): [^\n]+|segmentation fault[^\n]*|\(core dumped\)|"
    r"stack smashing detected|SIGSEGV|SIGABRT|^panic: [^\n]+|AddressSanitizer: [^\n]+",
    re.IGNORECASE | re.MULTILINE,
)
"""A process died: whatever the exit code says, the run did not succeed."""
_CRASH_LITERALS = ("malloc(): ", "double free", "free(): ", "segmentation fault", "(core dumped)",
                   "stack smashing detected", "sigsegv", "sigabrt", "panic: ", "addresssanitizer: ")  # fmt: skip
"""Each alternative of `_CRASH` holds one of these: a literal search finds them in C."""
_CRASH_MARKERS = Literals(_CRASH_LITERALS)


def _crash(output: str) -> re.Match[str] | None:
    """`_CRASH.search(output)`, started at the first literal that could begin a match.

    A case-blind alternation is tried at every position: 5 s on a 50 MB tool result. Most outputs
    hold none of the literals and are dismissed by one literal scan in C.
    """
    if _CRASH_MARKERS.any_in(output) is False:
        return None
    lowered = output.lower()
    hits = [at for literal in _CRASH_LITERALS if (at := lowered.find(literal)) >= 0]
    if not hits:
        return None
    return _CRASH.search(output, min(hits) if len(lowered) == len(output) else 0)


_HARMLESS_ERROR = re.compile(
    r"No such file or directory|command not found|permission denied|No rule to make target '[^'\n]+'\.\s+Stop",
    re.IGNORECASE,
)
"""Errors a shell prints for a slip the agent recovers from at once, not a failure of the work: a misaddressed
path, a command or target name that does not exist (`make: *** No rule to make target 'tests'.  Stop.`; a
missing target some other target needs, "…, needed by 'x.o'", is a broken build and stays a failure). A call
the harness refused or the user stopped is flagged by its reader (`extra["slip"]`), in the harness's own words."""
_HARMLESS_LITERALS = ("no such file or directory", "command not found", "permission denied",
                      "no rule to make target")  # fmt: skip
"""Each alternative of `_HARMLESS_ERROR` holds one of these, lower-cased."""
_HARMLESS_MARKERS = Literals(_HARMLESS_LITERALS)


def harmless_error(output: str) -> bool:
    """`_HARMLESS_ERROR.search(output)`, dismissed early when no alternative's literal is in the output."""
    if _HARMLESS_MARKERS.any_in(output) is False:
        return False
    return _HARMLESS_ERROR.search(output) is not None


TEST_WORDS = ("test", "tests", "pytest", "jest", "vitest", "ctest", "rspec", "tox", "nox")
"""The words of a command that runs tests: a runner's name, or the test step of a build tool (`go test`)."""
TEST_RUN = re.compile(rf"\b(?:{'|'.join(TEST_WORDS)})\b")
"""A command that runs tests: one of `TEST_WORDS`, in what the line runs (`ran`)."""
_CHECK_WORDS = ("build", "compile", "check", "typecheck", "lint", "vet", "tsc", "mypy", "clippy", "eslint", "ruff",
                "pyright", "biome", "analyze")  # fmt: skip
VERIFYING = re.compile(rf"\b(?:{'|'.join((*TEST_WORDS, *_CHECK_WORDS))})\b")
"""A command that checks the work, by its tests (`TEST_WORDS`) or a build, a compiler, a linter or a type checker
(`_CHECK_WORDS`, the verbs and tools of every ecosystem's checks): its last run is what a "tests pass" claim stands on,
and what an approved plan's verification asks to run (`inspector.plan_checks`)."""
_SPACED = re.compile(r"\s")


def ran(command: str) -> str:
    """The words a shell line runs, without its prose: an argument that holds a space is a commit message, a pull
    request's body, an echoed sentence (`git commit -m "… fix all tests"`, `gh pr create --body "… pnpm test:run …"`),
    unless it is code given to an interpreter or a shell (`python3 -c "import py_compile; …"`, `sh -c "go test"`).
    What a search for the kind of run a line is reads: 52 commits and pull requests across the sessions held counted
    as a clean run of the whole test suite by their prose, and retired the failures before them."""
    return " ".join(_run_words(step.words) for step in parse_steps(command))


def _run_words(words: tuple[str, ...]) -> str:
    """A step's words without its prose (`ran`)."""
    return " ".join(word for before, word in zip(("", *words), words, strict=False)
                    if not _SPACED.search(word) or before in _CODE_FLAGS)  # fmt: skip


_SELECTOR = re.compile(
    r"\s(?:-run|-k|-t|--grep|--testNamePattern|-m|--harness)[\s=]|::|"
    r"\s(?:--exclude|--deselect|--ignore(?:-glob)?|--testPathIgnorePatterns|--skip|-skip)[\s=]|"
    r"\s\S+(?:_test\.go|_test\.py|\.test\.[jt]sx?|\.spec\.[jt]sx?|test_\w+\.py)\b"
)
"""A run of chosen tests: a name filter (kani's `--harness` chooses its proofs so), tests left out by the runners'
own flags (vitest's `--exclude`, pytest's `--deselect` and `--ignore`, jest's `--testPathIgnorePatterns`, libtest's
`--skip`, go's `-skip`), a test id, a single test file."""
_TARGET = re.compile(r"\s--(?:test|lib|bins?|examples?|doc)\b")
"""Cargo's choice of test targets (`cargo test -p x --test compress_processor`): some of a package's tests."""


def _chose_tests(run: ShellRun) -> bool:
    """The line ran chosen tests (`_SELECTOR`, `_TARGET`), read in the words after the runner's: `python -m pytest`'s
    `-m` is Python's, `pytest -m slow`'s a choice of tests."""
    step = attempted(run.steps)
    if step is None:
        return False
    words = step.words
    runner = next((at for at, word in enumerate(words) if TEST_RUN.fullmatch(_program(word))), None)
    if runner is None:
        return False
    after = " " + " ".join(words[runner + 1 :])
    return bool(_SELECTOR.search(after) or _TARGET.search(after))


def test_choices(command: str) -> frozenset[str]:
    """The choices of tests a line makes (`_SELECTOR`, `_TARGET`), as written. A run that makes a choice the step it is
    compared with does not make ran fewer tests than the step asks for (lightprotocol_15dc2f98's S1 leaves "Run all
    harnesses together: `cargo kani -p sdk-types-kani --tests …`"; `cargo kani … --harness
    verify_modify_input_account_contract` ran one). Both lines are read whole, runner and all: `python -m pytest`'s
    `-m` is in both."""
    spaced = f" {command}"
    return frozenset(m.group().strip() for pattern in (_SELECTOR, _TARGET) for m in pattern.finditer(spaced))


_TRACERS = frozenset("valgrind strace ltrace gdb lldb perf".split())
_FAILED_ROW = re.compile(
    r"^(?:--- )?FAIL(?:ED)?\b[^\n]*|^\s*(?:Tests?|Test Files|Test Suites):?\s+[1-9]\d* failed\b[^\n]*|"
    r"^=+ [^\n]*\b[1-9]\d* (?:failed|errors?)\b[^\n]*|^panic: [^\n]*|^\(fail\) [^\n]*|"
    r"^test result: FAILED\b[^\n]*|^error: could not compile\b[^\n]*|^ERROR \S+\.py\b[^\n]*|"
    r"^(?:\d+ \w+, )*[1-9]\d* (?:failed|errors?)(?:, \d+ \w+)* in \d+(?:\.\d+)?s\b[^\n]*",
    re.MULTILINE,
)
"""A row a test runner prints for a failed test or package (go's `FAIL\tpkg` and `--- FAIL: TestX`, pytest's
`FAILED tests/…`, `ERROR tests/…::test` for a test that errored in its setup, `=== 1 failed, 9 passed ===` and,
with `-q`, `274 passed, 4 errors in 25.60s`, jest's and vitest's `Tests: 1 failed`, bun's `(fail) suite >
test [30000.72ms]`, cargo's `test result: FAILED. 89 passed; 1 failed` and, for tests that did not build,
`error: could not compile …`): read from the output when the exit status is not the runner's. Only the runners'
own row shapes: "3 failed retries" in a test's name is no failure."""
_FAILED_OUTPUT = re.compile(rf"{_FAILED_ROW.pattern}|\b[1-9]\d* errors?\b|Traceback \(most", re.MULTILINE)
"""What a failed test run prints: a run piped into `tail` reports success whatever the tests did."""
_FAILED_COUNT = re.compile(r"\b[1-9]\d* (?:failed|failures?|failing)\b")
"""A runner's count of failed tests anywhere on a line (pytest -q's `1 failed, 34 passed in 0.06s`)."""
_PASSED_ROW = re.compile(r"\b[1-9]\d* (?:passed|passing)\b|^ok\s|^PASS\b|^OK\b", re.MULTILINE)
"""A runner's row for tests that passed (pytest's and jest's `35 passed`, mocha's `12 passing`, go's `ok  pkg`,
`PASS`, unittest's `OK`): what a run read through a filter must show to count as a pass, beside no failure."""


@dataclass(frozen=True)
class ShellRun:
    """One shell command with its outcome, as its tool result records it. What it attempted and how it ended are
    worked out once (`cached_property`, hence no slots): a failure's life asks them of every later run."""

    key: str
    command: str
    signature: tuple[str, ...]
    failed: bool
    """The harness marked the call failed (a non-zero status, or the call never ran)."""
    crash: str | None
    output: str
    status_is_answer: bool = False
    """The harness read a non-zero status as an answer, not an error (grep's "no match"): the format's own
    field, carried by the reader as `exit_meaning`."""
    harness_slip: bool = False
    """The call never did its work: refused or stopped by the user, or by the harness before it ran. Its reader
    says so (`extra["slip"]`), in the harness's own words."""
    user_refused: bool = False
    """The slip was the user's refusal of the call when asked to allow it (`USER_REFUSED`)."""

    @cached_property
    def slipped(self) -> bool:
        """A slip, not a failure of the work: flagged by the reader, or a shell's own slip (`harmless_error`)."""
        return self.harness_slip or harmless_error(self.output)

    @cached_property
    def steps(self) -> tuple[Step, ...]:
        return parse_steps(self.command)

    @cached_property
    def script_tools(self) -> frozenset[tuple[str, ...]]:
        """The tools, by program and subcommand, of the package script the run ran, as the package manager echoed
        it (`_SCRIPT_ECHO`): `bun run validate`'s `tsc --noEmit && … && biome check src && bun test` runs tsc, biome
        check and bun test. Empty for any other run: the log has a script's command only where the run printed it.
        Asked of each later run by every failed script (`_script_checked_clean`), so read once."""
        step = attempted(self.steps)
        if step is None or not step.words or not _PACKAGE_SCRIPT.match(_program(step.words[0])):
            return frozenset()
        echoed = _SCRIPT_ECHO.search(self.output, 0, DEFAULT_CONFIG.script_echo_chars)
        return frozenset(step_signature(s)[:2] for s in parse_steps(echoed["command"]) if s.words) if echoed else (
            frozenset())  # fmt: skip

    @cached_property
    def ran(self) -> str:
        """`ran(self.command)`: the words the line runs, its quoted prose left out."""
        return ran(self.command)

    @cached_property
    def subjects(self) -> frozenset[str]:
        """`failure_subjects(self.command)`: what the line is about, asked of each run by every claim judged."""
        return failure_subjects(self.command)

    @cached_property
    def test_failure_row(self) -> str | None:
        """A failed test's row in the output of a test run whose exit status is not the runner's own."""
        if not piped_test_run(self):
            return None  # a status that is the runner's own is its word on the tests
        row = _FAILED_ROW.search(self.output)
        return row.group(0).strip() if row else None

    @cached_property
    def status_failed(self) -> bool:
        """The exit status says the attempted step failed: it is the step's own, and not an answer."""
        if not self.failed or self.status_is_answer:
            return False
        step = attempted(self.steps)
        return step is None or _status_speaks(self.steps, step) or not _FILTERS.issuperset(
            _program(s.words[0]) for s in self.steps[self.steps.index(step) + 1:])  # fmt: skip

    @cached_property
    def clean(self) -> bool:
        """It got past: no error status, no crash, and not a slip that never ran it (a pipe hides both)."""
        return not self.status_failed and self.crash is None and not self.slipped and not (
            self.failed and not self.status_is_answer and self.test_failure_row)  # fmt: skip

    @cached_property
    def succeeded(self) -> tuple[Step, ...]:
        """The steps this run shows succeeded: those its success proves (`proven_steps`); or, when it failed in a
        step its own output shows ran (`_shown_running`), the steps chained before that one by `&&`, which had to
        succeed for it to run (`curl … -o schema.json && python3 -c …` that raised got the file; `git stash && git
        pull --rebase && git stash pop` whose pop met a conflict pulled). A clean line whose status is a filter's
        proves so too what `&&` chained to a test run its pass rows show ran (`mise run lint && mise run test 2>&1 |
        tail -20` printing go's `ok` rows: the lint, cli_79e9becd)."""
        if self.clean:
            proven = proven_steps(self.steps)
            step = attempted(self.steps)
            if step is not None and step not in proven and piped_test_run(self) and _PASSED_ROW.search(self.output):
                # A test run read through a filter, whose pass rows show it ran: what `&&` chained it to succeeded.
                at = self.steps.index(step)
                if at and step.after == "&&":
                    proven += proven_steps(self.steps[:at])
            return tuple(proven)
        if not self.failed:
            return ()
        ran = [n for n, step in enumerate(self.steps) if step.words and _shown_running(step, self.output)]
        if len(ran) != 1 or self.steps[ran[0]].after != "&&":
            return ()  # which of two such steps failed, the output does not say; or nothing had to succeed before it
        return tuple(proven_steps(self.steps[: ran[0]]))  # what had to succeed for it to run, as a line's success does

    @cached_property
    def broke(self) -> bool:
        """It failed as work fails: a crash, an error status that is not a slip, or a failed test's row."""
        return self.crash is not None or (self.status_failed and not self.slipped) or (
            self.test_failure_row is not None)  # fmt: skip


def shell_runs(records: Sequence[SourceRecord]) -> list[ShellRun]:
    """Every shell command with its outcome, in log order (tool results carry their call's command)."""
    runs = []
    for record in records:
        if record.namespace != TRANSCRIPT or record.kind not in ("tool_result", "tool_error"):
            continue
        command = record.extra.get("command")
        if not isinstance(command, str) or not command.strip() or record.extra.get("background") == "started":
            continue  # a command sent to the background has no outcome yet: a later record reports it
        output = record.extra.get("output")  # a reader's word on the command's own output, when the text is more
        output = output if isinstance(output, str) else record.text  # (a background command's end, reported)
        crash = _crash(output)
        runs.append(ShellRun(record.key, command, command_signature(command), record.kind == "tool_error",
                             crash.group(0).strip() if crash else None, output,
                             isinstance(record.extra.get("exit_meaning"), str),
                             isinstance(record.extra.get("slip"), str),
                             record.extra.get("slip") == USER_REFUSED))  # fmt: skip
    return runs


@for_the_same
def log_runs(records: tuple[SourceRecord, ...]) -> tuple[ShellRun, ...]:
    """`shell_runs` of a whole log, read once for everything that reads them: its items (each failure owed, each
    stash, the task's issue) and its claims' evidence (each summary's cut of them) ask of the same trace's records."""
    return tuple(shell_runs(records))


# --- the line a failure is known by ------------------------------------------------------------------

_ERROR_LINE = re.compile(
    r"(?<!\w\.)\b(?:error|failed|failure|fatal|timed out|exception|undefined reference|cannot find -l|"
    r"vulnerabilit(?:y|ies))\b|\w\.(?:error|exception)(?=:)|\b\w+(?:Error|Exception):|^FAIL\b|\*\*\* .*\bStop\.$",
    re.IGNORECASE)  # fmt: skip
"""A line that names a failure: an error word, an exception (`termios.error: (25, …)`), a linker's or make's fatal
message, a vulnerability a scanner found. Not a member's name (`client.httpError.Error`, `err.Error()`):
raven_a4aae4ac's (fresh73) govulncheck failure was known by its call trace "#41: … calls client.httpError.Error"
rather than "Vulnerability #1: GO-2026-4887", which its summary named. A pre-commit hook's dotted leader
("ruff format.....Failed") is no member."""
_ERROR_DIAGNOSTIC = re.compile(r":\d+(?::\d+)?: (?:fatal )?error:")
"""A compiler's error diagnostic: gcc, clang and swiftc say a diagnostic's severity after its place. A build that
printed one failed by it, not by a warning before it whose text holds error-like words (`App.swift:16:16: warning:
… non-'Sendable' type …`)."""
_STATUS_LINE = re.compile(r"^\s*(?:exit (?:code|status):? \d+|\(\w+ completed with no output\))\s*$", re.IGNORECASE)
"""The harness's report of how a call ended, not the program's output."""


def _program_lines(run: ShellRun) -> list[str]:
    """The output's lines without the harness's status line and its echo of the command; a drawn panel read as its
    title and what is inside: a CLI built on rich (typer's errors) prints "╭─ Error ───╮", "│ No such option: --lane
    … │", "╰───╯", which is the line "Error: No such option: --lane …" (joyusai_b62c46a7's failure was known by the
    top edge)."""
    lines, title = [], ""
    for raw in run.output.splitlines():
        edge = _PANEL_EDGE.match(raw)
        if edge:
            title = edge["title"].strip(" ─━═-")
            continue
        inside = _PANEL_SIDES.sub("", raw) if _PANEL_SIDES.search(raw) else None
        line = (inside if inside is not None else raw).strip()
        if line and title and inside is not None:
            line, title = f"{title}: {line}", ""
        if line and not _STATUS_LINE.match(line) and not _echoes(line, run.command):
            lines.append(line)
    return lines


_PANEL_EDGE = re.compile(r"^\s*[╭╰┌└╔╚][─━═]*(?P<title>[^─━═╮╯┐┘╗╝]{0,40}?)[─━═]+[╮╯┐┘╗╝]\s*$")
"""A drawn panel's top or bottom edge, its title perhaps set in it ("╭─ Error ───╮")."""
_PANEL_SIDES = re.compile(r"^\s*[│┃║]\s?|\s*[│┃║]\s*$")


def _echoes(line: str, command: str) -> bool:
    """The line is the harness repeating the command (after a short label, perhaps cut with "…")."""
    flat = " ".join(command.split())
    at = line.find(flat[: DEFAULT_CONFIG.echo_head_chars]) if flat else -1
    if not 0 <= at <= DEFAULT_CONFIG.echo_slack:
        return False
    return flat.startswith(" ".join(line[at:].rstrip("….").split()))


def printed_nothing(run: ShellRun) -> bool:
    """The run's output holds none of the program's own words (only the harness's status line, or nothing)."""
    return not _program_lines(run)


def failure_line(run: ShellRun) -> str:
    """The line a reviewer recognises the failure by: the crash, else the first error-looking line (a compiler's
    error diagnostic first, when it printed one; a linker's "undefined reference" before its "collect2: error: ld
    returned 1") said before any Python traceback, else the
    exception the traceback ends in, else the first error-looking line, else the last line. The harness's status
    line and its echo of the command are not the program's words."""
    if run.crash:
        return run.crash
    row = run.test_failure_row
    if row is not None and not run.status_failed:
        return clip(row, 200)
    lines = _program_lines(run)
    errors = [line for line in lines if _ERROR_DIAGNOSTIC.search(line)] or [
        line for line in lines if _ERROR_LINE.search(line)]  # fmt: skip
    traceback = run.output.find(_TRACEBACK)
    raised = _raised(run.output, traceback) if traceback >= 0 else None
    if raised is not None and not (errors and 0 <= run.output.find(errors[0]) < traceback):
        return clip(raised, 200)  # no error said before the traceback: what it raised is the failure
    if errors:
        return clip(errors[0], 200)
    return clip(lines[-1] if lines else run.command, 200)


_TRACEBACK = "Traceback (most recent call last):"
_RAISED = re.compile(r"[A-Za-z_][\w.]*(?::|$)")
"""An exception as a traceback's last line names it: its dotted type, then its message after a colon."""


STASH_DROPPED = re.compile(r"^Dropped (?:refs/)?stash@\{\d+\}", re.MULTILINE)
"""Git's line when a `pop` or `drop` let an entry go: it was restored or dropped, whatever status a later step of the
line left (`git stash && git pull --rebase && git stash pop && git push`, its push refused)."""
STASH_KEPT_AFTER_CONFLICT = re.compile(r"The stash(?: entry)? is kept in case you need it again")
"""Git's line when a `pop` met a conflict: it applied the changes, conflict markers and all, and did not drop the
entry (older git says "The stash is kept")."""


def _shown_running(step: Step, output: str) -> bool:
    """The failed line's output is this step's own, so the step ran: a Python step's traceback, a `git stash pop`'s
    conflict. Words no other program prints: an error line in general could be any step's."""
    program = _program(step.words[0])
    if _PYTHON.fullmatch(program):
        return _TRACEBACK in output
    return program == "git" and git_arguments(step.words)[:2] == ("stash", "pop") and bool(
        STASH_KEPT_AFTER_CONFLICT.search(output))


def _raised(output: str, at: int) -> str | None:
    """The exception the Python traceback at `at` ends in: the first line after its header that is not indented
    (its frames and their code are) and names an exception. In a chain the first traceback is the cause; the line
    that joins the next ("The above exception was the direct cause of the following exception:") names none,
    though an error-looking line's word "exception" is in it, and so is a frame's code ("raise source.error(")."""
    for line in output[at + len(_TRACEBACK) :].splitlines()[1:]:
        if line and not line[0].isspace() and _RAISED.match(line):
            return line.strip()
    return None


def is_failure(run: ShellRun) -> bool:
    """A run that opens a failure of the work: it attempted work (not a look or a tidy) and broke, saying so.

    A non-zero status with no error in the output is a verdict the program reports by its status (a checker
    exiting 2 on a report it printed, `cmp`, a silent probe), not a failure anyone could name by a line. Nor is the
    line's own code failing to read what it piped into it (`_decoding_piped_output`).
    """
    if not run.signature or not run.broke or _decoding_piped_output(run):
        return False
    return run.crash is not None or run.test_failure_row is not None or any(
        _ERROR_LINE.search(line) for line in _program_lines(run))  # fmt: skip


_DECODE_ERROR = re.compile(r"\bJSONDecodeError\b|^jq: error \(at <stdin>|^parse error: .* at line \d+, column \d+",
                           re.MULTILINE)  # fmt: skip
"""A parser's words for input that is not the JSON it expected: Python's `json.decoder.JSONDecodeError`, jq's."""


def _decoding_piped_output(run: ShellRun) -> bool:
    """The line's last stage is code written on it (`inline_code`), reading what the stage before printed, and what
    failed is its decoding: raven_a4aae4ac's `gh pr checks 207 --json … | python3 -c "…json.load(sys.stdin)…"`
    (JSONDecodeError: Expecting value) and ovid_ec84c889's `gh api …/replies --method POST … | python3 -c
    "…json.load(sys.stdin)…"` (Extra data), whose reply was posted. The agent's way of reading a result broke, not
    the work: nothing the next agent must know, and each was an open failure a faithful summary was said to lose."""
    steps = run.steps
    return (len(steps) > 1 and steps[-1].after == "|" and inline_code(steps[-1])
            and _DECODE_ERROR.search(run.output) is not None)


# --- what a failure is about ------------------------------------------------------------------------

NOT_A_SUBJECT = frozenset(_RUNNERS | set(_WRAPPERS) | set(_RUN_SUBCOMMANDS) | {"run", "exec"})
"""Words that name how something ran, not what: `npx tsx bin/cli.ts` is about cli, not about npx."""


def subject_stem(word: str) -> str:
    """A program, test or file by its stem, lower-cased: `./tests/vsla_tests` → vsla_tests, `bin/cli.ts` → cli."""
    name = word.strip("`'\"()[]{}<>,;:!?").rstrip("/").rsplit("/", 1)[-1].lower().lstrip(".")
    return name.split(".", 1)[0].split(":", 1)[0]


def is_subject(stem: str) -> bool:
    """A stem that can name a program, test or file: long enough, not a number, not a runner's name."""
    return len(stem) >= DEFAULT_CONFIG.subject_min_length and not stem.isdigit() and stem not in NOT_A_SUBJECT


def failure_subjects(text: str) -> frozenset[str]:
    """Everything a failure's text (its attempt, command or line) could be known by: each word's stem, and each
    part of a path (`cmd/entire/cli/summarise` is about cli as much as about summarise)."""
    parts = (part for word in text.split() for part in (word, *word.split("/")))
    return frozenset(s for part in parts if is_subject(s := subject_stem(part)))


def about_subject(failure_text: str, subjects: frozenset[str]) -> bool:
    """Is a failure about one of the programs, tests or files a sentence names? A sentence naming none is about
    the whole run, and every failure is about it."""
    return not subjects or bool(subjects & failure_subjects(failure_text))


# --- the life of a failure ---------------------------------------------------------------------------


def whole_suite(run: ShellRun) -> bool:
    """A clean run of the whole test suite (`mise run test:ci`, `go test ./...`, `pytest`), not of chosen tests.

    It retires a failed test run however that was run, since the failing test is in the suite; its
    output must show no failure, as a pipe hides the exit status.
    """
    return (run.clean and bool(run.signature) and run.signature[0] not in _TRACERS
            and bool(TEST_RUN.search(run.ran)) and not _SELECTOR.search(run.command) and not _chose_tests(run)
            and not _FAILED_OUTPUT.search(run.output))  # fmt: skip


_COMPILE_ERROR = re.compile(r"^\S+\.\w+:\d+:(?:\d+:)? (?:fatal )?error\b|undefined reference|\bld returned\b|"
                            r"cannot find -l", re.MULTILINE)  # fmt: skip
"""A compiler's or linker's diagnostic: the build step of a line failed, not what it would have run after."""


def failing_signature(run: ShellRun, line: str) -> tuple[str, ...]:
    """The attempt a failure belongs to: the line's attempt, or its build step when the build is what failed
    (`gcc -o t t.c && ./t` stopping at a compile error is a failed build of t, not a failed run of ./t)."""
    if _COMPILE_ERROR.search(line):
        build = next((s for s in run.steps if s.words and _program(s.words[0]) in _C_FAMILY), None)
        if build is not None:
            return step_signature(build)
    return run.signature


def _same_attempt(one: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Two signatures of one attempt: equal, or the same program on one file spelled from two folders
    (`bash /Users/u/wfc/scripts/tools.sh` and, run in /Users/u/wfc, `bash scripts/tools.sh`; `./run.sh` and
    `run.sh`), the one path ending in the other whole."""
    if one == other:
        return True
    if len(one) != 2 or len(other) != 2 or one[0] != other[0]:
        return False
    first, second = (path.removeprefix("./") for path in (one[1], other[1]))
    shorter, longer = sorted((first, second), key=len)
    return "." in shorter.rsplit("/", 1)[-1] and (shorter == longer or longer.endswith(f"/{shorter}"))


def _ran_clean(failed: Failure, later: ShellRun) -> bool:
    return any(_same_attempt(step_signature(s), failed.signature) for s in later.succeeded) and not _narrower(
        failed, later)  # fmt: skip


def _narrower(failed: Failure, later: ShellRun) -> bool:
    """The later run chose some of the tests the failed run ran all of (`_chose_tests`): its pass says nothing of
    the rest (lightprotocol_3ad45457: `cargo test -p light-sdk-types` failed four address tests, and `… --test
    compress_processor --test decompress_processor` passing its own seven retired that)."""
    return _chose_tests(later) and not _chose_tests(failed.run)


def _suite_passed(failed: Failure, later: ShellRun) -> bool:
    return bool(TEST_RUN.search(failed.run.ran)) and whole_suite(later)


def _passed_through_a_filter(failed: Failure, later: ShellRun) -> bool:
    """A failed test run's attempt ran again piped into a filter (`pytest tests/x.py 2>&1 | tail -20`), and its
    output, the runner's word where the status is the filter's (`ShellRun.test_failure_row`), shows a pass and no
    failure: the tests that failed pass now, though no exit status proves the runner's stage."""
    return (later.clean and later.signature == failed.signature and bool(TEST_RUN.search(failed.run.ran))
            and piped_test_run(later) and _PASSED_ROW.search(later.output) is not None
            and _FAILED_OUTPUT.search(later.output) is None and _FAILED_COUNT.search(later.output) is None
            and not _narrower(failed, later))


def piped_test_run(run: ShellRun) -> bool:
    """A test run whose exit status is a filter's it is piped into, not the runner's own."""
    step = attempted(run.steps)
    return step is not None and not _status_speaks(run.steps, step) and bool(TEST_RUN.search(_run_words(step.words)))


def _retried_in_another_form(failed: Failure, later: ShellRun) -> bool:
    """Code written into the line failed; the same interpreter then ran clean, inline or from a file."""
    steps = failed.run.steps
    if not later.clean or not any(inline_code(s, failed.run.command) and step_signature(s)[0] == failed.signature[0]
                                  for s in steps):  # fmt: skip
        return False
    return any(step_signature(s)[0] == failed.signature[0] for s in proven_steps(later.steps))


def _inlined(failed: Failure, later: ShellRun) -> bool:
    """A script failed, and the same interpreter then ran clean code written into the line that names every word of
    the script's name: the script's work, done inline instead (paicujp_a431b407: `node scripts/import-r2511.mjs`
    could not load a package, and `node --input-type=module -e "…"` importing the R2511 responses ran clean). A
    script of one word needs its whole name there, with its extension."""
    if not later.clean or len(failed.signature) != 2 or "." not in failed.signature[1]:
        return False
    parts, extension = _name_parts(failed.signature[1])
    words = parts if len(parts) > 1 else [f"{parts[0]}.{extension}"] if parts else []
    lowered = later.command.lower()
    return bool(words) and all(word in lowered for word in words) and any(
        step_signature(step)[0] == failed.signature[0] and inline_code(step, later.command)
        for step in proven_steps(later.steps))  # fmt: skip


def _name_parts(script: str) -> tuple[list[str], str]:
    name = script.rsplit("/", 1)[-1]
    stem, _, extension = name.rpartition(".")
    return [part for part in re.split(r"[_\-]+", stem.lower()) if part], extension


def _replaced_by_a_sibling(failed: Failure, later: ShellRun) -> bool:
    """The failing script was given up for a sibling the same program then ran clean: `run_full_benchmark.py`
    crashed, `run_benchmark.py` took its place. A sibling has the same extension, and the words of one name are
    the other's in order, some left out (`run_benchmark` in `run_full_benchmark`); a name of one word (`run.py`)
    is no script's sibling, as it would be everyone's."""
    if not later.clean or len(failed.signature) != 2 or "." not in failed.signature[1]:
        return False
    old, extension = _name_parts(failed.signature[1])
    for step in proven_steps(later.steps):
        signature = step_signature(step)
        if len(signature) != 2 or signature[0] != failed.signature[0] or signature[1] == failed.signature[1]:
            continue
        new, new_extension = _name_parts(signature[1])
        shorter, longer = sorted((old, new), key=len)
        if new_extension == extension and len(shorter) > 1 and shorter != longer and _in_order(shorter, longer):
            return True
    return False


def _in_order(few: list[str], many: list[str]) -> bool:
    rest = iter(many)
    return all(word in rest for word in few)


def _file_removed(failed: Failure, later: ShellRun) -> bool:
    """The file the failure ran or built was deleted: what failed no longer exists to fail."""
    named = failed.signature[-1].rsplit("/", 1)[-1] if len(failed.signature) > 1 else ""
    if not named or "." not in named and failed.signature[0] != "cc" or later.status_failed:
        return False
    return any(_program(s.words[0]) == "rm" and any(w.rsplit("/", 1)[-1].split(".")[0] == named.split(".")[0]
                                                   for w in s.words[1:] if not w.startswith("-"))
               for s in later.steps)  # fmt: skip


_FETCHERS = frozenset(("curl", "wget"))
"""Programs that fetch one address: what they fetch is named by the address's last part, wherever it is served."""


def _fetched_name(signature: tuple[str, ...]) -> str | None:
    """The file a fetch's address names (`renovate-schema.json` of `https://docs.renovatebot.com/renovate-schema.json`),
    or None for another step, or an address that names no file (a host, a folder, an API's path without an
    extension)."""
    if len(signature) != 2 or signature[0] not in _FETCHERS or "://" not in signature[1]:
        return None
    name = signature[1].split("?", 1)[0].split("#", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return name if "." in name and "/" not in name and not name.startswith(".") and name.count(".") < 4 else None


def _fetched_elsewhere(failed: Failure, later: ShellRun) -> bool:
    """A fetch failed, and a later one got the same file from another address: a mirror, the raw copy of a
    repository's file (flutterdocker_aba9151e: `curl https://docs.renovatebot.com/renovate-schema.json` failed, and
    `curl https://raw.githubusercontent.com/renovatebot/renovate/main/renovate-schema.json` ran clean). The file the
    work needed is there; the address it failed at is no open problem."""
    name = _fetched_name(failed.signature)
    return name is not None and any(
        _fetched_name(step_signature(step)) == name and step_signature(step) != failed.signature
        for step in later.succeeded)  # fmt: skip


_CONCLUDED_BY_COMMIT = frozenset((("git", "merge"), ("git", "cherry-pick"), ("git", "revert")))
"""git's operations that stop on conflicts and are concluded by the next commit once the conflicts are resolved."""
_CONFLICTED = re.compile(r"^CONFLICT \(|Automatic merge failed|after resolving the conflicts", re.MULTILINE)
"""git's words for an operation stopped on conflicts (not one refused outright: an unknown branch, unrelated
histories), which a commit does not conclude."""


def _concluded_by_a_commit(failed: Failure, later: ShellRun) -> bool:
    """A merge, cherry-pick or revert stopped on conflicts; a later commit ran clean, which is how git concludes it
    once the conflicts are resolved and staged (`git commit --no-edit`): the failure was the conflicts, now gone."""
    return (failed.signature[:2] in _CONCLUDED_BY_COMMIT and _CONFLICTED.search(failed.run.output) is not None
            and later.clean and any(step_signature(s)[:2] == ("git", "commit") for s in proven_steps(later.steps)))


_DIVERGED = re.compile(r"Not possible to fast-forward|have diverged|divergent branches|"
                       r"Need to specify how to reconcile", re.IGNORECASE)  # fmt: skip
"""git's words for a pull it refused because the local and the remote branch each have commits of their own."""
_RECONCILE = frozenset((("git", "pull"), ("git", "merge"), ("git", "rebase")))


def _reconciled(failed: Failure, later: ShellRun) -> bool:
    """A pull git refused because the branches had diverged (`git pull --ff-only`: "Not possible to fast-forward");
    a later merge, rebase or pull ran clean, which is how the two are reconciled (joyusai_b62c46a7: `git merge
    origin/main --no-ff -m "chore: sync local main with origin/main" && git push origin main`). A pull that failed for
    another reason (no network, no such remote) is not concluded so."""
    return (failed.signature[:2] == ("git", "pull") and _DIVERGED.search(failed.run.output) is not None
            and later.clean and any(step_signature(s)[:2] in _RECONCILE for s in proven_steps(later.steps)))


_PACKAGE_SCRIPT = re.compile(r"^(?:npm|pnpm|bun|yarn)$")
_SCRIPT_ECHO = re.compile(r"^(?:\$ |> (?!\S+@\S+ \S))(?P<command>\S.*)$", re.MULTILINE)
"""The command a package manager prints as it runs a script: bun's and yarn's `$ biome check --write src`, npm's and
pnpm's `> biome check --write src` under their `> name@1.0.0 lint:fix` header."""


def _script_checked_clean(failed: Failure, later: ShellRun) -> bool:
    """A package script failed, and a later clean run of another script ran the same tool's same command on its way:
    ovid_ec84c889's `bun run lint:fix` ("$ biome check --write src") failed, and `bun run validate` ("$ tsc --noEmit &&
    … && biome check src && bun test") ran clean after the fixes, so the lint passes. The tool by its program and
    subcommand, not its flags (`--write` fixes what it can, and fails on what it cannot)."""
    return bool(failed.run.script_tools) and later.clean and bool(failed.run.script_tools & later.script_tools)


def _reached_by_its_path(failed: Failure, later: ShellRun) -> bool:
    """The program said it has no such command as the line named, and a later clean run of it reached that command
    under its parent: joyusai_b62c46a7's `spec-kitty move-task WP01 …` ("No such command 'move-task'"), then `spec-kitty
    agent tasks move-task WP01 --to done …`, clean. The agent called the command by a wrong name; nothing failed of
    the work."""
    if not later.clean or len(failed.signature) < 2 or not _NO_SUCH_COMMAND.search(failed.line):
        return False
    program, name = failed.signature[:2]
    return any(step_signature(step)[0] == program and name in step.words[2:] for step in proven_steps(later.steps))


_NO_SUCH_COMMAND = re.compile(r"\b(?:no such|unknown|unrecognized) (?:sub)?command\b|\binvalid choice\b|"
                              r"\bis not an? [\w-]+ command\b", re.IGNORECASE)  # fmt: skip
"""A program's words for a command it does not have: click's and typer's "No such command", cobra's and npm's "unknown
command", argparse's "invalid choice", git's "'x' is not a git command"."""


def _script_tool_ran_clean(failed: Failure, later: ShellRun) -> bool:
    """A package script failed, and the agent then ran the script's tool itself, clean: meow_f29a7049's `npm run
    lint:text` ("> textlint "**/*.md"") failed on an article, and `npx textlint "articles/…md" …`, naming that
    article, ran clean after the fix. The tool by its program, and its subcommand where the script gave one (`biome
    check`); where the script gave it files, the later run names one the failure printed, or none (the whole)."""
    if not later.clean or not failed.run.script_tools:
        return False
    for step in proven_steps(later.steps):
        signature = step_signature(step)
        for tool in failed.run.script_tools:
            if not signature or signature[0] != tool[0]:
                continue
            if len(tool) > 1 and not _names_files(tool[1]):
                if signature[:2] == tool[:2]:
                    return True
                continue
            files = [word for word in step.words[1:] if _names_files(word)]
            if not files or any(word.strip("\"'") in failed.run.output for word in files):
                return True
    return False


def _names_files(word: str) -> bool:
    """A word a tool reads as files: a path, a glob, or a file's name with its extension."""
    return not word.startswith("-") and ("/" in word or "*" in word or _FILE_EXTENSION.search(word) is not None)


_FILE_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]{0,5}$")


RETIREMENTS: tuple[tuple[str, Callable[[Failure, ShellRun], bool]], ...] = (
    ("ran clean", _ran_clean),
    ("its tests passed, read through a filter", _passed_through_a_filter),
    ("the whole suite passed", _suite_passed),
    ("retried in another form", _retried_in_another_form),
    ("done inline instead", _inlined),
    ("replaced by a sibling script", _replaced_by_a_sibling),
    ("its file was removed", _file_removed),
    ("concluded by a commit", _concluded_by_a_commit),
    ("reconciled by a merge or rebase", _reconciled),
    ("its tool ran clean in another script", _script_checked_clean),
    ("its tool ran clean on its own", _script_tool_ran_clean),
    ("reached by its path", _reached_by_its_path),
    ("fetched from another address", _fetched_elsewhere),
)
"""What shows a failure gone, each as (how it is said, whether a later run shows it), tried in order."""


@dataclass(frozen=True, slots=True)
class Failure:
    """One failure of the work and what became of it."""

    run: ShellRun
    line: str
    signature: tuple[str, ...]
    """The attempt that failed (`failing_signature`)."""
    superseded_by: str | None = None
    """A later failure of the same attempt: the problem as it now stands, which the next agent needs instead."""
    retired_by: str | None = None
    how: str | None = None
    """How it was retired: one of `RETIREMENTS`' names."""
    at: int = field(default=-1, compare=False)
    """Where its run, the superseding failure's and the retiring run's are among the runs it was found in: how it
    stood at an earlier cut of them (`failures_before`), not what it is."""
    superseded_at: int | None = field(default=None, compare=False)
    retired_at: int | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        return f"{' '.join(self.signature)}: {self.line}"


def failures(runs: Sequence[ShellRun]) -> Iterator[Failure]:
    """Each failure of the work in log order, the same attempt failing the same way once while it stands (a crash
    once however it was run; failing so again after its retirement, it is open again), with what superseded or
    retired it: the first later run a `RETIREMENTS` test shows it gone by,
    and the first later failure of the same attempt in other words.

    Each failure asks only the later runs that could retire it (`_Retirers`) and the later failures of its own
    attempt: a session of 2,000 failing runs asked every later run of each failure, 26 s."""
    opened = [_opened(run) if is_failure(run) else None for run in runs]
    by_attempt: dict[tuple[str, ...], list[tuple[int, str]]] = {}
    for position, failed in enumerate(opened):
        if failed is not None:
            by_attempt.setdefault(failed[2], []).append((position, failed[1]))
    retirers = _Retirers(runs)
    # Each failure's last opening, by attempt and line: where what retired it is (None: nothing did). Failing again
    # after that, it is open again.
    retired_at: dict[tuple[tuple[str, ...], str], int | None] = {}
    for position, failed in enumerate(opened):
        if failed is None:
            continue
        run, line, signature = failed
        failure = Failure(run, line, signature, at=position)
        same = ((), line) if run.crash else (signature, line)
        if same in retired_at and (retired_at[same] is None or retired_at[same] > position):
            continue
        tools = (tool[0] for tool in run.script_tools)
        retired = next(((at, how) for at in retirers.after(position, signature, tools) for how, shows in RETIREMENTS
                        if shows(failure, runs[at])), None)  # fmt: skip
        superseded = None if run.crash else next(
            (at for at, later_line in by_attempt[signature] if at > position and later_line != line), None)  # fmt: skip
        if superseded is not None and retired is not None and retired[0] < superseded:
            superseded = None
        retired_at[same] = None if retired is None else retired[0]
        yield replace(failure, superseded_by=None if superseded is None else runs[superseded].key,
                      retired_by=None if retired is None else runs[retired[0]].key,
                      how=None if retired is None else retired[1], superseded_at=superseded,
                      retired_at=None if retired is None else retired[0])  # fmt: skip


def failures_before(found: Iterable[Failure], count: int) -> Iterator[Failure]:
    """`failures(runs[:count])`, from `found`, `failures(runs)`: a log's failures at each of its compactions from
    one reading of all its runs, not one per compaction (19 readings of 20,000 runs: 0.3 s).

    The same: whether a run failed, how, and which earlier failure it repeats, the runs before it decide; what
    retired or superseded a failure is the first later run that does, so before the cut it is that one or none.
    A supersession the whole log drops for an earlier retirement lies after that retirement: past the cut with
    it, or dropped before it too."""
    for failure in found:
        if failure.at >= count:
            return
        retired = failure.retired_at is not None and failure.retired_at < count
        superseded = failure.superseded_at is not None and failure.superseded_at < count
        yield replace(failure, superseded_by=failure.superseded_by if superseded else None,
                      superseded_at=failure.superseded_at if superseded else None,
                      retired_by=failure.retired_by if retired else None, how=failure.how if retired else None,
                      retired_at=failure.retired_at if retired else None)  # fmt: skip


def _opened(run: ShellRun) -> tuple[ShellRun, str, tuple[str, ...]]:
    line = failure_line(run)
    return run, line, failing_signature(run, line)


class _Retirers:
    """Where in a session's runs each `RETIREMENTS` test can hold, by what it needs of the later run: a run showing
    a step of the failed attempt's program succeeded (`ShellRun.succeeded`: ran clean, retried in another form,
    replaced by a sibling, fetched elsewhere), a clean run of the whole suite, a run that removes files. A superset
    of the runs that retire, in log order."""

    def __init__(self, runs: Sequence[ShellRun]) -> None:
        self._by_program: dict[str, list[int]] = {}
        self._suites: list[int] = []
        self._removals: list[int] = []
        for position, run in enumerate(runs):
            programs = dict.fromkeys(step_signature(step)[0] for step in run.succeeded if step.words)
            if run.clean and run.signature and piped_test_run(run):  # a test run read through a filter passes by
                programs[run.signature[0]] = None  # its output
            for program in programs:
                self._by_program.setdefault(program, []).append(position)
            if run.clean and whole_suite(run):
                self._suites.append(position)
            if not run.status_failed and any(step.words and _program(step.words[0]) == "rm" for step in run.steps):
                self._removals.append(position)

    def after(self, position: int, signature: tuple[str, ...], tools: Iterable[str] = ()) -> Iterator[int]:
        """The positions after `position` where a failure of `signature` could be retired, in order, once each; also
        where one of the `tools` its package script ran succeeded (`_script_tool_ran_clean`)."""
        programs = dict.fromkeys((signature[0] if signature else "", *tools))
        lists = (*(self._by_program.get(program, []) for program in programs), self._suites, self._removals)
        return (at for at, _ in groupby(heapq.merge(*(_past(positions, position) for positions in lists))))


def _past(positions: list[int], position: int) -> Iterator[int]:
    """The sorted `positions` after `position`, without copying them."""
    return (positions[i] for i in range(bisect_right(positions, position), len(positions)))


@for_the_same
def log_failures(runs: tuple[ShellRun, ...]) -> tuple[Failure, ...]:
    """`failures` of a whole log's runs (`log_runs`), worked out once for its items and its claims' evidence."""
    return tuple(failures(runs))


def failure_items(runs: Sequence[ShellRun]) -> Iterator[Invariant]:
    """Failures of the work as items: owed until superseded or retired."""
    for failure in log_failures(tuple(runs)):
        kind = InvariantKind.FAILURE if failure.run.crash else InvariantKind.FAILED_APPROACH
        yield Invariant(f"{kind.value}:{failure.run.key}", kind, failure.text, failure.run.key,
                        retired_by=failure.superseded_by or failure.retired_by)  # fmt: skip


__all__ = ["NOT_A_SUBJECT", "RETIREMENTS", "STASH_DROPPED", "STASH_KEPT_AFTER_CONFLICT", "TEST_RUN", "TEST_WORDS",
           "VERIFYING", "Failure", "ShellRun",
           "Step", "about_subject", "attempted", "command_signature", "failing_signature", "failure_items",
           "failure_line", "failure_subjects", "failures", "failures_before", "git_arguments", "harmless_error",
           "inline_code", "is_failure", "is_subject", "log_failures", "log_runs", "parse_steps", "printed_nothing",
           "proven_steps", "ran", "shell_runs", "step_signature", "subject_stem", "test_choices",
           "whole_suite"]  # fmt: skip
