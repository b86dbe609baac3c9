"""The core's structure as docs/architecture.md states it: layers, no import cycle, no Streamlit.

Every import counts, those inside functions and under `TYPE_CHECKING` included: a cycle hidden by a local
import is still a cycle a newcomer has to untangle. The layer table is read from the document itself, so
the document cannot drift from the code.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CORE = REPO / "inspector"


def module_names() -> dict[str, Path]:
    found = {}
    for path in sorted(CORE.rglob("*.py")):
        parts = path.relative_to(REPO).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """Inspector modules `name` imports anywhere in its file (a `from pkg import module` names the module)."""
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
            for alias in node.names:
                full = f"{base}.{alias.name}"
                found.add(full if full in known else base)
    return {m for m in found if m in known and m != name}


@cache
def import_graph() -> dict[str, set[str]]:
    known = module_names()
    # The top-level package re-exports the public API; nothing inside imports it.
    return {name: set() if name == "inspector" else imports_of(name, path, known) for name, path in known.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@cache
def layers() -> dict[str, int]:
    """Module (or package) → layer number, from the table in docs/architecture.md."""
    table: dict[str, int] = {}
    for line in (REPO / "docs" / "architecture.md").read_text().splitlines():
        row = re.match(r"\| (\d) [a-z ]+ \| ([^|]+) \|", line)
        if row:
            for module in row.group(2).split(","):
                table["inspector." + module.strip().strip("`")] = int(row.group(1))
    return table


def layer_of(module: str, table: dict[str, int]) -> int | None:
    while module:
        if module in table:
            return table[module]
        module = module.rpartition(".")[0]
    return None


def test_no_module_of_the_core_imports_another_that_imports_it_back() -> None:
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_module_has_a_layer_in_the_architecture_document() -> None:
    table = layers()
    assert len(table) > 20
    assert [m for m in import_graph() if m != "inspector" and layer_of(m, table) is None] == []


@pytest.mark.parametrize("module", sorted(import_graph()))
def test_a_module_imports_only_its_own_layer_and_those_below(module: str) -> None:
    table = layers()
    if module == "inspector":
        return
    mine = layer_of(module, table)
    above = {m: layer_of(m, table) for m in import_graph()[module] if (layer_of(m, table) or 0) > (mine or 0)}
    assert above == {}, f"{module} (layer {mine}) imports from layers above it"


def test_the_core_never_imports_streamlit() -> None:
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else (
                [node.module or ""] if isinstance(node, ast.ImportFrom) else [])  # fmt: skip
            assert not any(n == "streamlit" or n.startswith("streamlit.") for n in names), path


def declared(module: str) -> list[str] | None:
    """A module's `__all__`, read from its source (no import needed)."""
    for node in ast.parse(module_names()[module].read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) else [])  # fmt: skip
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            return [element.value for element in node.value.elts]  # type: ignore[attr-defined]
    return None


def test_every_module_declares_its_public_surface() -> None:
    exempt = ("inspector.__main__",)  # and Alembic's migration scripts, which Alembic loads by path
    assert [m for m in module_names() if declared(m) is None and ".migrations" not in m and m not in exempt] == []


def test_code_and_tests_import_only_what_a_module_declares_public() -> None:
    known = module_names()
    private: list[str] = []
    for path in [*CORE.rglob("*.py"), *(REPO / "tests").glob("*.py"), *(REPO / "pages").glob("*.py"), REPO / "app.py"]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in known and not node.level:
                surface = declared(node.module) or []
                private += [f"{path.relative_to(REPO)}: {node.module}.{alias.name}" for alias in node.names
                            if f"{node.module}.{alias.name}" not in known and alias.name not in surface]  # fmt: skip
    assert private == []
