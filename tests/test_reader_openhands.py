"""OpenHands reader: a conversation folder written by openhands-sdk 1.58.2 with two Condensation events."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from tempfile import TemporaryDirectory

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.analysis import analyze
from inspector.errors import TraceReadError
from inspector.readers import detect_format, load_trace, openhands, readers

FIXTURES = Path(__file__).parent / "fixtures"
CONVERSATION = FIXTURES / "openhands" / "conversation"


def test_conversation_loads_into_three_generations_with_exact_forgotten_events() -> None:
    assert detect_format(CONVERSATION) == "openhands"
    assert detect_format(CONVERSATION / "events") == "openhands"
    trace = load_trace(CONVERSATION)
    assert trace.format == "openhands" and trace.id == "91d64d3e-84c6-443e-a80f-6961fa49a39b"
    s0, s1, s2 = trace.generations
    assert s1.text is not None and s1.text.startswith("SUMMARY #1:")
    assert s2.text is not None and s2.text.startswith("SUMMARY #3:")
    assert [g.extra["line"] for g in (s1, s2)] == [10, 17]
    assert [g.extra["forgotten_events"] for g in (s1, s2)] == [7, 7]
    assert s2.extra["replaces_summary_of"] == ["344cfed2-84b3-47ac-b193-6463c515f071"]
    # keep_first=2 keeps the first user message in the view; the newest user message is kept too.
    assert s1.extra["kept_keys"] == ["c4e57049-434c-448a-8098-a65b27da3b6e", "337558a6-096c-43c1-95d5-6f9acd9597ca"]
    assert not trace.notices
    users = [s.text for s in trace.sources if s.kind == "user" and s.authority == "user"]
    assert users[0] == "First: list the build steps. Remember my constraint: never delete files." and len(users) == 6
    assert any(s.namespace == "command" and s.key == "echo step-1-output" for s in trace.sources)


def test_the_lost_statement_and_the_kept_one() -> None:
    findings = [f for f in analyze(load_trace(CONVERSATION)).findings if f.rule == "user-statement-lost"]
    assert [f.generation for f in findings] == [1, 2]
    assert all("zeta-cli" in f.message for f in findings)  # forgotten at S1, not in the summary
    assert not any("never delete files" in f.message for f in analyze(load_trace(CONVERSATION)).findings)


def test_check_exits_zero_or_one() -> None:
    done = subprocess.run([sys.executable, "-m", "inspector", "check", str(CONVERSATION)], capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr


def test_garbled_and_truncated_events_are_notices_not_tracebacks(tmp_path: Path) -> None:
    copy = tmp_path / "conv"
    shutil.copytree(CONVERSATION, copy)
    events = sorted((copy / "events").iterdir())
    events[3].write_bytes(events[3].read_bytes()[:40])
    events[5].write_text("[1, 2]")
    trace = load_trace(copy)
    # Event 3 was a call's observation: the call is left without its result, and says so.
    assert [n.rule for n in trace.notices] == ["malformed-line", "malformed-line", "tool-result-missing"]
    assert str(events[3]) + ":1:" in trace.notices[0].message
    assert trace.notices[2].message.startswith("1 tool call has no result in the log: ")
    assert trace.extra["records"]["set_aside"] == {"malformed": 2, "system prompt": 1}
    assert len(trace.generations) == 3


def test_not_a_conversation(tmp_path: Path) -> None:
    (tmp_path / "events").mkdir()
    assert not openhands.claims(tmp_path) and not openhands.claims(tmp_path / "missing")
    (tmp_path / "x.json").write_text("{}")
    assert not openhands.claims(tmp_path / "x.json")
    try:
        openhands.read(tmp_path)
    except TraceReadError as error:
        assert "event files" in error.message
    else:
        raise AssertionError("an empty events folder must not load")


def test_claims_no_other_format_and_others_do_not_claim_it() -> None:
    for other in (FIXTURES / "claude_code" / "three_compactions.jsonl", FIXTURES / "codex" / "three_compactions.jsonl",
                  FIXTURES / "inspect_ai" / "two-samples.eval", FIXTURES / "inspect_ai" / "two-samples.json",
                  FIXTURES / "claude_code", FIXTURES):  # fmt: skip
        assert not openhands.claims(other)
    for reader in readers():
        if reader.name != "openhands" and reader.claims is not None:
            assert not reader.claims(CONVERSATION) and not reader.claims(CONVERSATION / "events")
    head = (CONVERSATION / "events" / sorted(p.name for p in (CONVERSATION / "events").iterdir())[1]).read_bytes()
    assert [r.name for r in readers() if r.sniff(head)] == []


_leaf = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["user", "agent", "", "x-summary", "{}"])
_value = st.recursive(_leaf, lambda c: st.lists(c, max_size=3) | st.dictionaries(
    st.sampled_from(["role", "content", "type", "text", "arguments", "name", "id", "exit_code", "is_error"]),
    c, max_size=3), max_leaves=8)  # fmt: skip
_event = st.fixed_dictionaries(
    {"kind": st.sampled_from(["MessageEvent", "ActionEvent", "ObservationEvent", "Condensation", "AgentErrorEvent",
                              "UserRejectObservation", "CondensationRequest", "Zzz"]) | _value},
    optional={"id": _value, "source": _value, "timestamp": _value, "llm_message": _value, "tool_call": _value,
              "tool_call_id": _value, "tool_name": _value, "action": _value, "thought": _value,
              "observation": _value, "forgotten_event_ids": st.lists(_value, max_size=3) | _value,
              "summary": _value, "summary_offset": _value, "rejection_reason": _value, "error": _value},
)  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(events=st.lists(_event | _value, max_size=6), torn=st.booleans())
def test_reader_raises_only_trace_read_error(events: list, torn: bool) -> None:
    with TemporaryDirectory() as folder:
        root = Path(folder) / "conv"
        (root / "events").mkdir(parents=True)
        for n, event in enumerate(events):
            data = json.dumps(event).encode()
            name = f"event-{n:05d}-{'0' * 7}{n:x}-aaaa.json"
            (root / "events" / name).write_bytes(data[: len(data) // 2] if torn and n == len(events) - 1 else data)
        try:
            openhands.read(root)
        except TraceReadError as error:
            assert str(error).startswith(str(root)) and "\n" not in error.message


# -- issue 28: only regular files inside the folder are read ------------------------------------------------------

OUTSIDE_WORDS = "OUTSIDE-SECRET never to be read"


def _planted(tmp_path: Path) -> Path:
    """The fixture with an event file and base_state.json that are symbolic links to files outside the folder,
    a FIFO and a folder under event-file names (a FIFO opened would block the reader)."""
    import os

    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "event.json").write_text(json.dumps({
        "id": "ffffffff-0000", "kind": "MessageEvent", "source": "user",
        "llm_message": {"role": "user", "content": [{"type": "text", "text": OUTSIDE_WORDS}]}}))  # fmt: skip
    (outside / "state.json").write_text(json.dumps({"id": "outside-id", "title": "OUTSIDE-TITLE"}))
    copy = tmp_path / "conv"
    shutil.copytree(CONVERSATION, copy)
    events = copy / "events"
    (events / "event-00099-ffffffff-0000.json").symlink_to(outside / "event.json")
    os.mkfifo(events / "event-00098-eeeeeeee-0000.json")
    (events / "event-00097-dddddddd-0000.json").mkdir()
    (copy / "base_state.json").unlink()
    (copy / "base_state.json").symlink_to(outside / "state.json")
    return copy


def test_links_out_of_the_folder_and_special_files_are_counted_never_read(tmp_path: Path) -> None:
    copy = _planted(tmp_path)
    trace = load_trace(copy)
    assert trace.id == "conv" and trace.title is None  # not the outside file's
    assert all(OUTSIDE_WORDS not in s.text for s in trace.sources)
    records = trace.extra["records"]
    files = len(list((copy / "events").glob("event-*.json"))) + 1  # and base_state.json
    assert records["total"] == files and "unaccounted" not in records["set_aside"]
    assert records["set_aside"]["not a regular file"] == 4
    [notice] = [n for n in trace.notices if n.rule == "records-set-aside"]
    assert "4 not a regular file (base_state.json, event-00097-dddddddd-0000.json, " in notice.message


def test_check_and_scan_as_a_user_runs_them_show_nothing_of_the_outside_files(tmp_path: Path) -> None:
    copy = _planted(tmp_path)
    checked = subprocess.run([sys.executable, "-m", "inspector", "check", "--json", str(copy)], capture_output=True,
                             text=True, timeout=120)  # fmt: skip
    assert checked.returncode in (0, 1) and "Traceback" not in checked.stderr, checked.stderr
    assert OUTSIDE_WORDS not in checked.stdout and "OUTSIDE-TITLE" not in checked.stdout
    assert "not a regular file" in checked.stdout
    out = tmp_path / "fleet.json"
    scanned = subprocess.run([sys.executable, "-m", "inspector", "scan", str(tmp_path / "conv"), "--workers", "1",
                              "--out", str(out)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert "Traceback" not in scanned.stderr, scanned.stderr
    [row] = json.loads(out.read_text())
    assert row["format"] == "openhands" and row["title"] != "OUTSIDE-TITLE" and row["error"] is None


def test_a_folder_whose_every_event_file_is_a_link_is_refused_saying_so(tmp_path: Path) -> None:
    copy = _planted(tmp_path)
    for event in (copy / "events").glob("event-*.json"):
        if event.is_file() and not event.is_symlink():
            event.unlink()
            event.symlink_to(tmp_path / "outside" / "event.json")
    try:
        load_trace(copy)
    except TraceReadError as error:
        assert "not a regular file" in error.message
    else:
        raise AssertionError("a folder of links only must not load")


# -- issue 28: a folder trace has a content hash, so the store's commands work on it --------------------------------


def _user(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, with the data folder (and so the review store) in `data`."""
    import os

    env = {k: v for k, v in os.environ.items() if k != "INSPECTOR_DB_URL"} | {"INSPECTOR_DATA_DIR": str(data)}
    done = subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, text=True, timeout=120,
                          env=env)  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_report_refresh_and_the_review_commands_work_on_the_bundled_folder(tmp_path: Path) -> None:
    from inspector.library import content_hash
    from inspector.store import Store, Target

    data = tmp_path / "data"
    data.mkdir()
    store = Store(f"sqlite:///{data / 'inspector.db'}")
    store.annotations.add(content_hash(CONVERSATION), Target("generation", generation=1), "confirmed",
                          "S1 drops zeta-cli", "kim", trace_label="conversation")  # fmt: skip
    store.close()
    html = tmp_path / "report.html"
    done = _user("report", str(CONVERSATION), "-o", str(html), data=data)
    assert done.returncode == 0 and "S1 drops zeta-cli" in html.read_text()
    done = _user("report", str(CONVERSATION), "--format", "md", data=data)
    assert done.returncode == 0 and "S1 drops zeta-cli" in done.stdout
    done = _user("annotations", "report", str(CONVERSATION), data=data)
    assert done.returncode == 0 and "S1 drops zeta-cli" in done.stdout
    done = _user("refresh", str(CONVERSATION), "--at", "1", "--record", "--by", "kim", data=data)
    assert done.returncode == 0 and "recorded 1 correction for S1 by kim" in done.stdout
    done = _user("ledger", "export", "--trace", str(CONVERSATION), data=data)
    assert done.returncode == 0 and [json.loads(line)["generation"] for line in done.stdout.splitlines()] == [1]
    done = _user("annotations", "export", "--trace", str(CONVERSATION / "events"), data=data)
    assert done.returncode == 0 and done.stdout == ""  # the events folder alone is another trace: no annotation


