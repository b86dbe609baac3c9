"""Small builders so each detector test states its chain in a few lines."""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

from inspector.analysis import Analysis, analyze
from inspector.facts import Config
from inspector.model import Generation, Invariant, SourceRecord, Trace

REPO = Path(__file__).resolve().parents[1]
SAMPLES = REPO / "sample_traces"
REAL_TRACES = REPO.parent / "shared" / "real_traces"


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
    """Call a reader directly (not load_trace, whose safety net would hide a reader bug) on JSON lines."""
    import json
    from tempfile import TemporaryDirectory

    from inspector.errors import TraceReadError

    with TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes("\n".join(json.dumps(r) for r in records).encode() + tail)
        try:
            read(path)
        except TraceReadError:
            pass
