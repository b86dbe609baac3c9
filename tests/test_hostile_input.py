"""Hostile logs are refused with one line and flat memory: zstd bombs, endless lines, FIFOs, links out.

Every fixture is made here, in the test's temporary folder: the bombs are a few hundred kilobytes
on disk and gigabytes once decompressed.
"""

from __future__ import annotations

import gc
import json
import os
import struct
import subprocess
import sys
import threading
import weakref
import zlib
from pathlib import Path

import orjson
import pytest
import zstandard

from inspector.errors import TraceReadError
from inspector.fleet import scan
from inspector.fleet.files import LINK_OUT, NOT_REGULAR
from inspector.library import TraceRef, TraceRefError, trace_file
from inspector.readers import load_trace
from inspector.sized_cache import SizedCache, default_budget
from tests.helpers import REPO, SAMPLES

FIRST_RECORD = orjson.dumps({
    "parentUuid": None, "isSidechain": False, "type": "user", "sessionId": "s", "uuid": "u1", "cwd": "/x",
    "timestamp": "2025-01-01T00:00:00Z", "version": "2.0.1", "message": {"role": "user", "content": "hello"},
}) + b"\n"  # fmt: skip
"""A valid Claude Code record, so the file is recognised and the reader reaches the bomb behind it."""


def zstd_bomb(path: Path, gigabytes: int) -> Path:
    """One valid record, then a line of `gigabytes` GB of 'a' (repeated 128 MB frames: 32 KB per GB)."""
    compressor = zstandard.ZstdCompressor(level=19)
    frame = compressor.compress(b"a" * (128 << 20))
    path.write_bytes(compressor.compress(FIRST_RECORD) + frame * (8 * gigabytes))
    return path


def eval_bomb(path: Path, gigabytes: int, member: str = "samples/bomb_epoch_1.json") -> Path:
    """An Inspect AI `.eval` (a zip) whose one sample member is zstd (ZIP method 93) and holds `gigabytes` GB of
    zeros: 34 KB per GB. Its headers declare the member as small as its compressed bytes, as a hostile file may, so
    only decompressing finds its size. Written by hand: zipfile writes no method 93 before Python 3.14."""
    frame = zstandard.ZstdCompressor(level=19).compress(bytes(128 << 20))
    data, name = frame * (8 * gigabytes), member.encode()
    crc, size = zlib.crc32(data), len(data)
    local = struct.pack("<4s5H3I2H", b"PK\x03\x04", 20, 0, 93, 0, 0, crc, size, size, len(name), 0) + name
    central = struct.pack("<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, 93, 0, 0, crc, size, size, len(name), 0, 0, 0,
                          0, 0, 0) + name  # fmt: skip
    end = struct.pack("<4s4H2IH", b"PK\x05\x06", 0, 0, 1, 1, len(central), len(local) + size, 0)
    path.write_bytes(local + data + central + end)
    return path


_MEASURED = """
import resource, sys
from inspector.cli import main
start = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
code = main(sys.argv[1:])
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start
print(f"{code} {grown * 1024}", file=sys.__stdout__)
"""


def measured_check(*args: str, env: dict[str, str] | None = None) -> tuple[int, int, str]:
    """Run `check` in a fresh process: (exit code, bytes its peak memory grew by after imports, stderr)."""
    result = subprocess.run([sys.executable, "-c", _MEASURED, "check", *args], capture_output=True, text=True,
                            cwd=REPO, timeout=120, env={**os.environ, **(env or {})})  # fmt: skip
    code, grown = result.stdout.splitlines()[-1].split()
    return int(code), int(grown), result.stderr


