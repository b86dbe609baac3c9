"""Fleet scan: every file gets a row, the worst sessions come first, reruns reuse what did not change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector import analyze, load_trace
from inspector.fleet import COLUMNS, findings_by_rule, read_rows, scan, summarise, write_rows
from tests.helpers import LABELLED, REAL_TRACES, REPO, SAMPLES, needs_shared

VSLA = LABELLED / "claude_code_1.0.53_vsla_f67ab274.jsonl"

FAILING = ["anchor_decay.json", "five_item_synthetic.json", "staging_db_constraint.json"]


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    folder = tmp_path / "broken"
    (folder / "nested").mkdir(parents=True)
    (folder / "corrupt.jsonl").write_bytes(b'{"type": "user", "uuid": \x00\x01 not json\n')
    (folder / "nested" / "empty.jsonl").write_bytes(b"")
    (folder / "notes.md").write_text("not a session")
    return folder


def scan_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inspector", "scan", *args], capture_output=True, text=True,
                          cwd=REPO, timeout=300)  # fmt: skip


def without_timing(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


@pytest.fixture
def real(tmp_path: Path) -> Path:
    """The shared folder's top-level logs and notes only (its labelled/ subfolder grows over time); empty on a
    fresh clone, which has no ../shared."""
    folder = tmp_path / "real"
    folder.mkdir()
    for log in [*REAL_TRACES.glob("*.jsonl"), *REAL_TRACES.glob("*.md")]:
        (folder / log.name).write_bytes(log.read_bytes())
    return folder


def test_scan_reports_every_file_ranks_failing_samples_first_and_exits_0(tmp_path, broken, real):
    out = tmp_path / "fleet.json"
    result = scan_cli(str(SAMPLES), str(real), str(broken), "--out", str(out), "--workers", "2")
    assert result.returncode == 0, result.stderr
    rows = json.loads(out.read_text())
    expected = {*(str(p) for p in SAMPLES.glob("*.json")), *(str(p) for p in real.glob("*.jsonl")),
                str(broken / "corrupt.jsonl"), str(broken / "nested" / "empty.jsonl")}  # fmt: skip
    assert {row["path"] for row in rows} == expected
    assert all(list(row) == list(COLUMNS) for row in rows)
    order = [Path(row["path"]).name for row in rows]
    assert max(order.index(name) for name in FAILING) < order.index("healthy_chain.json")
    by_name = {Path(row["path"]).name: row for row in rows}
    assert by_name["healthy_chain.json"]["verdict"] == "pass"
    assert by_name["staging_db_constraint.json"]["worst_rule"] in ("user-statement-lost", "user-statement-weakened")
    assert by_name["empty.jsonl"]["verdict"] == "unreadable" and "empty file" in by_name["empty.jsonl"]["error"]
    assert by_name["corrupt.jsonl"]["verdict"] == "unreadable" and by_name["corrupt.jsonl"]["error"]
    assert order[-2:] == sorted(["corrupt.jsonl", "empty.jsonl"])  # unreadable rows come last
    notes = [SAMPLES / "README.md", broken / "notes.md", *real.glob("*.md")]  # ../shared's notes when it is here
    assert "2 unreadable" in result.stdout and f"{len(notes)} other files skipped" in result.stdout


def test_a_rerun_reuses_rows_of_unchanged_files_and_redoes_changed_ones(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in ("healthy_chain.json", "anchor_decay.json"):
        (folder / name).write_bytes((SAMPLES / name).read_bytes())
    cache = tmp_path / "fleet.parquet.cache.json"
    first = scan([folder], cache=cache)
    assert first.cached == 0 and cache.exists()
    second = scan([folder], cache=cache)
    assert second.cached == 2 and without_timing(second.rows) == without_timing(first.rows)

    changed = folder / "healthy_chain.json"
    changed.write_bytes((SAMPLES / "staging_db_constraint.json").read_bytes())
    os.utime(changed, ns=(1, 1))
    third = scan([folder], cache=cache)
    assert third.cached == 1
    assert {Path(r["path"]).name: r["verdict"] for r in third.rows}["healthy_chain.json"] == "fail"


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".json"])
def test_every_output_format_reads_back_the_same_rows(tmp_path, broken, suffix):
    rows = scan([SAMPLES, broken]).rows
    out = tmp_path / f"fleet{suffix}"
    write_rows(rows, out)
    assert read_rows(out) == rows


def test_dask_engine_on_a_two_worker_local_cluster_gives_the_local_rows(broken, real):
    distributed = pytest.importorskip("dask.distributed")  # installed by the test extra: this runs in CI
    roots = [SAMPLES, real, broken]
    local = scan(roots, workers=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None,
                                  processes=True) as cluster:  # fmt: skip
        remote = scan(roots, engine="dask", scheduler=cluster.scheduler_address)
    assert without_timing(remote.rows) == without_timing(local.rows)
    assert remote.counts == local.counts and remote.counts["unreadable"] == 2


def test_summary_of_a_decaying_chain():
    row = summarise(analyze(load_trace(SAMPLES / "anchor_decay.json")))
    assert row["verdict"] == "fail" and row["generations"] == 4
    assert row["anchor_density_trend"] < 0 < row["anchor_density_last"] < row["anchor_density_first"]
    assert row["errors"] == sum(row["errors_by_rule"].values())
    assert row["worst_rule"] == max(row["errors_by_rule"], key=lambda r: (row["errors_by_rule"][r], r))


def test_findings_by_rule_counts_findings_and_sessions():
    rows = scan([SAMPLES]).rows
    chart = {(r["rule"], r["severity"]): r for r in findings_by_rule(rows)}
    lost = chart[("invariant-lost", "error")]
    assert lost["findings"] == sum(r["errors_by_rule"].get("invariant-lost", 0) for r in rows)
    assert lost["sessions"] == sum(1 for r in rows if "invariant-lost" in r["errors_by_rule"])


def test_bad_arguments_exit_2(tmp_path):
    assert scan_cli(str(SAMPLES), "--out", str(tmp_path / "x.txt")).returncode == 2
    assert scan_cli(str(SAMPLES), "--scheduler", "tcp://127.0.0.1:1").returncode == 2


CONSEQUENCE = REPO / "tests" / "fixtures" / "native" / "lost_rule_then_pushed.json"
"""S1 drops "never push to main" and the next agent pushes to main: one loss with a consequence, one error."""


def test_sessions_where_a_loss_had_a_consequence_come_first_with_the_count_in_table_and_json(tmp_path):
    folder = tmp_path / "sessions"
    folder.mkdir()
    for path in (SAMPLES / "anchor_decay.json", SAMPLES / "healthy_chain.json", CONSEQUENCE):
        (folder / path.name).write_bytes(path.read_bytes())
    out = tmp_path / "fleet.json"
    result = scan_cli(str(folder), "--out", str(out), "--workers", "1")
    assert result.returncode == 0, result.stderr
    rows = json.loads(out.read_text())
    assert [(Path(r["path"]).name, r["consequences"]) for r in rows] == [
        ("lost_rule_then_pushed.json", 1), ("anchor_decay.json", 0), ("healthy_chain.json", 0)]
    assert rows[0]["errors"] < rows[1]["errors"]  # ranked by its consequence, not by how many errors it has
    header, first, *_ = result.stdout.splitlines()
    assert header.split()[:3] == ["verdict", "consequences", "errors"]
    assert first.split()[:3] == ["fail", "1", "1"] and first.endswith("lost_rule_then_pushed.json")


@needs_shared(VSLA)
def test_the_real_session_with_two_consequences_tops_a_scan():
    rows = scan([VSLA, CONSEQUENCE, SAMPLES / "anchor_decay.json"]).rows
    assert [(Path(r["path"]).name, r["consequences"]) for r in rows] == [
        (VSLA.name, 2), (CONSEQUENCE.name, 1), ("anchor_decay.json", 0)]
