"""What the guard gave back, as the app and the report show it: the refresh performed, not simulated.

The store side (round trip on SQLite and PostgreSQL) is in test_store.py; here the shaping, the
markup, the report section and the two pages, each with hostile text in what the guard recorded.
"""

from __future__ import annotations

import pytest

from inspector import analyze, load_trace
from inspector.render import chain_dot, guard_html
from inspector.share import html_report, markdown_full_report, share_report
from inspector.store import GuardInjection, RestoredItem, open_store
from inspector.views import guard_marks
from tests.helpers import SAMPLES, MarkupCollector
from tests.test_app import app, html_of, page

SESSION = "staging-db-constraint"
"""The bundled sample's trace id: for a Claude Code log the reader makes it the session id."""
HOSTILE = "Never run <script>alert(1)</script> migrations on staging \u202etxt.exe"
LOST = RestoredItem("user-statement-lost", "user-constraint", HOSTILE, "turn:<b>4</b>", "2026-11-01T09:30:00Z")
CLAIM = RestoredItem("claim-contradicted", "claim", "The summary says the tests pass; the last run failed.", None, None)


def injection(k: int, *items: RestoredItem, session: str = SESSION, at: str = "2026-11-01T10:00:00+00:00",
              text: str = "The user said: <img src=x onerror=alert(1)>") -> GuardInjection:  # fmt: skip
    return GuardInjection(session, k, "0" * 32, at, items, text)


@pytest.fixture(scope="module")
def staging():
    return analyze(load_trace(SAMPLES / "staging_db_constraint.json"))


# --- shaping -------------------------------------------------------------------------------------


def test_marks_are_by_generation_for_this_trace_only(staging):
    marks = guard_marks(staging, [
        injection(3, LOST, CLAIM),
        injection(2, LOST, session="another-session"),  # another trace's: not drawn here
        injection(9, LOST),  # a generation this chain does not have (the file was cut short)
        injection(1, LOST),
    ])  # fmt: skip
    assert list(marks) == [1, 3]
    assert marks[3].label == "guard restored 2 items at S3" and marks[3].items == (LOST, CLAIM)
    assert marks[1].label == "guard restored 1 item at S1"


def test_a_repeated_run_at_one_summary_counts_its_last_injection(staging):
    first, again = injection(3, LOST, CLAIM), injection(3, LOST, at="2026-11-01T11:00:00+00:00")
    [mark] = guard_marks(staging, [first, again]).values()
    assert mark.injections == (first, again) and mark.latest is again
    assert mark.label == "guard restored 1 item at S3"


def test_the_chain_node_of_the_guarded_summary_says_what_was_restored(staging):
    dot = chain_dot(staging, guard=guard_marks(staging, [injection(3, LOST, CLAIM)]))
    nodes = {line.split()[0]: line for line in dot.splitlines() if line.startswith("  S") and "[label=" in line}
    assert "guard restored 2 items at S3" in nodes["S3"] and "peripheries=2" in nodes["S3"]
    assert not any("guard" in nodes[k] for k in ("S0", "S1", "S2"))
    assert "guard" not in chain_dot(staging)


def test_guard_html_lists_the_items_escaped():
    mark = guard_marks(analyze(load_trace(SAMPLES / "staging_db_constraint.json")), [injection(3, LOST, CLAIM)])[3]
    markup = guard_html(mark)
    assert markup.startswith('<div class="ci-guard"><p class="ci-caption"><b>guard restored 2 items at S3</b>: '
                             "source refresh performed by the guard at 2026-11-01T10:00:00+00:00")  # fmt: skip
    assert ("<li><code>user-statement-lost</code> · user-constraint · record <code>turn:&lt;b&gt;4&lt;/b&gt;</code> "
            "· said 2026-11-01T09:30:00Z<br>Never run &lt;script&gt;alert(1)&lt;/script&gt; migrations on staging "
            '<span class="ci-hidden" title="hidden character U+202E (right-to-left override)">') in markup  # fmt: skip
    assert "<li><code>claim-contradicted</code> · claim<br>The summary says" in markup  # no record, no time: none shown
    assert "The user said: &lt;img src=x onerror=alert(1)&gt;" in markup
    parser = MarkupCollector(markup)
    assert parser.tags <= {"div", "p", "b", "ol", "li", "code", "br", "span", "details", "summary"}, parser.tags
    assert "\u202e" not in markup