@pytest.mark.parametrize(("gigabytes", "compressed_kb"), [(1, 34), (8, 270)])
def test_a_zstd_bomb_is_refused_with_one_line_and_flat_memory(tmp_path, gigabytes, compressed_kb):
    bomb = zstd_bomb(tmp_path / "bomb.jsonl.zst", gigabytes)
    assert bomb.stat().st_size <= compressed_kb * 1024
    code, grown, stderr = measured_check(str(bomb))
    assert code == 2
    assert stderr.splitlines() == [f"{bomb}:2: line longer than 64 MB, the per-line limit "
                                   "(raise it with --max-line-mb or INSPECTOR_MAX_LINE_MB)"]  # fmt: skip
    assert grown < 200 * 1024 * 1024, f"peak memory grew by {grown / 2**20:.0f} MB"


@pytest.mark.parametrize("kind", ["eval member", "zst document"])
def test_a_document_past_the_file_bound_is_found_by_counting_not_by_holding_it(tmp_path, kind):
    """A JSON document is parsed whole, so it is read whole; whether it fits is learnt by decompressing it once
    without keeping it, so a bound of 1 GB costs a bomb's reader time, not a gigabyte."""
    if kind == "eval member":
        bomb = eval_bomb(tmp_path / "bomb.eval", gigabytes=4)
        says = "samples/bomb_epoch_1.json decompresses to more than 1024 MB"
    else:
        bomb, compressor = tmp_path / "bomb.json.zst", zstandard.ZstdCompressor(level=19)
        opening = b'{\n"format": "compaction-trace/1",\n"pad": "'  # a native trace's head, on several lines
        padding = compressor.compress((b"a" * 127 + b"\n") * (1 << 20))  # short lines: no line bound is reached
        bomb.write_bytes(compressor.compress(opening) + padding * 32)
        says = "decompresses to more than 1024 MB"
    unlimited_ratio = {"INSPECTOR_MAX_EXPANSION": "1000000"}  # so the per-file bound is the one reached
    code, grown, stderr = measured_check(str(bomb), "--max-file-mb", "1024", env=unlimited_ratio)
    assert grown < 200 * 1024 * 1024, f"peak memory grew by {grown / 2**20:.0f} MB"
    assert (code, stderr.strip()) == (2, f"{bomb}: {says}, the per-file limit "
                                         "(raise it with --max-file-mb or INSPECTOR_MAX_FILE_MB)")  # fmt: skip


@pytest.mark.parametrize("kind", ["eval member", "zst document"])
def test_a_compression_bomb_is_refused_within_the_trusted_bounds_too(tmp_path, kind):
    """The command line's 4 GB per file is a trusted user's bound, yet a 135 KB archive must not become 3.9 GB in
    memory under it: a document read whole may expand only so many times its compressed size."""
    if kind == "eval member":
        bomb = eval_bomb(tmp_path / "bomb.eval", gigabytes=3)
        compressed = bomb.stat().st_size - 2 * len(b"samples/bomb_epoch_1.json") - 30 - 46 - 22
        says = f"samples/bomb_epoch_1.json decompresses to more than 1000 times its {round(compressed / 2**20, 3):g} MB"
    else:
        bomb, compressor = tmp_path / "bomb.json.zst", zstandard.ZstdCompressor(level=19)
        bomb.write_bytes(compressor.compress(b'{"format": "compaction-trace/1", "pad": "') +
                         compressor.compress((b"a" * 127 + b"\n") * (1 << 20)) * 24)  # fmt: skip
        says = f"decompresses to more than 1000 times its {round(bomb.stat().st_size / 2**20, 3):g} MB"
    code, grown, stderr = measured_check(str(bomb))
    assert (code, stderr.strip()) == (2, f"{bomb}: {says} (a compression bomb; raise the ratio with "
                                         "INSPECTOR_MAX_EXPANSION)")  # fmt: skip
    assert grown < 300 * 1024 * 1024, f"peak memory grew by {grown / 2**20:.0f} MB"


