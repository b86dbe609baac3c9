"""A summary names a file by the path a `mv` gave it: it resolves to the record of the file under its old path, at a
cut the move came before, and only when the move ran (wfc, a session outside ../shared labelled blind: after
`mv wfc/wfc-tools wfc/wfc_tools`, S1's four paths under `wfc/wfc_tools/` resolved to nothing)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector.analysis import analyze
from inspector.readers import load_trace
from tests.test_reader_claude_code import assistant, record, resolved, user, write


def _ran(n: int, parent: str, command: str, failed: bool = False) -> list[dict[str, Any]]:
    """An agent's shell call and its result."""
    call = {"type": "tool_use", "id": f"t{n}", "name": "Bash", "input": {"command": command}}
    result = {"type": "tool_result", "tool_use_id": f"t{n}", "content": "mv: cannot stat" if failed else "",
              "is_error": failed}  # fmt: skip
    return [assistant(f"c{n}", parent, [call]), user(f"r{n}", f"c{n}", [result])]


def _wrote(n: int, parent: str, path: str) -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": f"w{n}", "name": "Write", "input": {"file_path": path, "content": "x = 1"}}
    return [assistant(f"cw{n}", parent, [call]),
            user(f"rw{n}", f"cw{n}", [{"type": "tool_result", "tool_use_id": f"w{n}", "content": "File created"}])]


def _session(tmp_path: Path, before: list[dict[str, Any]], summary: str, after: list[dict[str, Any]] = ()) -> Any:
    last = before[-1]["uuid"]
    return load_trace(write(tmp_path / "moved.jsonl", [
        user("u1", None, "Split the tools into a package."), *before,
        record("b1", None, "system", subtype="compact_boundary", logicalParentUuid=last,
               compactMetadata={"trigger": "auto", "preTokens": 5000}),
        user("s1", "b1", summary, isCompactSummary=True), *after,
    ]))  # fmt: skip


def _unresolved(trace: Any) -> list[str]:
    return [f.message.split("'")[1] for f in analyze(trace).findings if f.rule == "unresolved-anchor"]


def test_a_path_under_a_renamed_folder_resolves_to_the_file_under_its_old_name(tmp_path: Path) -> None:
    trace = _session(tmp_path, [*_wrote(1, "u1", "wfc/wfc-tools/gitwork/api/pr.py"),
                                *_ran(2, "rw1", "mv wfc/wfc-tools wfc/wfc_tools && ls -la wfc/wfc_tools/")],
                     "Summary: created wfc/wfc_tools/gitwork/api/pr.py; wfc/wfc_tools/gitwork/api/issue.py is next.")
    assert _unresolved(trace) == ["wfc/wfc_tools/gitwork/api/issue.py"]  # never written, under either name
    assert ("wfc/wfc_tools/gitwork/api/pr.py", "resolved", ("file:wfc/wfc-tools/gitwork/api/pr.py",)) in resolved(
        trace)[1]


def test_a_file_moved_into_a_folder_resolves_by_its_new_path(tmp_path: Path) -> None:
    trace = _session(tmp_path, [*_wrote(1, "u1", "run_benchmark.py"), *_ran(2, "rw1", "mv -v run_benchmark.py bench/")],
                     "Summary: the benchmark lives in bench/run_benchmark.py now.")
    assert _unresolved(trace) == []


def test_a_move_that_failed_or_came_after_the_summary_moved_nothing_it_knew_of(tmp_path: Path) -> None:
    failed = _session(tmp_path, [*_wrote(1, "u1", "run_benchmark.py"),
                                 *_ran(2, "rw1", "mv run_benchmark.py bench/", failed=True)],
                      "Summary: the benchmark lives in bench/run_benchmark.py now.")
    assert _unresolved(failed) == ["bench/run_benchmark.py"]
    later = _session(tmp_path, _wrote(1, "u1", "run_benchmark.py"),
                     "Summary: the benchmark lives in bench/run_benchmark.py now.",
                     _ran(2, "s1", "mv run_benchmark.py bench/"))
    assert _unresolved(later) == ["bench/run_benchmark.py"]
