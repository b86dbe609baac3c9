"""Shell lines parsed by one process are read back by the next instead of parsed again, with the very steps the
grammar gave; whatever is wrong with the kept file costs a parse, never a different one.

Only the lines tree-sitter does not read whole reach bashlex and its kept steps (`shell_tree`); these tests read
the kept steps alone, with tree-sitter set aside, so that they do not hang on which lines it misreads."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from inspector import shell_parse_cache, shell_runs
from inspector.shell_parse_cache import KeptParses, file_name
from tests.helpers import REAL_TRACES, needs_shared
from tests.test_plain_steps import commands_of

LINES = [
    "cd web && npm test -- --grep \"$PATTERN\" 2>&1 | tail -n 20",  # a variable: the grammar's
    'git commit -m "$(cat msg.txt)" && git push origin HEAD || echo failed',
    "for f in *.py; do python3 \"$f\" > /dev/null; done",
    "timeout 30 uv run python3 -c 'print(1)' | grep -q 1; echo $?",
    "cat <<'EOF' > x.sh\necho hi\nEOF\nbash x.sh",
    "echo $(( 1 +",  # the grammar refuses it: the lexer's steps are kept as well
]
PARSER = (shell_runs._grammar_steps, shell_runs._walk, shell_runs._words_of, shell_runs._fallback_steps)  # noqa: SLF001


@pytest.fixture
def kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`parse_steps` with its kept lines in a folder of the test's own, its in-process cache empty, and no line read
    by tree-sitter."""
    monkeypatch.setattr(shell_runs, "KEPT", KeptParses(PARSER, tmp_path))
    monkeypatch.setattr(shell_runs, "tree_steps", lambda command: None)
    shell_runs.parse_steps.cache_clear()
    yield tmp_path
    shell_runs.parse_steps.cache_clear()


def _counting_grammar(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    parsed: list[str] = []
    grammar = shell_runs._grammar_steps  # noqa: SLF001

    def counting(command: str) -> list[shell_runs.Step]:
        parsed.append(command)
        return grammar(command)

    monkeypatch.setattr(shell_runs, "_grammar_steps", counting)
    return parsed


def _next_process(folder: Path) -> None:
    """What a new process sees: the lines kept in `folder`, nothing in memory."""
    shell_runs.KEPT.save()
    shell_runs.KEPT = KeptParses(PARSER, folder)
    shell_runs.parse_steps.cache_clear()


def test_a_line_parsed_once_is_read_back_with_the_grammars_steps_by_the_next_process(kept, monkeypatch):
    parsed = _counting_grammar(monkeypatch)
    first = [shell_runs.parse_steps(line) for line in LINES]
    assert parsed == LINES
    _next_process(kept)
    again = [shell_runs.parse_steps(line) for line in LINES]
    assert again == first
    assert parsed == LINES  # not one parsed again
    assert any(step.piped_on for steps in again for step in steps)  # the pipe stages came back as such
    assert {step.after for steps in again for step in steps} >= {"", "&&", "||", ";"}


def test_a_plain_line_is_neither_kept_nor_parsed(kept, monkeypatch):
    parsed = _counting_grammar(monkeypatch)
    shell_runs.parse_steps("cd src && go test ./...")
    shell_runs.KEPT.save()
    assert parsed == []
    assert not list(kept.glob("shell-steps-*.sqlite3"))  # nothing to keep: the file is not even opened


def test_a_damaged_or_foreign_file_costs_a_parse_not_a_different_one(kept, monkeypatch):
    truth = [shell_runs.parse_steps(line) for line in LINES]
    _next_process(kept)
    [database] = kept.glob("shell-steps-*.sqlite3")
    with sqlite3.connect(database) as connection:  # every value of the wrong shape
        connection.execute("UPDATE steps SET steps = ?", (json.dumps([[["rm", "-rf", "/"], "&", True]]),))
    parsed = _counting_grammar(monkeypatch)
    assert [shell_runs.parse_steps(line) for line in LINES] == truth
    assert parsed == LINES
    _next_process(kept)
    database.write_bytes(b"not a database at all" * 100)
    assert [shell_runs.parse_steps(line) for line in LINES] == truth


def test_a_folder_that_cannot_be_written_costs_a_parse(tmp_path, monkeypatch):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setattr(shell_runs, "KEPT", KeptParses(PARSER, blocked / "cache"))
    monkeypatch.setattr(shell_runs, "tree_steps", lambda command: None)
    shell_runs.parse_steps.cache_clear()
    assert [step.words[0] for step in shell_runs.parse_steps(LINES[0])] == ["cd", "npm", "tail"]
    shell_runs.KEPT.save()
    shell_runs.parse_steps.cache_clear()


def test_the_file_is_named_for_the_code_that_makes_steps(tmp_path):
    assert file_name(PARSER) == file_name(PARSER)
    assert file_name(PARSER) != file_name((*PARSER[:3], shell_runs._plain_steps))  # noqa: SLF001
    shell_runs_kept = KeptParses(PARSER, tmp_path)
    shell_runs_kept.put("a 'b'", [(("a", "b"), "", False)])
    shell_runs_kept.save()
    [database] = tmp_path.glob("shell-steps-*.sqlite3")
    assert database.name == file_name(PARSER)
    assert oct(database.stat().st_mode & 0o777) == oct(0o600)  # the user's commands are theirs alone


def test_another_bashlex_installed_names_another_file(tmp_path, monkeypatch):
    """Lines kept from one bashlex are not read back after it is upgraded or reinstalled: the name carries a digest of
    its modules' sizes and times, found without importing it (nor importlib.metadata, for its version)."""
    package = tmp_path / "site" / "bashlex"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "parser.py").write_text("GRAMMAR = 1\n")
    monkeypatch.delitem(sys.modules, "bashlex", raising=False)  # find_spec answers from here when it is imported
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    installed = file_name(PARSER)
    assert installed == file_name(PARSER)
    (package / "parser.py").write_text("GRAMMAR = 22\n")  # an upgrade: another size and time
    assert file_name(PARSER) != installed
    upgraded = file_name(PARSER)
    os.utime(package / "parser.py", ns=(1, 1))  # a reinstall of the same bytes: another time
    assert file_name(PARSER) not in (installed, upgraded)


