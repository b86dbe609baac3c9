"""A shell command Claude Code ran in the background is judged by how it ended, reported later, not by the note that
it started.

Real sessions from three repositories (wfc_f7de43a6, intent-layer_ec9bc11e, safecast-map-mcp_fcfde32f, all outside
../shared) send long commands to the background. The call's result only says "Command running in background with ID:
b3b0f6f"; read as the command's run it was a clean one, and a clean run retires the failures before it. How the
command ended comes later: in a `TaskOutput` result (`toolUseResult.task`: status, exit code, output) or a
`<task-notification>` ("Background command "Launch the orchestrator" failed with exit code 1"). wfc_f7de43a6's
orchestrator failed there with "No module named 'wfc_review'", and its summary called the import fix SUCCESSFUL
unchallenged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspector import analyze, load_trace
from inspector.shell_runs import shell_runs
from tests.test_guard_authorship import call, result, user
from tests.test_guard_authorship import session as guarded_session

COMMAND = "uv run python -m wfc.cli --tasks TASKS.md"
STARTED = "Command running in background with ID: b3b0f6f. Output is being written to: /tmp/tasks/b3b0f6f.output"


def session(folder: Path, middle: list[dict[str, Any]], summary: str) -> Path:
    """The user's request, `middle` (ending with uuid "m"), then a compaction with `summary`."""
    return guarded_session(folder, middle, typed="Run the orchestrator on the tasks.", summary=summary)


def started(uuid: str, parent: str) -> list[dict[str, Any]]:
    return [call(f"c{uuid}", parent, "Bash", {"command": COMMAND, "run_in_background": True}),
            result(uuid, f"c{uuid}", STARTED, {"stdout": "", "stderr": "", "interrupted": False,
                                               "backgroundTaskId": "b3b0f6f"})]  # fmt: skip


def reported(uuid: str, parent: str, status: str, code: int, output: str) -> list[dict[str, Any]]:
    body = (f"<retrieval_status>success</retrieval_status>\n\n<task_id>b3b0f6f</task_id>\n\n<task_type>local_bash"
            f"</task_type>\n\n<status>{status}</status>\n\n<exit_code>{code}</exit_code>\n\n<output>\n{output}\n"
            "</output>")  # fmt: skip
    task = {"task_id": "b3b0f6f", "task_type": "local_bash", "status": status, "description": "Run the orchestrator",
            "output": output, "exitCode": code}  # fmt: skip
    return [call(f"c{uuid}", parent, "TaskOutput", {"task_id": "b3b0f6f", "block": False}),
            result(uuid, f"c{uuid}", body, {"retrieval_status": "success", "task": task})]


def test_a_background_command_is_run_when_its_end_is_reported_not_when_it_starts(tmp_path):
    middle = [*started("r1", "a1"), *reported("m", "r1", "failed", 1, "❌ Error: No module named 'wfc_review'")]
    trace = load_trace(session(tmp_path, middle, "Summary: fixed the broken import (SUCCESSFUL); the run is going."))
    runs = shell_runs(trace.sources)
    assert [(run.command, run.failed, run.output) for run in runs] == [
        (COMMAND, True, "❌ Error: No module named 'wfc_review'")]
    messages = [f.message for f in analyze(trace).findings if f.rule in ("open-failure-lost", "claim-contradicted")]
    assert any("No module named 'wfc_review'" in m for m in messages), messages


def test_a_background_start_does_not_retire_the_failure_before_it(tmp_path):
    failed = [call("c0", "a1", "Bash", {"command": COMMAND}),
              result("r0", "c0", "Exit code 1\nError: No module named 'wfc_review'",
                     "Error: Exit code 1\nError: No module named 'wfc_review'", is_error=True)]  # fmt: skip
    middle = [*failed, *started("m", "r0")]
    trace = load_trace(session(tmp_path, middle, "Summary: the user asked for the orchestrator run."))
    lost = [f.message for f in analyze(trace).findings if f.rule == "open-failure-lost"]
    assert any("No module named 'wfc_review'" in m for m in lost), lost


def test_a_notification_that_a_background_command_failed_is_its_failed_run(tmp_path):
    notice = ("<task-notification>\n<task-id>b3b0f6f</task-id>\n<output-file>/tmp/tasks/b3b0f6f.output</output-file>\n"
              "<status>failed</status>\n<summary>Background command \"Run the orchestrator\" failed with exit code 2"
              "</summary>\n</task-notification>\nRead the output file to retrieve the result: /tmp/b3b0f6f.output")
    middle = [*started("r1", "a1"), user("m", "r1", notice, origin={"kind": "task-notification"})]
    trace = load_trace(session(tmp_path, middle, "Summary: the user asked for the orchestrator run."))
    runs = shell_runs(trace.sources)
    assert [(run.command, run.failed) for run in runs] == [(COMMAND, True)]
    assert "failed with exit code 2" in runs[0].output
    completed = notice.replace("<status>failed</status>", "<status>completed</status>").replace(
        "failed with exit code 2", "completed (exit code 0)")
    middle = [*started("r1", "a1"), user("m", "r1", completed, origin={"kind": "task-notification"})]
    runs = shell_runs(load_trace(session(tmp_path, middle, "Summary: the run finished.")).sources)
    assert [(run.command, run.failed) for run in runs] == [(COMMAND, False)]
