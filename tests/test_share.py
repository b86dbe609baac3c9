"""Reports to share: a self-contained HTML file (read in Chromium with no network and no JavaScript)
and Markdown for an issue; plus the guided story's data."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from inspector import analyze, load_trace
from inspector.model import finding_id
from inspector.refresh import refresh_at
from inspector.share import html_report, markdown_full_report
from inspector.store import Store, Target
from inspector.story import story
from tests.browser import CHROMIUM, CHROMIUM_ARGS, require_chromium, save_screenshot
from tests.helpers import REPO, SAMPLES, MarkupCollector

ALLOWED_TAGS = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "b", "i", "br", "div", "span",
                "mark", "a", "ol", "ul", "li", "code", "details", "summary", "table", "thead", "tbody", "tr", "th",
                "td"}  # fmt: skip


@pytest.mark.parametrize("sample", sorted(p.name for p in SAMPLES.glob("*.json")))
def test_report_markup_is_ours_only(sample):
    parser = MarkupCollector(html_report(analyze(load_trace(SAMPLES / sample))))
    assert parser.tags <= ALLOWED_TAGS, parser.tags - ALLOWED_TAGS
    assert parser.attributes <= {"class", "id", "title", "href", "lang", "charset", "http-equiv", "content", "open"}
    assert all(url.startswith("#") for url in parser.urls)


def test_report_includes_reviews_and_corrections(tmp_path):
    analysis = analyze(load_trace(SAMPLES / "staging_db_constraint.json"))
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    lost = next(f for f in analysis.findings if f.rule == "user-statement-lost")
    store.annotations.add("h", Target("finding", finding_id=finding_id(lost)), "confirmed", "<b>gone</b>", "kim")
    store.ledger.append(refresh_at(analysis, 3), trace="h", trace_label="t", trigger="manual", requested_by="kim")
    report = html_report(analysis, store.annotations.for_trace("h"), store.ledger.entries("h"))
    assert "Corrections recorded by source refresh" in report
    row = next(r for r in re.findall(r"<tr>.*?</tr>", report) if "user-statement-lost" in r)
    assert row.endswith("<td>confirmed (kim): &lt;b&gt;gone&lt;/b&gt;</td></tr>")  # the comment, as text
    assert "<b>gone</b>" not in report
    markdown = markdown_full_report(analysis, store.annotations.for_trace("h"), store.ledger.entries("h"))
    assert "## Chain" in markdown and "## Manifest" in markdown and "**omitted**" in markdown


def test_report_cli_writes_html_and_markdown(tmp_path):
    env = {**os.environ, "INSPECTOR_DATA_DIR": str(tmp_path)}
    out = tmp_path / "report.html"
    result = subprocess.run([sys.executable, "-m", "inspector", "report", str(SAMPLES / "anchor_decay.json"), "-o",
                             str(out)], capture_output=True, text=True, cwd=REPO, env=env, timeout=120)  # fmt: skip
    assert result.returncode == 0 and out.read_text().startswith("<!DOCTYPE html>")
    md = subprocess.run([sys.executable, "-m", "inspector", "report", str(SAMPLES / "anchor_decay.json"), "--format",
                         "md"], capture_output=True, text=True, cwd=REPO, env=env, timeout=120)  # fmt: skip
    assert md.returncode == 0 and md.stdout.startswith("# Review: ")
    missing = subprocess.run([sys.executable, "-m", "inspector", "report", str(tmp_path / "nope.json")],
                             capture_output=True, text=True, cwd=REPO, env=env, timeout=120)  # fmt: skip
    assert missing.returncode == 2 and missing.stderr.strip().endswith("no such file")


def test_a_report_with_nothing_in_the_store_does_not_load_or_create_it(tmp_path):
    """A first report on a machine with no reviews loads neither SQLAlchemy nor Alembic (0.2 s of a report of a
    4 MB session) and leaves no database behind; once the default store holds a review, the report shows it."""
    from tests.test_cli import _IMPORTED

    data = tmp_path / "data"
    sample = SAMPLES / "staging_db_constraint.json"
    env = {**os.environ, "INSPECTOR_DATA_DIR": str(data)}
    env.pop("INSPECTOR_DB_URL", None)
    argv = [sys.executable, "-c", _IMPORTED, "report", str(sample)]
    first = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert first.returncode == 0 and first.stdout.startswith("<!DOCTYPE html>")
    assert not set(first.stderr.strip().splitlines()[-1].split()) & {"sqlalchemy", "alembic"}
    assert not data.exists()
    from inspector.cli_io import trace_hash

    analysis = analyze(load_trace(sample))
    lost = next(f for f in analysis.findings if f.rule == "user-statement-lost")
    data.mkdir()
    Store(f"sqlite:///{data / 'inspector.db'}").annotations.add(
        trace_hash(str(sample)), Target("finding", finding_id=finding_id(lost)), "confirmed", "never staging", "kim")
    second = subprocess.run(argv, capture_output=True, text=True, cwd=REPO, env=env, timeout=120)
    assert second.returncode == 0 and "<td>confirmed (kim): never staging</td>" in second.stdout


@pytest.mark.parametrize("sample", ["anchor_decay.json", "hostile_text.json", "five_item_synthetic.json"])
def test_report_reads_in_chromium_offline_without_javascript(tmp_path, sample):
    require_chromium()
    from playwright.sync_api import sync_playwright

    analysis = analyze(load_trace(SAMPLES / sample))
    path = tmp_path / "report.html"
    path.write_text(html_report(analysis))
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(java_script_enabled=False, offline=True)
        page = context.new_page()
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.as_uri())
        for k in range(len(analysis.trace.generations)):
            assert page.locator(f"details#S{k}").count() == 1
        body = page.locator("body").inner_text()
        for finding in analysis.findings:
            assert finding.message in body
        assert page.title() == (analysis.trace.title or analysis.trace.id)  # shown as text, never run
        if sample == "hostile_text.json":
            assert "<script>document.title='PWNED-script'</script>" in body
            assert page.locator("body script, body img, body iframe, body style").count() == 0
        save_screenshot(page, f"report-{path.stem}-{sample.split('.')[0]}")
        browser.close()
    assert requests == [path.as_uri()]  # the file itself and nothing else


def test_story_steps_follow_the_sample():
    analysis = analyze(load_trace(SAMPLES / "staging_db_constraint.json"))
    steps = story(analysis)
    assert [s.view for s in steps] == ["generation", "generation", "manifest", "generation", "refresh", "review"]
    assert [s.generation for s in steps] == [1, 2, 3, 3, 3, 3]
    text = analysis.trace.generations[3].text
    start, end = steps[3].focus
    assert "apply the migration on staging" in text[start:end]
