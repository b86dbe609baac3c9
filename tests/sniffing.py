"""Sniffing is exclusive: a format's fixtures are recognised by its reader only, and its reader
recognises no other format's fixtures or real sessions."""

from __future__ import annotations

from pathlib import Path

from inspector.bounded_io import read_head
from inspector.readers import detect_format, readers

FIXTURES = Path(__file__).parent / "fixtures"
REAL_TRACES = Path(__file__).resolve().parents[2] / "shared" / "real_traces"


def trace_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix not in (".md", ".py", ".sh"))


def assert_exclusive(name: str, own: list[Path]) -> None:
    """`own` files are detected as `name` and no other reader accepts them; `name` accepts no other file."""
    mine = next(reader for reader in readers() if reader.name == name)
    for path in own:
        assert detect_format(path) == name, path
        head = read_head(path)
        for other in readers():
            if other.name != name:
                assert not other.sniff(head), (other.name, path)
                assert other.claims is None or not other.claims(path), (other.name, path)
    others = [p for p in trace_files(FIXTURES) + trace_files(REAL_TRACES) if p not in own]
    assert others
    for path in others:
        assert not (mine.claims is not None and mine.claims(path)), path
        assert not mine.sniff(read_head(path)), path
