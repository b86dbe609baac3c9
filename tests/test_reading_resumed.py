"""A Claude Code log read on from where an earlier reading stopped gives the trace a whole reading gives.

The guard reads a session's log at every compaction; from the second on, it takes up the state its last reading
of the log reached (`claude_code_resume`, kept by `kept_readings`) and parses only the lines appended since. These
tests cut real and built logs at many lines, read the first part, append the rest and read on, and compare with a
whole reading; and they show when a kept state is refused: another file, one cut short or rewritten near where the
state stopped, another version of the code, an unfinished last line, a compressed log, bytes that are no state.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import msgspec
import pytest
import zstandard

from inspector import kept_readings
from inspector.analysis import analyze
from inspector.readers import load_resuming, load_trace
from inspector.readers.claude_code_resume import FINGERPRINT_BYTES, ReadState
from inspector.report import to_json
from tests.helpers import FIXTURES, REAL_TRACES, needs_shared, shared_files
from tests.test_guard import hook_input, run
from tests.test_guard_authorship import call, line, result, user

BUILT = FIXTURES / "claude_code" / "three_compactions.jsonl"
REAL = shared_files(REAL_TRACES, "*/*.jsonl")


def checked(trace: object) -> str:
    """What `check --json` says of a trace: the whole of what a reading gives that anyone reads."""
    return json.dumps(to_json(analyze(trace)), sort_keys=True, default=str)  # type: ignore[arg-type]


def read_in_two(source: Path, cut_line: int, tmp_path: Path) -> tuple[str, str, bytes | None]:
    """(whole reading, reading of the first `cut_line` lines resumed over the rest, the state kept between)."""
    data = source.read_bytes()
    lines = data.splitlines(keepends=True)
    head = b"".join(lines[:cut_line])
    log = tmp_path / source.name
    log.write_bytes(data)
    whole = checked(load_trace(log))
    log.write_bytes(head)
    first, reached = load_resuming(log, None)
    checked(first)  # the guard encodes the state after its analysis: nothing the analysis does may change it
    state = reached()
    with log.open("ab") as out:
        out.write(data[len(head):])
    resumed, _ = load_resuming(log, state)
    return whole, checked(resumed), state


def test_a_built_log_cut_at_every_line_and_read_on_reads_as_a_whole_reading(tmp_path: Path) -> None:
    count = len(BUILT.read_bytes().splitlines())
    for cut in range(1, count):
        whole, resumed, state = read_in_two(BUILT, cut, tmp_path)
        assert state is not None, cut
        assert resumed == whole, f"cut after line {cut}"


@needs_shared(REAL_TRACES)
@pytest.mark.parametrize("log", REAL, ids=lambda p: p.stem)
def test_a_real_log_cut_and_read_on_reads_as_a_whole_reading(log: Path, tmp_path: Path) -> None:
    count = len(log.read_bytes().splitlines())
    for share in (0.1, 0.5, 0.9):
        whole, resumed, state = read_in_two(log, max(1, int(count * share)), tmp_path)
        assert state is not None and resumed == whole, share


def with_a_line_changed(log: Path, old: bytes, new: bytes) -> None:
    data = log.read_bytes()
    assert len(old) == len(new) and data.count(old) == 1
    log.write_bytes(data.replace(old, new))


def test_a_kept_state_is_read_on_from_and_the_lines_before_it_are_not_read_again(tmp_path: Path) -> None:
    """The proof that only the appended bytes are read: a line changed far before the point the state stopped (a
    log's writer never does that) is not seen by the reading resumed from it, and is by a whole reading."""
    log = tmp_path / "s.jsonl"
    log.write_bytes(BUILT.read_bytes())
    _, reached = load_resuming(log, None)
    state = reached()
    first = load_trace(log).sources[0].text
    assert state is not None and len(log.read_bytes()) > FINGERPRINT_BYTES + len(first.encode())
    with_a_line_changed(log, first.encode(), first.upper().encode())
    resumed, _ = load_resuming(log, state)
    assert resumed.sources[0].text == first
    assert load_trace(log).sources[0].text == first.upper()


def test_a_state_is_refused_for_a_log_rewritten_near_where_it_stopped(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_bytes(BUILT.read_bytes())
    _, reached = load_resuming(log, None)
    state = reached()
    said = b"Drafting the release notes for 4.2 now."  # the agent's last words, in the log's last 4 KB
    assert said in log.read_bytes()[-FINGERPRINT_BYTES:]
    with_a_line_changed(log, said, said.upper())
    resumed = load_resuming(log, state)[0]
    assert checked(resumed) == checked(load_trace(log))
    assert any(said.upper().decode() in source.text for source in resumed.sources)


def test_a_state_is_refused_for_a_log_cut_short_or_another_file(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_bytes(BUILT.read_bytes())
    _, reached = load_resuming(log, None)
    state = reached()
    shorter = b"".join(BUILT.read_bytes().splitlines(keepends=True)[:5])
    log.write_bytes(shorter)
    assert checked(load_resuming(log, state)[0]) == checked(load_trace(log))
    other = tmp_path / "other.jsonl"
    other.write_bytes(BUILT.read_bytes())
    assert checked(load_resuming(other, state)[0]) == checked(load_trace(other))


def test_a_state_from_other_code_or_no_state_at_all_is_refused(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    log.write_bytes(BUILT.read_bytes())
    _, reached = load_resuming(log, None)
    state = msgspec.msgpack.decode(reached(), type=ReadState)
    whole = checked(load_trace(log))
    foreign = msgspec.msgpack.encode(msgspec.structs.replace(state, code="0" * 32, fingerprint=state.fingerprint))
    for kept in (foreign, b"\x93garbage", b"", json.dumps({"offset": 1}).encode()):
        assert checked(load_resuming(log, kept)[0]) == whole


def test_a_record_written_again_without_its_timestamp_is_read_and_kept_as_a_whole_reading_reads_it(tmp_path):
    """Two records of one uuid and type, one with no timestamp, are two nodes: what tells them apart holds a None
    beside a string, which the state must hold as it is (ordering them raised, and the log was unreadable)."""
    log = tmp_path / "s.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in [
        user("u1", None, "Set up the project."), {**user("u1", "u1", "Set it up again."), "timestamp": None}]))
    trace, reached = load_resuming(log, None)
    assert checked(trace) == checked(load_trace(log)) and reached() is not None


def test_no_state_is_taken_of_an_unfinished_last_line_or_a_compressed_log(tmp_path: Path) -> None:
    data = BUILT.read_bytes()
    log = tmp_path / "s.jsonl"
    log.write_bytes(data + data.splitlines(keepends=True)[-1][:30])  # a record still being written
    assert load_resuming(log, None)[1]() is None
    packed = tmp_path / "s.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(data))
    trace, reached = load_resuming(packed, None)
    assert reached() is None and checked(trace) == checked(load_trace(packed))


def grown(folder: Path, records: list[dict], megabytes: int) -> Path:
    """A Claude Code log of `records`, padded past `megabytes` MB by shell runs before the last two (the
    compaction): a session long enough for the guard to keep where its reading stopped."""
    path = folder / "big.jsonl"
    body = "x" * 90_000
    padding: list[dict] = []
    parent = records[-3]["uuid"]
    for n in range(megabytes * 1024 * 1024 // len(body) + 1):
        padding += [call(f"p{n}", parent, "Bash", {"command": f"cat part{n}.txt"}),
                    result(f"q{n}", f"p{n}", body, {"stdout": body, "stderr": "", "interrupted": False})]  # fmt: skip
        parent = f"q{n}"
    closing = dict(records[-3], parentUuid=parent)
    lines = [*records[:-3], *padding, closing, *records[-2:]]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


def test_the_guard_keeps_where_its_reading_of_a_large_log_stopped_and_few_states(tmp_path: Path) -> None:
    records = [user("u1", None, "Set up the project."),
               line("a1", "u1", "assistant", message={"id": "m1", "role": "assistant", "content": "Done."}),
               line("b1", None, "system", subtype="compact_boundary", logicalParentUuid="a1"),
               user("s1", "b1", "Summary: set up.", isCompactSummary=True)]  # fmt: skip
    small = tmp_path / "small.jsonl"
    small.write_text("".join(json.dumps(r) + "\n" for r in records))
    where = tmp_path / "readings"
    _, reached = kept_readings.load(small, None, where)
    kept_readings.keep(small, reached, where)
    assert reached is None and not where.exists()  # a small log is read whole: keeping it would cost more
    big = grown(tmp_path, records, kept_readings.KEPT_FROM_BYTES // (1024 * 1024))
    trace, reached = kept_readings.load(big, None, where)
    kept_readings.keep(big, reached, where)
    assert kept_readings.kept(big, where) is not None
    again, _ = kept_readings.load(big, None, where)
    assert checked(again) == checked(trace)
    for n in range(kept_readings.MAX_KEPT + 2):
        copy = tmp_path / f"copy{n}.jsonl"
        copy.write_bytes(big.read_bytes())
        kept_readings.keep(copy, kept_readings.load(copy, None, where)[1], where)
    assert len(list(where.glob("*.msgpack"))) == kept_readings.MAX_KEPT


TYPED = "Never push to the main branch without a review."
CHANGED = "Never push to the prod branch without a review."
"""The user's words as a rewrite of the log's old lines would leave them: what only a reading of those lines sees."""


def compaction(n: int, parent: str) -> list[dict]:
    """A compaction whose summary keeps nothing the user said."""
    return [line(f"a{n}", parent, "assistant", message={"id": f"m{n}", "role": "assistant", "content": "Done."}),
            line(f"b{n}", None, "system", subtype="compact_boundary", logicalParentUuid=f"a{n}",
                 compactMetadata={"trigger": "auto", "preTokens": 160000}),
            user(f"s{n}", f"b{n}", "Summary: the project is set up and the tests pass.", isCompactSummary=True)]


def written(readings: Path, seconds: float = 60.0) -> bool:
    """Whether a kept state appears in the folder within `seconds` (the copy writing it may still be at work)."""
    deadline = time.monotonic() + seconds
    while not list(readings.glob("*.msgpack")):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_the_guard_at_a_later_compaction_reads_only_what_the_log_gained_since_the_last(tmp_path, monkeypatch):
    """Issue 32's test: the guard at the second compaction of a large session gives back the user's constraint
    the summary dropped, as it read it at the first; a line changed in between, far before where that reading
    stopped, is not read again (a whole reading, in another cache folder, gives back the changed words)."""
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "cache"))
    first = [user("u1", None, TYPED, origin={"kind": "human"}, promptSource="typed"), *compaction(1, "u1")]
    log = grown(tmp_path, first, kept_readings.KEPT_FROM_BYTES // (1024 * 1024))
    _, context, guard_log = run(hook_input(log), tmp_path)
    assert TYPED in context and guard_log == [], guard_log
    assert written(tmp_path / "cache" / "readings")  # by a copy of the check the hook does not wait for
    with_a_line_changed(log, TYPED.encode(), CHANGED.encode())
    with log.open("a") as out:
        out.write("".join(json.dumps(r) + "\n" for r in [user("u2", "s1", "Carry on.", origin={"kind": "human"}),
                                                          *compaction(2, "u2")]))  # fmt: skip
    _, resumed, _ = run(hook_input(log), tmp_path)
    assert TYPED in resumed and CHANGED not in resumed
    monkeypatch.setenv("INSPECTOR_CACHE_DIR", str(tmp_path / "another cache"))
    _, whole, _ = run(hook_input(log), tmp_path)
    assert CHANGED in whole and TYPED not in whole


def test_a_state_that_cannot_be_put_in_place_leaves_no_half_written_file(tmp_path: Path) -> None:
    records = [user("u1", None, "Set up the project."), *compaction(1, "u1")]
    big = grown(tmp_path, records, kept_readings.KEPT_FROM_BYTES // (1024 * 1024))
    where = tmp_path / "readings"
    _, reached = kept_readings.load(big, None, where)
    blocked = where / kept_readings.state_name(big)
    blocked.mkdir(parents=True)  # where the state would go is taken by a folder: the rename fails
    kept_readings.keep(big, reached, where)
    assert sorted(p.name for p in where.iterdir()) == [blocked.name]