def test_a_folder_hash_is_its_regular_files_wherever_the_folder_is(tmp_path: Path) -> None:
    import os

    from inspector.library import content_hash

    digest = content_hash(CONVERSATION)
    assert len(digest) == 32 and content_hash(CONVERSATION) == digest
    copy = tmp_path / "elsewhere" / "conv"
    shutil.copytree(CONVERSATION, copy)
    assert content_hash(copy) == digest  # names inside the folder, not where it is
    (tmp_path / "outside.json").write_text("{}")
    (copy / "events" / "event-00099-ffffffff-0000.json").symlink_to(tmp_path / "outside.json")
    os.mkfifo(copy / "events" / "event-00098-eeeeeeee-0000.json")  # opened, it would block the hash forever
    assert content_hash(copy) == digest  # what the reader never opens is no part of the trace
    (copy / "events" / "event-00099-ffffffff-0000.json").unlink()
    first = sorted((copy / "events").glob("event-0000*.json"))[0]
    first.write_bytes(first.read_bytes().replace(b"}", b" }", 1))
    assert content_hash(copy) != digest
    first.rename(first.with_name("event-00000-renamed-0000.json"))
    assert content_hash(copy) not in (digest, content_hash(CONVERSATION / "events"))


def test_a_folder_file_past_the_read_bound_is_one_line_exit_2(tmp_path: Path) -> None:
    copy = tmp_path / "conv"
    shutil.copytree(CONVERSATION, copy)
    (copy / "notes.bin").write_bytes(b"x" * 200_000)  # no event: only the hash reads it, within the same bound
    done = _user("annotations", "report", str(copy), "--max-file-mb", "0.1", data=tmp_path)  # keyed by the hash
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"{copy / 'notes.bin'}: is larger than 0.1 MB, the per-file limit" in done.stderr
    report = _user("report", str(copy), "--max-file-mb", "0.1", "--no-store", data=tmp_path)
    assert report.returncode == 0, report.stderr  # no store to key: the report does not read the folder's other files