def test_the_expansion_ratio_is_a_setting(tmp_path):
    bomb = tmp_path / "small.json.zst"
    bomb.write_bytes(zstandard.ZstdCompressor(level=19).compress(b'{"x": "' + b"a" * (80 << 20) + b'"}'))
    code, _, stderr = measured_check(str(bomb), env={"INSPECTOR_MAX_EXPANSION": "x"})
    assert (code, stderr.strip()) == (2, "INSPECTOR_MAX_EXPANSION: 'x' is not a whole number of times (1 or more)")
    code, _, stderr = measured_check(str(bomb), env={"INSPECTOR_MAX_EXPANSION": "100000"})
    assert "compression bomb" not in stderr


@pytest.mark.parametrize("value", ["inf", "nan", "0", "-3"])
def test_a_size_setting_that_is_no_finite_positive_number_is_one_line_naming_it(tmp_path, value):
    """'inf' and 'nan' are numbers to float(): a bound of either was a traceback, not a refusal."""
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(FIRST_RECORD)
    code, _, stderr = measured_check(str(trace), env={"INSPECTOR_MAX_LINE_MB": value})
    assert (code, stderr.strip()) == (2, f"INSPECTOR_MAX_LINE_MB: {value!r} must be more than 0 megabytes and finite")


def test_the_per_file_bound_counts_decompressed_bytes(tmp_path):
    compressor = zstandard.ZstdCompressor()
    lines = FIRST_RECORD * 40_000  # about 9 MB of valid records, 20 KB compressed
    packed = tmp_path / "many.jsonl.zst"
    packed.write_bytes(compressor.compress(lines))
    assert packed.stat().st_size < 1 << 20
    code, _, stderr = measured_check(str(packed), "--max-file-mb", "2")
    assert code == 2
    where, _, message = stderr.strip().partition(": ")
    assert where.startswith(f"{packed}:") and int(where.rsplit(":", 1)[1]) > 9_000  # the line it reached
    assert message == ("decompresses to more than 2 MB, the per-file limit "
                       "(raise it with --max-file-mb or INSPECTOR_MAX_FILE_MB)")
    plain = tmp_path / "many.jsonl"
    plain.write_bytes(lines)
    code, _, stderr = measured_check(str(plain), env={"INSPECTOR_MAX_FILE_MB": "2"})
    assert (code, stderr.strip()) == (2, f"{plain}: is larger than 2 MB, the per-file limit "
                                         "(raise it with --max-file-mb or INSPECTOR_MAX_FILE_MB)")  # fmt: skip
    code, _, stderr = measured_check(str(packed), "--max-file-mb", "20")  # raised: read in full
    assert code == 0, stderr


def test_a_line_is_refused_past_the_bound_and_read_whole_below_it(tmp_path, monkeypatch):
    long_text = "word " * 300_000  # 1.5 MB: read in more than one piece
    path = tmp_path / "long.jsonl"
    record = json.loads(FIRST_RECORD)
    record["message"]["content"] = long_text
    path.write_bytes(FIRST_RECORD.replace(b'"u1"', b'"u0"') + orjson.dumps(record) + b"\n")
    trace = load_trace(path)
    assert any(record.text == long_text for record in trace.sources)  # the record holds it whole
    assert trace.generations[0].text.endswith("… [1,400,000 more characters not shown]")  # S0 shows its head
    monkeypatch.setenv("INSPECTOR_MAX_LINE_MB", "1")
    with pytest.raises(TraceReadError) as refused:
        load_trace(path)
    assert (refused.value.line, "per-line limit" in refused.value.message) == (2, True)


FIXTURES = REPO / "tests" / "fixtures"
DEEP = b"[" * 5000 + b"]" * 5000