# --- the report ----------------------------------------------------------------------------------


def test_the_html_report_has_a_guard_section_with_each_injection(staging):
    report = html_report(staging, guard=[injection(3, LOST, CLAIM), injection(3, CLAIM, at="2026-11-02T08:00:00Z")])
    section = report.split("<h2>Guard</h2>", 1)[1]
    assert section.index("2026-11-01T10:00:00+00:00 · 2 items restored") < section.index("2026-11-02T08:00:00Z")
    assert "<td>Never run &lt;script&gt;alert(1)&lt;/script&gt; migrations" in section
    assert "<td>turn:&lt;b&gt;4&lt;/b&gt;</td>" in section and "&lt;img src=x" in section
    assert "<script>" not in report and "<img" not in report and "\u202e" not in report
    assert 'id="node-S3"' in report and "<b>guard restored 1 item at S3</b>" in report  # the chain's S3 node
    assert "<h2>Guard</h2>" not in html_report(staging)


def test_the_markdown_report_lists_the_items_inert(staging):
    markdown = markdown_full_report(staging, guard=[injection(3, LOST, CLAIM)])
    section = markdown.split("## Guard", 1)[1]
    assert "- S3 at 2026\\-11\\-01T10\\:00\\:00\\+00\\:00: 2 items restored" in section
    lost = next(line for line in section.splitlines() if "user\\-statement\\-lost" in line)
    assert lost.startswith("  - **user\\-statement\\-lost** user\\-constraint said 2026\\-11\\-01T09\\:30\\:00Z "
                           "(record ` turn:<b>4</b> `): ` Never run <script>alert(1)</script> migrations")  # fmt: skip
    assert "\u202e" not in markdown and lost.endswith("staging \\u202etxt.exe `")  # spelled, even in a code span
    assert "| S3 | summary (guard restored 2 items at S3) |" in markdown


def test_share_report_reads_the_guard_by_the_trace_id_not_its_hash(staging, tmp_path):
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    store.guard.record(injection(3, LOST))
    store.guard.record(injection(2, CLAIM, session="another-session"))
    report = share_report(staging, store, "a-hash-that-changed-since", "md")
    assert "## Guard" in report and "- S3 at" in report and "- S2 at" not in report


# --- the pages -----------------------------------------------------------------------------------


@pytest.fixture
def recorded(tmp_path, monkeypatch):
    """The app's store is this test's own, holding one injection at S3 of the staging sample."""
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("INSPECTOR_DB_URL", raising=False)
    store = open_store()
    store.guard.record(injection(3, LOST, CLAIM))
    store.guard.record(injection(2, LOST, session="another-session"))
    store.close()


def test_the_chain_view_marks_the_guarded_summary(recorded):
    at = page(app(trace="sample:staging_db_constraint.json"), "chain")
    assert not at.exception
    spec = at.get("graphviz_chart")[0].proto.spec
    assert "guard restored 2 items at S3" in spec and "at S2" not in spec
    assert "guard restored 2 items at S3: performed by the guard at 2026-11-01T10:00:00+00:00" in html_of(at)


def test_the_generation_view_shows_the_performed_refresh_in_place_of_the_simulated_one(recorded):
    at = page(app(trace="sample:staging_db_constraint.json", gen="3"), "generation")
    assert not at.exception
    markup = html_of(at)
    assert "<b>guard restored 2 items at S3</b>: source refresh performed by the guard" in markup
    assert "Never run &lt;script&gt;alert(1)&lt;/script&gt; migrations" in markup and "<script>" not in markup
    assert "Refresh performed by the guard" in markup
    assert "refresh_button" not in [b.key for b in at.button]

    at.button(key="prev_gen").click().run()  # S2: the guard never ran here (another session's does not count)
    assert at.header[0].value == "S2 · summary"
    assert 'class="ci-guard"' not in html_of(at) and "refresh_button" in [b.key for b in at.button]


def test_without_the_guard_the_views_are_as_before(tmp_path, monkeypatch):
    monkeypatch.setenv("INSPECTOR_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("INSPECTOR_DB_URL", raising=False)
    at = page(app(trace="sample:staging_db_constraint.json", gen="3"), "generation")
    assert 'class="ci-guard"' not in html_of(at) and "refresh_button" in [b.key for b in at.button]
    assert "guard" not in page(at, "chain").get("graphviz_chart")[0].proto.spec
