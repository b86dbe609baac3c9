"""The shell parser's tables, kept between processes: a later process parses exactly as one that built them.

Each case runs the parser in a fresh Python process (bashlex builds or reads its tables once, on import),
with its own cache folder, and compares the steps bashlex gives real command lines from sessions (the lines
tree-sitter does not read whole reach it: `shell_tree`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from inspector.shell_grammar import CACHE_SETTING, read_tables

COMMANDS = [
    "cd /repo && make 2>&1 | tail -5",
    "timeout 30 uv run python3 -c 'print(1)' | grep -v 'a b'",
    "for f in *.py; do python3 $f || echo failed; done",
    "git add -A && git commit -m \"$(cat <<'EOF'\nFix the parser\nEOF\n)\" && git push",
    "(cd web && npm test) ; pytest -q tests/test_x.py::test_y",
]

_PARSE = """
import json, sys
from inspector.shell_runs import _grammar_steps
print(json.dumps([[list(s.words), s.after, s.piped_on] for c in json.loads(sys.argv[1]) for s in _grammar_steps(c)]))
"""


def _parsed(cache: Path) -> list[object]:
    """What a fresh process parses the commands into, with `cache` as its table folder."""
    env = {**os.environ, CACHE_SETTING: str(cache)}
    done = subprocess.run([sys.executable, "-c", _PARSE, json.dumps(COMMANDS)], env=env, capture_output=True,
                          text=True, check=True)  # fmt: skip
    return json.loads(done.stdout)


def _kept(cache: Path) -> list[Path]:
    return sorted(cache.glob("bashlex-*.json"))


def test_a_process_that_reads_the_kept_tables_parses_as_the_one_that_built_them(tmp_path: Path) -> None:
    built = _parsed(tmp_path)
    [table] = _kept(tmp_path)
    assert read_tables(table) is not None
    stamp = table.stat().st_mtime_ns
    assert _parsed(tmp_path) == built
    assert table.stat().st_mtime_ns == stamp, "the second process built the tables again instead of reading them"
    assert built[:3] == [[["cd", "/repo"], "", False], [["make"], "&&", True], [["tail", "-5"], "|", False]]


def test_tables_that_load_but_do_not_parse_are_built_again(tmp_path: Path) -> None:
    built = _parsed(tmp_path)
    [table] = _kept(tmp_path)
    table.write_text(json.dumps({"action": {"0": {}}, "goto": {}}))  # well formed, and parses nothing
    assert read_tables(table) is not None
    assert _parsed(tmp_path) == built
    assert read_tables(table) not in (None, ({0: {}}, {}))  # thrown away, and the built tables kept instead


def test_a_damaged_or_foreign_table_file_is_built_again_and_parses_the_same(tmp_path: Path) -> None:
    built = _parsed(tmp_path)
    [table] = _kept(tmp_path)
    for damage in ("{not json", json.dumps({"action": {"0": {"WORD": "os.system"}}, "goto": {}}), "[]",
                   json.dumps({"action": {"x": {}}, "goto": {}})):  # fmt: skip
        table.write_text(damage)
        assert read_tables(table) is None
        assert _parsed(tmp_path) == built


def test_an_unwritable_cache_folder_costs_time_not_a_parse(tmp_path: Path) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    assert _parsed(blocked / "cache") == _parsed(tmp_path / "fresh")
    assert not (blocked / "cache").exists()