@pytest.mark.parametrize(("fixture", "line"), [
    (FIXTURES / "claude_code/three_compactions.jsonl",
     b'{"type": "user", "uuid": "deep", "message": {"role": "user", "content": ' + DEEP + b"}}"),
    (FIXTURES / "gemini_cli/session-2026-12-01T01-55-e4477968.jsonl",
     b'{"id": "deep", "type": "user", "content": ' + DEEP + b"}"),
    (FIXTURES / "anthropic_api/messages.jsonl", b'{"request": {"messages": ' + DEEP + b"}}"),
    (FIXTURES / "openai_responses/responses.jsonl", b'{"request": {"input": ' + DEEP + b"}}"),
    (FIXTURES / "codex/three_compactions.jsonl",
     b'{"timestamp": "2026-01-01T00:00:00Z", "type": "response_item", "payload": {"type": "message", '
     b'"role": "user", "content": ' + DEEP + b"}}"),
], ids=["claude-code", "gemini-cli", "anthropic-api", "openai-responses", "codex"])  # fmt: skip
def test_a_line_nested_past_the_decoders_limit_is_one_malformed_line(tmp_path, fixture, line):
    """The typed decoders give up on such a line (a RecursionError, not a decode error); the dict path then
    reports it like any line that is not JSON, and the rest of the log loads."""
    path = tmp_path / fixture.name
    path.write_bytes(fixture.read_bytes() + line + b"\n")
    lines = fixture.read_bytes().count(b"\n") + 1
    assert [n.message for n in load_trace(path).notices if n.rule == "malformed-line"] == [
        f"{path}:{lines}: invalid JSON (depth limit exceeded); line skipped"]  # fmt: skip


def test_every_frame_of_a_zstd_file_is_read(tmp_path):
    """`cat a.zst b.zst > c.zst` is a valid zstd file; a reader stopping at the first frame loses the rest."""
    text = (SAMPLES / "staging_db_constraint.json").read_bytes()
    half = len(text) // 2
    compressor = zstandard.ZstdCompressor()
    path = tmp_path / "two-frames.json.zst"
    path.write_bytes(compressor.compress(text[:half]) + compressor.compress(text[half:]))
    assert len(load_trace(path).generations) == 4


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _with_timeout(action, seconds: float = 30):
    """Run `action` in a thread; a hang fails the test instead of hanging the suite."""
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(_capture(action)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert outcome, f"still running after {seconds} s: it blocked"
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


def _capture(action):
    try:
        return action()
    except BaseException as error:  # handed back to the test thread
        return error


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path):
    fifo = _fifo(tmp_path / "session.jsonl")
    with pytest.raises(TraceReadError, match="is a FIFO, not a regular trace file"):
        _with_timeout(lambda: load_trace(fifo))


