"""bashlex without its start-up cost: the shell grammar's parse tables read from a cache, not built per process.

bashlex carries its own copy of PLY, whose `yacc()` builds the grammar's LALR tables every time
`bashlex.parser` is imported (it never reads back the table module it ships): about 0.2 s, the largest
single cost of checking a session of a few MB, paid again by every `check` and every guard run. The tables
are a function of the grammar alone, so they are built once and kept as JSON in the user's cache folder,
under a name that carries bashlex's version, Python's and a digest of the grammar's productions and
precedence; a later import reads them back. A file that is missing, unreadable, malformed or for another
grammar is ignored and the tables are built as bashlex always did, so the cache can only save time, never
change a parse. JSON, not pickle: a file in a folder others may write must never be able to run code.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

CACHE_SETTING = "INSPECTOR_CACHE_DIR"
"""Where the tables are kept, when set (a folder); else `$XDG_CACHE_HOME/compaction-inspector`."""

_MAX_TABLE_BYTES = 4 << 20
"""Far above the real tables (about 0.2 MB): a larger file is not ours, and is not read."""

Tables = tuple[dict[int, dict[str, int]], dict[int, dict[str, int]]]


def cache_folder() -> Path:
    """The folder the tables are kept in: the setting, else the XDG cache folder."""
    override = os.environ.get(CACHE_SETTING)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "compaction-inspector"


def _signature(grammar: Any) -> str:
    """A digest of what the tables are computed from: every production, in order, and the precedence."""
    productions = [str(p) for p in grammar.Productions]
    precedence = sorted((str(k), str(v)) for k, v in grammar.Precedence.items())
    text = json.dumps([productions, precedence, str(grammar.Start)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def installed_bashlex() -> str:
    """Which bashlex is installed, for the names of what is kept from it: a digest of its modules' names, sizes and
    modification times, the test Python itself makes to know a compiled module is stale. An upgrade or a reinstall
    changes it. Found without importing bashlex, or importlib.metadata for its version: that brings email, zipfile
    and csv with it, 18 ms of every guard run and `check` (measured), most of which never build a parser."""
    spec = importlib.util.find_spec("bashlex")
    folders = list(spec.submodule_search_locations or ()) if spec is not None else []
    if not folders:
        return "none"
    digest = hashlib.sha256()
    try:
        for entry in sorted(os.scandir(folders[0]), key=lambda e: e.name):
            if entry.name.endswith(".py"):
                stat = entry.stat()
                digest.update(f"{entry.name}:{stat.st_size}:{stat.st_mtime_ns};".encode())
    except OSError:
        return "unknown"
    return digest.hexdigest()[:12]


def _table_path(grammar: Any) -> Path:
    python = f"{sys.version_info.major}.{sys.version_info.minor}"
    return cache_folder() / f"bashlex-{installed_bashlex()}-py{python}-{_signature(grammar)}.json"


def _states(table: object) -> dict[int, dict[str, int]] | None:
    """A JSON object of states back to the parser's shape ({state: {symbol: action}}), or None if it is not one."""
    if not isinstance(table, dict):
        return None
    states: dict[int, dict[str, int]] = {}
    for state, row in table.items():
        if not (isinstance(state, str) and state.isdigit() and isinstance(row, dict)):
            return None
        if not all(isinstance(symbol, str) and type(act) is int for symbol, act in row.items()):
            return None
        states[int(state)] = row
    return states


def read_tables(path: Path) -> Tables | None:
    """The tables kept at `path`, or None when there are none fit to use."""
    try:
        if path.stat().st_size > _MAX_TABLE_BYTES:
            return None
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict):
        return None
    action, goto = _states(document.get("action")), _states(document.get("goto"))
    return (action, goto) if action and goto is not None else None


def write_tables(path: Path, tables: Tables) -> None:
    """Keep the tables for the next process: written whole or not at all (a reader never sees half a file)."""
    action, goto = tables
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=path.parent, prefix=".bashlex-", suffix=".tmp")
    except OSError:  # a read-only or full cache folder: the next process builds the tables again
        return
    temporary = Path(name)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump({"action": action, "goto": goto}, out, sort_keys=True)
        os.replace(temporary, path)
    except OSError:
        temporary.unlink(missing_ok=True)


def _ply_copy() -> ModuleType:
    """bashlex's PLY module, imported without the package: its `__init__` imports the parser, which builds the
    tables at once, so the package is stood in for by a bare one while its `yacc` module loads."""
    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError("bashlex is not installed")
    package = ModuleType("bashlex")
    package.__path__ = list(spec.submodule_search_locations)
    sys.modules["bashlex"] = package
    try:
        return importlib.import_module("bashlex.yacc")
    finally:
        del sys.modules["bashlex"]  # the real package loads next, and finds its `yacc` already imported


def bashlex() -> ModuleType:
    """The bashlex module, its parser built from the kept tables when they are there (else built and kept).

    Tables that load but do not parse (another grammar's, a damaged file that is still JSON) fail bashlex's
    own set-up at import or the probe line after it: they are then thrown away and the tables built again.
    """
    if "bashlex.parser" in sys.modules:
        return sys.modules["bashlex"]
    yacc = _ply_copy()
    build = yacc.LRTable.lr_parse_table
    used: list[Path] = []

    def tables_from_cache(table: Any) -> None:
        path = _table_path(table.grammar)
        kept = read_tables(path)
        if kept is not None:
            table.lr_action, table.lr_goto = kept
            used.append(path)
            return
        build(table)
        write_tables(path, (table.lr_action, table.lr_goto))

    yacc.LRTable.lr_parse_table = tables_from_cache
    try:
        module = importlib.import_module("bashlex")
        sound = _parses(module)
    except Exception:  # noqa: BLE001 - whatever bad tables make bashlex's set-up raise, they are thrown away
        sound = False
    finally:
        yacc.LRTable.lr_parse_table = build
    if sound or not used:  # tables built here are bashlex's own: whatever they parse, they are the parser
        return module
    for path in used:
        path.unlink(missing_ok=True)
    for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
        del sys.modules[name]
    return bashlex()


_PROBE = "a && b | c"
"""A line whose shape only a sound table gives: a list of a command and a two-stage pipeline."""


def _parses(module: ModuleType) -> bool:
    try:
        [node] = module.parse(_PROBE)
        kinds = [part.kind for part in node.parts]
        return kinds == ["command", "operator", "pipeline"] and len(node.parts[2].parts) == 3
    except Exception:  # noqa: BLE001 - a parser on bad tables may raise anything
        return False


__all__ = ["CACHE_SETTING", "bashlex", "cache_folder", "installed_bashlex", "read_tables", "write_tables"]
