"""The review workflow: queue order and progress, inline marks, the Markdown report, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from inspector import analyze, load_trace
from inspector.inert import markdown_code
from inspector.library import content_hash
from inspector.model import finding_id
from inspector.review import annotation_highlights, markdown_report, review_queue
from inspector.store import Store, Target
from tests.helpers import REPO, SAMPLES


@pytest.fixture
def store(tmp_path):
    return Store(f"sqlite:///{tmp_path / 'review.db'}")


@pytest.fixture(scope="module")
def decay():
    return analyze(load_trace(SAMPLES / "anchor_decay.json"))


def review(store, finding, label="confirmed", comment=""):
    return store.annotations.add("h", Target("finding", finding_id=finding_id(finding), rule=finding.rule,
                                             generation=finding.generation, start=finding.start, end=finding.end),
                                 label, comment, "kim")  # fmt: skip


def test_queue_walks_findings_in_order_and_counts_progress(store, decay):
    queue = review_queue(decay, [])
    generations = [f.generation for f in queue.findings]
    assert generations == sorted(generations) and queue.progress == f"0 of {len(decay.findings)} reviewed"
    first = queue.next
    review(store, first)
    queue = review_queue(decay, store.annotations.all())
    assert queue.next == queue.findings[1] and queue.progress == f"1 of {len(decay.findings)} reviewed"


def test_queue_filters_by_rule_and_severity(decay):
    queue = review_queue(decay, [], rules=["unresolved-anchor"])
    assert [f.rule for f in queue.findings] == ["unresolved-anchor"] and queue.progress == "0 of 1 reviewed"
    assert {f.severity.value for f in review_queue(decay, [], severities=["warning"]).findings} == {"warning"}


def test_annotations_show_inline_on_spans_and_findings(store, decay):
    unresolved = next(f for f in decay.findings if f.rule == "unresolved-anchor")
    review(store, unresolved, "confirmed", "dead key")
    text = decay.trace.generations[3].text
    start = text.index("fully preserved")
    store.annotations.add("h", Target("span", generation=3, start=start, end=start + 15, quoted_text="fully preserved"),
                          "false-positive", "", "lee")  # fmt: skip
    marks = annotation_highlights(decay, store.annotations.all(), 3)
    assert {(m.start, m.end) for m in marks} == {(unresolved.start, unresolved.end), (start, start + 15)}
    assert any("confirmed by kim: dead key" == m.why for m in marks)


def test_markdown_report_lists_reviews_and_neutralises_trace_text(store):
    hostile = analyze(load_trace(SAMPLES / "hostile_text.json"))
    review(store, hostile.findings[0], "confirmed", "`![x](http://evil/p.png)` | <b>")
    report = markdown_report(hostile, store.annotations.all())
    assert report.startswith("# Review: ")
    assert f"1 of {len(hostile.findings)} reviewed" in report
    assert report.count("\n| S") == len(hostile.findings)
    table_rows = [line for line in report.splitlines() if line.startswith("| S")]
    assert all(line.count(" | ") == 4 for line in table_rows)  # no pipe from trace text breaks a row
    title_line = report.splitlines()[0]
    # A title in prose, not a code span, with every punctuation character escaped: inert all the same.
    assert not title_line.startswith("# Review: `") and "\\<script\\>" in title_line and "<script>" not in title_line


@pytest.mark.parametrize("text", ["plain", "with `one` tick", "``double``", "`"])
def test_markdown_code_always_outlasts_the_backticks_inside(text):
    fenced = markdown_code(text)
    fence = fenced.split(" ", 1)[0]
    assert set(fence) == {"`"} and fence * 1 not in text and fenced.endswith(fence)


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True, cwd=REPO, timeout=120,
                          env={**os.environ, **(env or {})})  # fmt: skip


def test_cli_export_import_round_trip_and_report(tmp_path):
    sample = SAMPLES / "staging_db_constraint.json"
    source_url, target_url = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    analysis = analyze(load_trace(sample))
    weakened = next(f for f in analysis.findings if f.rule == "user-statement-weakened")
    Store(source_url).annotations.add(content_hash(sample), Target("finding", finding_id=finding_id(weakened)),
                                      "confirmed", "read-only became 'discussed'", "kim")  # fmt: skip
    exported = tmp_path / "export.jsonl"
    assert cli("annotations", "--db", source_url, "export", "--trace", str(sample), "-o", str(exported)).returncode == 0
    assert len(exported.read_text().splitlines()) == 1
    first = cli("annotations", "--db", target_url, "import", str(exported))
    assert first.returncode == 0 and first.stdout.endswith(b": added 1 annotation and 1 revision\n")
    again = cli("annotations", "--db", target_url, "import", str(exported))
    assert b"added 0 annotations and 0 revisions" in again.stdout
    report = cli("annotations", "--db", target_url, "report", str(sample))
    assert report.returncode == 0 and b"| S2 | error | `user-statement-weakened` |" in report.stdout
    assert b"confirmed" in report.stdout and b"1 of 2 reviewed" in report.stdout
    csv_out = cli("annotations", "--db", target_url, "export", "--format", "csv")
    assert csv_out.stdout.decode().splitlines()[0].startswith("id,trace_hash,trace_label,target,generation")


def test_cli_import_names_a_malformed_line_and_imports_nothing(tmp_path):
    url = f"sqlite:///{tmp_path / 'a.db'}"
    store = Store(url)
    store.annotations.add("h", Target("generation", generation=1), "fixed", "", "kim")
    good = store.annotations.export_jsonl().decode().strip()
    record = json.loads(good)
    record["id"] = "second"
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([good, "{not json", json.dumps(record)]) + "\n")
    target = f"sqlite:///{tmp_path / 'b.db'}"
    result = cli("annotations", "--db", target, "import", str(path))
    assert result.returncode == 2  # bad input, as everywhere: all or nothing, so nothing
    [line] = result.stderr.decode().splitlines()
    assert line.startswith(f"{path}:2: not an annotations export line (invalid JSON")
    assert "nothing imported" in line and result.stdout == b""
    assert Store(target).annotations.export_jsonl() == b""


@pytest.mark.parametrize(("content", "why"), [(b"", "the file is empty"), (b"\n  \n\t\r\n\n", "it holds only blank "
                                             "lines")], ids=["empty", "blank-lines"])  # fmt: skip
def test_cli_import_refuses_a_file_with_no_annotation_in_one_line_and_keeps_the_store(tmp_path, content, why):
    url = f"sqlite:///{tmp_path / 'a.db'}"
    kept = Store(url).annotations.add("h", Target("generation", generation=1), "fixed", "", "kim")
    path = tmp_path / "export.jsonl"
    path.write_bytes(content)
    result = cli("annotations", "--db", url, "import", str(path))
    assert (result.returncode, result.stdout) == (2, b"")
    assert result.stderr.decode().splitlines() == [
        f"{path}: not an annotations export (the JSONL `annotations export` writes): {why}"]
    assert [a.id for a in Store(url).annotations.all()] == [kept.id]