def test_a_scan_skips_and_counts_fifos_and_links_leaving_the_folder(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_bytes((SAMPLES / "healthy_chain.json").read_bytes())
    folder = tmp_path / "sessions"
    folder.mkdir()
    (folder / "mine.json").write_bytes((SAMPLES / "anchor_decay.json").read_bytes())
    (folder / "inside-link.json").symlink_to(folder / "mine.json")  # stays inside: the same file, once
    (folder / "leak.json").symlink_to(outside / "secret.json")
    (folder / "leaked-folder").symlink_to(outside, target_is_directory=True)
    _fifo(folder / "hang.jsonl")
    result = _with_timeout(lambda: scan([folder]))
    assert [Path(row["path"]).name for row in result.rows] == ["mine.json"]
    assert result.refused == {LINK_OUT: 2, NOT_REGULAR: 1}
    printed = subprocess.run([sys.executable, "-m", "inspector", "scan", str(folder)], capture_output=True,
                             text=True, cwd=REPO, timeout=120)  # fmt: skip
    assert "3 never opened: 1 FIFO, device or socket; 2 links leaving the folder" in (
        printed.stdout.splitlines()[-1]
    )


@pytest.mark.parametrize(
    ("name", "says"),
    [
        (".", "path:.: is a folder, not a trace file"),
        ("a\x00b.jsonl", "a\\x00b.jsonl: not a usable path (embedded null byte)"),
        ("x" * 5000, "cannot open (File name too long)"),
        ("hang.jsonl", "path:hang.jsonl: not a regular file (a FIFO, device or socket)"),
        ("../outside.json", "../outside.json: refused, it leads outside the traces folder"),
        ("/etc/passwd", "/etc/passwd: absolute paths are refused; give a path inside the traces folder"),
        ("loop/x.json", "loop/x.json: not a usable path ("),
    ],
)
def test_a_bad_traces_folder_path_is_one_line(tmp_path, monkeypatch, name, says):
    monkeypatch.setenv("INSPECTOR_TRACES_DIR", str(tmp_path))
    _fifo(tmp_path / "hang.jsonl")
    (tmp_path / "loop").symlink_to("loop")  # resolving it fails, naming where it is
    with pytest.raises(TraceRefError) as refused:
        _with_timeout(lambda: trace_file(TraceRef("path", name), SAMPLES))
    message = str(refused.value)
    assert says in message
    assert "\n" not in message and "\x00" not in message and len(message) < 300
    assert str(tmp_path) not in message  # the path as given; the server's folder is nobody's business


def test_the_analysis_cache_is_bounded_by_weight_and_keeps_the_newest():
    cache: SizedCache[str] = SizedCache(budget=100)
    made: list[str] = []

    def make(value: str):
        return lambda: made.append(value) or value

    cache.get_or_make("a", make("A"), lambda _: 40)
    cache.get_or_make("b", make("B"), lambda _: 40)
    assert cache.get("a") == "A"  # now the most recently used
    cache.get_or_make("c", make("C"), lambda _: 40)  # 120 > 100: the least recently used (b) goes
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert cache.weight == 80
    cache.get_or_make("huge", make("H"), lambda _: 500)  # over budget alone: kept, every other one dropped
    assert (len(cache), cache.get("huge")) == (1, "H")
    cache.get_or_make("huge", make("again"), lambda _: 500)
    assert made == ["A", "B", "C", "H"]


def test_concurrent_requests_for_one_key_make_it_once():
    cache: SizedCache[int] = SizedCache(budget=1 << 30)
    calls: list[int] = []
    gate = threading.Event()

    def slow() -> int:
        calls.append(1)
        gate.wait(5)
        return 7

    threads = [threading.Thread(target=lambda: cache.get_or_make("k", slow, lambda _: 1)) for _ in range(4)]
    for thread in threads:
        thread.start()
    gate.set()
    for thread in threads:
        thread.join(10)
    assert (calls, cache.get("k")) == ([1], 7)


def test_a_make_that_fails_is_not_kept_and_the_next_caller_makes_it_again():
    """A trace that failed to load once (a file being written) must load when opened again, not stay broken."""
    cache: SizedCache[int] = SizedCache(budget=100)

    def broken() -> int:
        raise TraceReadError("t.jsonl", "torn")

    with pytest.raises(TraceReadError):
        cache.get_or_make("k", broken, lambda _: 1)
    assert ("k" not in cache, cache.get_or_make("k", lambda: 7, lambda _: 1)) == (True, 7)


class _Analysis:
    """Stands for an analysis: its parts point back at it (a cycle), so only a collection frees it."""

    def __init__(self) -> None:
        self.parts = [self]


def test_an_evicted_value_is_collected_at_once_even_in_a_cycle():
    """The memory of a dropped analysis goes back at eviction, not whenever the collector next runs."""
    cache: SizedCache[_Analysis] = SizedCache(budget=100)
    old = weakref.ref(cache.get_or_make("old", _Analysis, lambda _: 60))
    gc.disable()
    try:
        cache.get_or_make("new", _Analysis, lambda _: 60)  # 120 > 100: the old one goes
        assert ("old" in cache, old()) == (False, None)
    finally:
        gc.enable()


@pytest.mark.parametrize(("setting", "budget"), [("1.5", 3 << 19), ("0", 1), ("", None), ("lots", None)],
                         ids=["megabytes", "at-least-a-byte", "unset", "typo"])  # fmt: skip
def test_the_cache_budget_is_the_setting_in_megabytes_else_a_quarter_of_memory(monkeypatch, setting, budget):
    monkeypatch.setenv("INSPECTOR_CACHE_MB", setting)
    quarter = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    assert default_budget() == (quarter if budget is None else budget)
