"""Small builders so each detector test states its chain in a few lines."""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from inspector.analysis import Analysis, analyze
from inspector.config import Config
from inspector.model import Generation, Invariant, SourceRecord, Trace

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_traces"
SHARED = REPO.parent / "shared"
"""Real sessions, gold labels and the scorer: beside the clone in CI, absent from a fresh clone."""
REAL_TRACES = SHARED / "real_traces"
LABELLED = REAL_TRACES / "labelled"
FIXTURES = REPO / "tests" / "fixtures"
ONE_OF_EACH = {
    "native": SAMPLES / "staging_db_constraint.json",
    "claude-code": FIXTURES / "claude_code" / "three_compactions.jsonl",
    "codex": FIXTURES / "codex" / "three_compactions.jsonl",
    "gemini-cli": FIXTURES / "gemini_cli" / "session-2026-12-01T01-55-e4477968.jsonl",
    "opencode": FIXTURES / "opencode" / "opencode.db",
    "openhands": FIXTURES / "openhands" / "conversation",
    "inspect-ai": FIXTURES / "inspect_ai" / "two-samples.eval",
    "langchain": FIXTURES / "langchain" / "stream-values.jsonl",
    "anthropic-api": FIXTURES / "anthropic_api" / "messages.jsonl",
    "openai-responses": FIXTURES / "openai_responses" / "responses.jsonl",
    "otel-genai": FIXTURES / "otel_genai" / "traces.jsonl",
}
"""One session of each registered format, as its agent writes it (a file, an SQLite database, a zip, a folder)."""


def require_shared(*paths: Path) -> None:
    """Skip, naming ../shared, when data a test reads from it is absent (a fresh clone has none); in CI,
    where `.ci/run` has ../shared beside the clone, fail instead, so a missing folder never passes as skips."""
    missing = [p for p in paths if not p.exists()]
    if not missing:
        return
    where = ", ".join(f"../{p.relative_to(SHARED.parent)}" for p in missing)
    if os.environ.get("CI"):
        pytest.fail(f"{where} is missing: CI runs with ../shared beside the clone")
    # Reported at the test, as a skipif mark's skip is, not at this line: the summary then names each test.
    raise pytest.skip.Exception(f"needs ../shared beside the repository ({where} is absent: a fresh clone has none)",
                                _use_item_location=True)  # fmt: skip


def needs_shared(*paths: Path) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`require_shared(*paths)` before the test runs (its fixtures and parameters pass through)."""

    def decorate(test: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(test)
        def run(*args: Any, **kwargs: Any) -> Any:
            require_shared(*paths)
            return test(*args, **kwargs)

        return run

    return decorate


def shared_files(folder: Path, pattern: str) -> list[Path]:
    """The files a test is parametrised over, or the folder itself when it is absent, so that the one test
    left says why (`needs_shared`) rather than pytest's wordless "empty parameter set"."""
    return sorted(folder.glob(pattern)) or [folder / pattern]


def record(key: str, text: str, **fields: object) -> SourceRecord:
    return SourceRecord(key=key, text=text, **fields)  # type: ignore[arg-type]


def chain(
    sources: list[SourceRecord],
    *summaries: str | None,
    raw: str | None = None,
    invariants: list[Invariant] | None = None,
    refreshed: set[int] = frozenset(),  # type: ignore[assignment]
) -> Trace:
    """S₀ (raw) covering every source, then one summary per text, each the child of the previous."""
    keys = tuple(s.key for s in sources)
    generations = [Generation(0, "raw", raw if raw is not None else "\n".join(s.text for s in sources), covers=keys)]
    for index, text in enumerate(summaries, start=1):
        generations.append(
            Generation(index, "summary", text, parent=index - 1, covers=keys, refreshed=index in refreshed)
        )
    return Trace(
        id="test",
        format="native",
        sources=tuple(sources),
        generations=tuple(generations),
        invariants=tuple(invariants) if invariants is not None else None,
    )


def session_log(records: list[SourceRecord], *summaries: tuple[int, str]) -> Trace:
    """A session log whose k-th summary (cut, text) covers the first `cut` records, each the child of the last."""
    keys = tuple(r.key for r in records)
    generations = [Generation(0, "raw", "\n".join(r.text for r in records), covers=keys)]
    for index, (cut, text) in enumerate(summaries, start=1):
        generations.append(Generation(index, "summary", text, parent=index - 1, covers=keys[:cut]))
    return Trace("fixture", "claude-code", tuple(records), tuple(generations), extra={"meta": {"session_log": True}})


def findings(trace: Trace, rule: str, config: Config | None = None) -> list[tuple[int | None, str]]:
    """(generation, message) of every finding of one rule."""
    result: Analysis = analyze(trace, config)
    return [(f.generation, f.message) for f in result.findings if f.rule == rule]


def generations_of(trace: Trace, rule: str, config: Config | None = None) -> list[int | None]:
    return [g for g, _ in findings(trace, rule, config)]


class MarkupCollector(HTMLParser):
    """Every element, attribute, URL and text run a browser would build from an HTML string."""

    def __init__(self, markup: str) -> None:
        super().__init__()
        self.tags: set[str] = set()
        self.attributes: set[str] = set()
        self.urls: list[str] = []
        self.text: list[str] = []
        self.feed(markup)

    def handle_starttag(self, tag, attrs):  # type: ignore[no-untyped-def]
        self.tags.add(tag)
        for name, value in attrs:
            self.attributes.add(name)
            if name in ("href", "src", "srcdoc", "action", "formaction"):
                self.urls.append(value or "")

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def read_raises_only_its_error(read, records: list, tail: bytes, name: str) -> None:  # type: ignore[no-untyped-def]
    """Call a reader directly (not load_trace, whose safety net would hide a reader bug) on JSON lines. What it
    reads, it accounts for: every record it met has a fate (no record dropped, whatever the lines hold)."""
    import json
    from tempfile import TemporaryDirectory

    from inspector.errors import TraceReadError
    from inspector.readers.conservation import RECORDS, UNACCOUNTED

    with TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes("\n".join(json.dumps(r) for r in records).encode() + tail)
        try:
            trace = read(path)
        except TraceReadError:
            return
        counts = trace.extra.get(RECORDS)
        if isinstance(counts, dict):  # a reader that counts its records (Claude Code's still keeps a number there)
            assert UNACCOUNTED.name not in counts["set_aside"], counts
            if path.suffix == ".jsonl" and counts["unit"] == "lines":
                assert counts["total"] == sum(1 for line in path.read_bytes().splitlines() if line.strip()), counts