def test_the_least_recently_used_lines_go_past_the_bound(tmp_path, monkeypatch):
    monkeypatch.setattr(shell_parse_cache, "MAX_KEPT", 3)
    times = iter(range(100))
    monkeypatch.setattr(shell_parse_cache.time, "time", lambda: next(times))
    for batch in (["a '1'", "a '2'"], ["a '3'"]):
        kept = KeptParses(PARSER, tmp_path)
        for line in batch:
            kept.put(line, [((line,), "", False)])
        kept.save()
    reader = KeptParses(PARSER, tmp_path)
    assert reader.get("a '1'") is not None  # used now: the newest
    reader.put("a '4'", [(("a '4'",), "", False)])
    reader.save()
    last = KeptParses(PARSER, tmp_path)
    assert [line for line in ("a '1'", "a '2'", "a '3'", "a '4'") if last.get(line)] == ["a '1'", "a '3'", "a '4'"]


def test_a_line_with_a_long_body_is_not_kept(tmp_path):
    kept = KeptParses(PARSER, tmp_path)
    kept.put("cat <<EOF …", [(("cat", "x" * shell_parse_cache.MAX_STEP_CHARS), "", False)])
    kept.put("cat <<EOF", [(("cat", "short"), "", False)])
    kept.save()
    again = KeptParses(PARSER, tmp_path)
    assert again.get("cat <<EOF …") is None
    assert again.get("cat <<EOF") == ((("cat", "short"), "", False),)


@needs_shared(REAL_TRACES)
def test_every_real_line_reads_back_as_the_grammar_parsed_it(kept):
    lines = sorted(set(commands_of(sorted(REAL_TRACES.glob("*/*.jsonl")))))
    assert len(lines) > 500
    truth = [shell_runs.parse_steps(line) for line in lines]
    _next_process(kept)
    assert [shell_runs.parse_steps(line) for line in lines] == truth


def test_a_second_check_reads_the_kept_lines_and_prints_the_same_bytes(tmp_path):
    """A log whose lines include ones no grammar reads whole (the only ones kept now: `shell_tree` reads the rest):
    the first check keeps bashlex's reading of them, and the second prints the same bytes."""
    fixture = Path(__file__).parent / "fixtures" / "claude_code" / "three_compactions.jsonl"
    session = tmp_path / "session.jsonl"
    refused_line = "pytest tests/test_fees.py -q $(( 1 +"  # a syntax error: no grammar reads it whole
    session.write_text(fixture.read_text().replace("pytest tests/test_fees.py -q", refused_line))
    cache = tmp_path / "cache"
    env = {**os.environ, "INSPECTOR_CACHE_DIR": str(cache)}
    runs = [subprocess.run([sys.executable, "-m", "inspector", "check", "--json", str(session)], env=env,
                           capture_output=True, check=False) for _ in range(2)]  # fmt: skip
    assert runs[0].returncode == runs[1].returncode and runs[0].returncode in (0, 1), runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    assert b'"findings"' in runs[0].stdout
    [database] = cache.glob("shell-steps-*.sqlite3")
    kept = sqlite3.connect(database).execute("SELECT count(*) FROM steps").fetchone()[0]
    refused = {line for line in commands_of([session]) if shell_runs._plain_steps(line) is None  # noqa: SLF001
               and shell_runs.tree_steps(line) is None}  # fmt: skip
    assert kept == len(refused) > 0  # the lines bashlex parsed in the first run, and only those


def test_threads_of_one_process_share_the_kept_lines(kept):
    """The app analyses in several threads: each parses and saves while others read and add."""
    import threading

    lines = [f"grep -n \"$P{n}\" src/file_{n}.py | head -{n % 9 + 1} && echo \"done {n}\"" for n in range(400)]
    truth = {line: shell_runs._grammar_steps(line) for line in lines}  # noqa: SLF001
    failed: list[BaseException] = []

    def work(part: list[str]) -> None:
        try:
            for line in part:
                steps = shell_runs.parse_steps(line)
                assert [s.words[0] for s in steps] == [s.words[0] for s in truth[line]]
                shell_runs.KEPT.save()
        except BaseException as error:  # noqa: BLE001 — reported by the main thread
            failed.append(error)

    threads = [threading.Thread(target=work, args=(lines[n::8],)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == []
    _next_process(kept)
    reader = shell_runs.KEPT
    assert all(reader.get(line) is not None for line in lines)  # every thread's lines were written
