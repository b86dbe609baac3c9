"""The real app in real Chromium: open a sample, walk to the generation view, hostile text stays text."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

from inspector import analyze, load_trace
from inspector.readers import format_names, readers
from inspector.render import CHART_BLOCK, CHART_DRAWN, CHART_SLOT_PX, HIGHLIGHT_LABELS, chain_width
from inspector.views import finding_rows
from tests.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    MemoryCeiling,
    peak_memory,
    require_chromium,
    save_screenshot,
    streamlit_process,
    streamlit_server,
    wait_until_settled,
)
from tests.helpers import REPO, SAMPLES

playwright_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    require_chromium()
    with streamlit_server(tmp_path_factory.mktemp("data")) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    with playwright_api.sync_playwright() as p:
        instance = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    tab.leaks = []  # type: ignore[attr-defined]
    local = urlparse(server).netloc

    def guard(route):
        if urlparse(route.request.url).netloc == local or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            tab.leaks.append(route.request.url)  # type: ignore[attr-defined]
            route.abort()

    tab.route("**/*", guard)
    tab.dialogs = []  # type: ignore[attr-defined]
    tab.on("dialog", lambda dialog: (tab.dialogs.append(dialog.message), dialog.dismiss()))  # type: ignore[attr-defined]
    yield tab
    context.close()


def wait_for_app(tab) -> None:
    """The script run has ended and everything it sent, charts included, is drawn (a condition, not a sleep)."""
    wait_until_settled(tab)


def test_open_a_sample_and_walk_to_the_generation_view(page, server):
    page.goto(server)
    wait_for_app(page)
    page.get_by_test_id("stSelectbox").first.click()
    page.get_by_role("option", name="anchor_decay.json").click()
    page.get_by_role("button", name="Open sample").click()
    page.get_by_text("Top findings").wait_for()
    wait_for_app(page)
    save_screenshot(page, "home")

    page.get_by_role("link", name="Chain view").click()
    page.locator('[data-testid="stGraphVizChart"] svg').wait_for()
    wait_for_app(page)
    assert page.locator('[data-testid="stGraphVizChart"] svg g.node').count() == 4
    save_screenshot(page, "chain")

    page.get_by_role("link", name="Open S3").click()
    page.locator(".ci-text:not(.ci-legend) mark.anchor-unresolved").first.wait_for()
    wait_for_app(page)
    assert "trace=sample%3Aanchor_decay.json" in page.url or "trace=sample:anchor_decay.json" in page.url
    assert page.locator(".ci-text:not(.ci-legend) mark.elision-orphaned").count() >= 5
    assert page.locator(".ci-text:not(.ci-legend) mark.claim").count() == 2
    link = page.locator(".ci-findings a[href^='#f-']").first
    target = link.get_attribute("href")[1:]
    assert page.locator(f"[id='{target}']").count() == 1  # the finding's link lands on its span
    page.locator('[data-testid="stTabs"]').evaluate("tabs => tabs.scrollIntoView({block: 'start'})")  # the text
    save_screenshot(page, "generation")

    for name, ready in (("manifest", ".ci-matrix"), ("findings", '[data-testid="stDataFrame"]')):
        page.goto(f"{server}/{name}?trace=sample:five_item_synthetic.json&gen=5")
        page.locator(ready).first.wait_for()
        wait_for_app(page)
        save_screenshot(page, name)
    assert page.leaks == [] and page.dialogs == []


def test_the_home_page_downloads_the_reports_it_builds_on_click(page, server, tmp_path):
    page.goto(f"{server}/?trace=sample:staging_db_constraint.json")
    wait_for_app(page)
    for label, name, needle in (("Report (HTML)", "compaction-report.html", "<!DOCTYPE html>"),
                                ("Report (Markdown)", "compaction-report.md", "# ")):  # fmt: skip
        with page.expect_download() as pending:
            page.get_by_role("button", name=label).click()
        download = pending.value
        saved = tmp_path / download.suggested_filename
        download.save_as(saved)
        text = saved.read_text()
        assert download.suggested_filename == name
        assert needle in text and "staging" in text and "user-statement-lost" in text, text[:300]
    assert page.leaks == []


def test_a_pasted_deep_link_reopens_the_same_view(page, server):
    page.goto(f"{server}/generation?trace=sample:staging_db_constraint.json&gen=2")
    page.get_by_role("heading", name="S2 · summary").wait_for()
    marks = page.locator(".ci-text:not(.ci-legend) mark.invariant-weakened")
    marks.first.wait_for()
    assert "running migrations against the staging database once" in "".join(marks.all_inner_texts())


def test_a_deep_link_as_a_fresh_servers_first_request_opens_that_view(browser, tmp_path):
    """No session has run app.py yet, so Streamlit still reads `pages/` as the legacy layout: the link must
    still land on the generation view, framed by the app's own navigation, with its query parameters."""
    (tmp_path / "data").mkdir()
    with streamlit_server(tmp_path / "data") as fresh:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        tab.goto(f"{fresh}/generation?trace=sample:staging_db_constraint.json&gen=2")
        tab.get_by_role("heading", name="S2 · summary").wait_for()
        assert tab.get_by_text("Refresh policies").first.is_visible()  # the declared navigation, not pages/'s
        assert "gen=2" in tab.url and "trace=sample" in tab.url
        save_screenshot(tab, "deep-link-first-request")
        context.close()


HOSTILE_PAGES = ["", "chain", "generation?gen=1", "generation?gen=2", "manifest", "findings"]


@pytest.mark.parametrize("path", HOSTILE_PAGES)
def test_hostile_text_renders_as_text(page, server, path):
    joiner = "&" if "?" in path else "?"
    page.goto(f"{server}/{path}{joiner}trace=sample:hostile_text.json")
    page.locator(".ci-caption").first.wait_for()  # every page shows the (hostile) title once loaded
    wait_for_app(page)  # everything the page sent is in the DOM: an injected script would have run by now
    assert page.title() == "Compaction Inspector"  # no injected script retitled the page
    assert page.dialogs == [] and page.leaks == []
    injected = page.evaluate(
        """() => [...document.querySelectorAll('[data-testid="stMain"] script, [data-testid="stMain"] iframe,'
                 + '[data-testid="stMain"] img, [data-testid="stMain"] style')]
                 .filter(e => /PWNED|onerror|display:none|pixel/.test(e.outerHTML)).length"""
    )
    assert injected == 0
    assert page.evaluate("getComputedStyle(document.body).display") != "none"
    if path.startswith("generation"):
        body = page.locator(".ci-text:not(.ci-quote)").last.inner_text()  # the summary, not a finding's evidence
        assert "<script>document.title='PWNED-script'</script>" in body
        assert "![tracker](http://127.0.0.1:9/pixel.png)" in body
        assert page.locator(".ci-text a[href^='javascript']").count() == 0
    save_screenshot(page, "hostile-" + (path.split("?")[0] or "home") + (path.split("=")[-1] if "=" in path else ""))


def test_refresh_from_source_button(page, server):
    page.goto(f"{server}/generation?trace=sample:five_item_synthetic.json&gen=5")
    page.get_by_role("button", name="Refresh from source").click()
    page.get_by_text("Refreshed S5: 4 corrections").first.wait_for()
    wait_for_app(page)
    assert "refresh=5" in page.url
    save_screenshot(page, "refresh")
    page.get_by_role("link", name="Chain").first.click()
    page.locator('[data-testid="stGraphVizChart"] svg').wait_for()
    wait_for_app(page)
    assert "S′5 refreshed" in page.locator('[data-testid="stGraphVizChart"] svg').text_content()
    save_screenshot(page, "chain-refreshed")


def test_an_annotation_survives_a_reload(page, server):
    page.goto(f"{server}/review?trace=sample:healthy_chain.json")
    page.get_by_text("Every finding in this queue has a review.").wait_for()  # healthy: nothing to review
    page.goto(f"{server}/review?trace=sample:staging_db_constraint.json")
    page.get_by_text("0 of 2 reviewed").wait_for()
    page.get_by_label("Comment").fill("prohibition paraphrased away")
    page.get_by_role("button", name="Save review").click()
    page.get_by_text("1 of 2 reviewed").wait_for()
    page.reload()
    page.get_by_text("1 of 2 reviewed").wait_for()
    page.goto(f"{server}/generation?trace=sample:staging_db_constraint.json&gen=2")
    mark = page.locator(".ci-text:not(.ci-legend) mark.annotated").first
    mark.wait_for()
    assert "confirmed by anonymous: prohibition paraphrased away" in mark.get_attribute("title")
    save_screenshot(page, "annotated")


def test_the_guided_story_in_the_browser(page, server):
    page.goto(f"{server}/story")
    page.get_by_text("Step 1 of 6").wait_for()
    page.locator(".ci-text mark.selected").first.wait_for()
    wait_for_app(page)
    save_screenshot(page, "story")
    for number in range(2, 7):
        page.get_by_role("button", name="Next →").click()
        page.get_by_text(f"Step {number} of 6").wait_for()
    page.get_by_role("button", name="Confirm as reviewer").click()
    page.get_by_text("Reviewed: confirmed").wait_for()
    assert page.leaks == [] and page.dialogs == []


def test_an_uploaded_zstd_bomb_is_one_error_line(page, server, tmp_path):
    from tests.test_hostile_input import zstd_bomb

    bomb = zstd_bomb(tmp_path / "bomb.jsonl.zst", gigabytes=1)  # 34 KB on disk, 1 GB on one line inside
    page.goto(server)
    wait_for_app(page)
    page.get_by_role("tab", name="Upload").click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(bomb))
    page.get_by_role("button", name="Open upload").click()
    alert = page.locator('[role="alert"].ci-error')
    alert.wait_for()
    wait_for_app(page)
    assert alert.count() == 1
    text = alert.inner_text()
    assert "\n" not in text.strip()
    assert text.strip() == ("bomb.jsonl.zst:2: line longer than 16 MB, the per-line limit for uploads "
                            "(INSPECTOR_UPLOAD_MAX_LINE_MB)")  # an upload's own bound, not the command line's
    assert page.get_by_test_id("stException").count() == 0
    save_screenshot(page, "upload-bomb")


# --- issue 28: hostile uploads are refused within the app's memory, in words that name no server folder ----------

PEAK_MB = 300
"""The issue's bound on the server's peak memory over its whole start, a hostile upload refused on the way."""


def _eval_bomb(folder: Path) -> tuple[Path, str]:
    from tests.test_hostile_input import eval_bomb

    bomb = eval_bomb(folder / "bomb.eval", gigabytes=4)  # 132 KB on disk; its one member holds 4 GB of zeros
    return bomb, "bomb.eval: samples/bomb_epoch_1.json decompresses to more than 1000 times its"


def _database_bomb(folder: Path) -> tuple[Path, str]:
    from tests.test_database_bounds import computed_column_bomb

    bomb = computed_column_bomb(folder)  # issue 28's: part.data computed as 900 MB on every read
    return bomb, f"{bomb.name}: part.data is a generated column"


@pytest.mark.parametrize("make", [_eval_bomb, _database_bomb], ids=["eval-zstd-member", "sqlite-generated-column"])
def test_a_bomb_upload_is_refused_in_flat_memory(browser, tmp_path, make):
    bomb, says = make(tmp_path)
    assert bomb.stat().st_size < 400 * 1024
    (tmp_path / "data").mkdir()
    with (streamlit_process(tmp_path / "data") as (url, pid), MemoryCeiling(pid, 4 * PEAK_MB << 20) as ceiling,
          browser.new_context(viewport={"width": 1400, "height": 1000}) as context):  # fmt: skip
        tab = context.new_page()
        tab.set_default_timeout(30_000)
        upload(tab, url, bomb)
        alert = tab.locator('[role="alert"].ci-error')
        try:
            alert.wait_for()
        except playwright_api.TimeoutError:
            pytest.fail(f"no refusal shown; the server's peak memory reached {ceiling.peak >> 20} MB"
                        f"{' and it was killed' if ceiling.killed else ''}")  # fmt: skip
        wait_for_app(tab)
        peak = peak_memory(pid)
        assert peak < PEAK_MB << 20, f"the server's peak memory reached {peak >> 20} MB"
        assert alert.count() == 1 and tab.get_by_test_id("stException").count() == 0
        assert alert.inner_text().strip().startswith(says), alert.inner_text()
        assert "/" not in alert.inner_text().split(":", 1)[0]  # the upload's name, not the server's folder
        save_screenshot(tab, f"issue28-{bomb.suffix.lstrip('.')}-bomb-refused")
        tab.goto(f"{url}/?trace=sample:staging_db_constraint.json")  # the next request is served as ever
        tab.get_by_text("Top findings").wait_for()
        wait_for_app(tab)
        assert [m.inner_text() for m in tab.get_by_test_id("stMetricValue").all()][:3] == ["native", "4", "FAIL"]
        assert peak_memory(pid) < PEAK_MB << 20, f"the server's peak memory reached {peak_memory(pid) >> 20} MB"


def test_an_uploads_skipped_line_is_named_by_the_uploads_name_not_the_servers_folder(page, server, tmp_path,
                                                                                    tmp_path_factory):  # fmt: skip
    fixture = REPO / "tests" / "fixtures" / "claude_code" / "three_compactions.jsonl"
    bad = tmp_path / "bad-line.jsonl"
    bad.write_bytes(fixture.read_bytes() + b"not json\n")
    lines = bad.read_bytes().count(b"\n")
    upload(page, server, bad)
    page.get_by_text("Top findings").wait_for()
    wait_for_app(page)
    main = page.locator('[data-testid="stMain"]').inner_text()
    assert (f"WARNING · malformed-line · trace: bad-line.jsonl:{lines}: invalid JSON (invalid literal, expected "
            "'null'); line skipped") in main  # fmt: skip
    assert "uploads" not in main and str(tmp_path_factory.getbasetemp()) not in main  # where the server keeps it
    save_screenshot(page, "issue28-upload-skipped-line")
    with page.expect_download() as pending:  # the shared report says the same
        page.get_by_role("button", name="Report (Markdown)").click()
    report = Path(pending.value.path()).read_text()
    assert f"bad-line.jsonl:{lines}: invalid JSON" in report and str(tmp_path_factory.getbasetemp()) not in report


# --- issue 19: what a newcomer trips over in the app; each case is pictured in test-artifacts/screenshots/ ---------

NOTHING_TO_CHART = REPO / "tests" / "fixtures" / "native" / "two_generations_nothing_to_chart.json"


def upload(page, server, path) -> None:  # type: ignore[no-untyped-def]
    page.goto(server)
    wait_for_app(page)
    page.get_by_role("tab", name="Upload").click()
    page.locator('[data-testid="stFileUploader"] input[type="file"]').set_input_files(str(path))
    page.get_by_role("button", name="Open upload").click()


def test_a_chain_with_nothing_to_chart_says_so_and_draws_two_modest_boxes(page, server):
    page.add_init_script(CHART_HEADINGS)  # issue 26: the sentences take their charts' places, headings included
    upload(page, server, NOTHING_TO_CHART)
    page.get_by_role("link", name="Chain view").click()
    graph = page.locator('[data-testid="stGraphVizChart"] svg')
    graph.wait_for()
    page.locator(".ci-nothing-to-chart").first.wait_for()
    wait_for_app(page)
    said = page.locator(".ci-nothing-to-chart").all_inner_texts()
    assert len(said) == 3 and all(s.startswith("Nothing to chart: ") for s in said), said
    assert any("compaction debt" in s for s in said) and any("fidelity" in s for s in said)
    assert page.locator('[data-testid="stVegaLiteChart"]').count() == 0  # no bare axes, no 0.000000 tick
    assert "0.000000" not in page.locator('[data-testid="stMain"]').inner_text()
    nodes = graph.locator("g.node")
    assert nodes.count() == 2
    labels = nodes.all_text_contents()
    assert not any("?" in label for label in labels), labels  # no "raw ?→?"
    assert graph.bounding_box()["width"] <= chain_width(2) + 1  # not two boxes stretched across the page
    assert page.evaluate("window.headingsOverNothing") == [], page.evaluate("window.chartSlotsSeen")
    save_screenshot(page, "issue19-chain-nothing-to-chart")


def test_the_highlight_class_labels_are_not_cut(page, server):
    page.goto(f"{server}/generation?trace=sample:anchor_decay.json&gen=3")
    pills = page.locator('[data-testid="stButtonGroup"] button')
    pills.first.wait_for()
    wait_for_app(page)
    assert pills.all_inner_texts() == list(HIGHLIGHT_LABELS.values())  # whole words, not "reso…", "unre…"
    cut = pills.evaluate_all("buttons => buttons.flatMap(b => [b, ...b.querySelectorAll('*')])"
                             ".filter(e => e.scrollWidth > e.clientWidth + 1).map(e => e.textContent)")  # fmt: skip
    assert cut == []
    save_screenshot(page, "issue19-generation-highlight-pills")


def test_a_pasted_sample_link_shows_that_sample_in_the_picker(page, server):
    page.goto(f"{server}/?trace=sample:staging_db_constraint.json")
    page.get_by_text("Top findings").wait_for()
    wait_for_app(page)
    assert page.get_by_role("combobox", name="Sample trace").input_value() == "staging_db_constraint.json"
    save_screenshot(page, "issue19-home-picker-follows-the-link")


def test_an_unrecognised_upload_is_a_styled_error_naming_only_the_file(page, server, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello world\nthis is not a trace\n")
    upload(page, server, notes)
    alert = page.locator('[role="alert"].ci-error')
    alert.wait_for()
    wait_for_app(page)
    text = alert.inner_text().strip()
    assert text == f"notes.txt:1: not a recognised trace format (known: {', '.join(format_names()[1:])})"
    assert alert.evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 235, 238)"  # styled, not bare
    assert "uploads" not in page.locator('[data-testid="stMain"]').inner_text()  # no server path anywhere
    save_screenshot(page, "issue19-upload-unrecognised")


def test_the_sessions_page_has_dashes_whole_counts_and_whole_rule_names(page, server):
    page.goto(f"{server}/sessions")
    chart = page.locator('[data-testid="stVegaLiteChart"]')
    chart.wait_for()
    wait_for_app(page)
    headers = page.locator('[data-testid="stDataFrame"] th').all_inner_texts()
    column = headers.index("worst rule") + 1
    cells = page.locator(f'[data-testid="stDataFrame"] td[aria-colindex="{column}"]').all_inner_texts()
    verdicts = page.locator(f'[data-testid="stDataFrame"] td[aria-colindex="{headers.index("verdict") + 1}"]')
    passing = [rule for rule, verdict in zip(cells, verdicts.all_inner_texts(), strict=True) if verdict == "pass"]
    assert passing and set(passing) == {"—"}, cells  # healthy_chain.json: no worst rule, and not "None"
    chart.scroll_into_view_if_needed()
    ticks = chart.locator(".role-axis-label text").all_text_contents()
    counts = [t for t in ticks if t.replace(",", "").isdigit() or "." in t]
    assert counts and all(t.isdigit() for t in counts), ticks  # whole findings: no 0.5 tick
    rules = [t for t in ticks if not t.isdigit()]
    assert rules and not any(t.endswith("…") for t in rules), rules
    save_screenshot(page, "issue19-sessions")


def test_a_wide_findings_table_wraps_its_messages(page, server):
    page.goto(f"{server}/findings?trace=sample:five_item_synthetic.json")
    table = page.locator('[data-testid="stDataFrame"]')
    table.wait_for()
    wait_for_app(page)
    analysis = analyze(load_trace(SAMPLES / "five_item_synthetic.json"))
    longest = max((r["message"] for r in finding_rows(analysis)), key=len)
    assert longest in table.locator("td").all_inner_texts()
    save_screenshot(page, "issue19-findings-wide-table")


# --- issue 26: what a real session showed broken in the app; each fixed view is pictured in test-artifacts/ -------

CUT = "els => els.flatMap(e => [e, ...e.querySelectorAll('*')]).filter(e => e.scrollWidth > e.clientWidth + 1)" \
      ".map(e => e.textContent)"  # fmt: skip
"""Every element under the located ones whose text is wider than its box (cut, or ended with "…")."""


def test_the_upload_label_names_every_registered_format_whole(page, server):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(server)
    wait_for_app(page)
    page.get_by_role("tab", name="Upload").click()
    label = page.locator('[data-testid="stFileUploader"] [data-testid="stWidgetLabel"]')
    label.wait_for()
    text = label.inner_text()
    assert [r.name for r in readers() if r.name not in text] == []
    assert label.evaluate_all(CUT) == []
    save_screenshot(page, "issue26-upload-label")


OPENAI_RESPONSES = REPO / "tests" / "fixtures" / "openai_responses" / "responses.jsonl"


def test_the_format_metric_shows_the_whole_format_name(page, server):
    page.set_viewport_size({"width": 1280, "height": 900})
    upload(page, server, OPENAI_RESPONSES)  # the longest format name the readers have
    page.get_by_text("Top findings").wait_for()
    wait_for_app(page)
    metrics = page.get_by_test_id("stMetric")
    assert metrics.first.get_by_test_id("stMetricValue").inner_text() == "openai-responses"
    assert metrics.evaluate_all(CUT) == []  # no value or label ends in "…"
    save_screenshot(page, "issue26-home-format-metric")


def test_every_open_link_of_the_top_findings_sits_on_its_findings_line(page, server):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server}/?trace=sample:five_item_synthetic.json")
    page.get_by_text("Top findings").wait_for()
    wait_for_app(page)
    rows = page.locator('[data-testid="stHorizontalBlock"]:has([data-testid="stPageLink"] a[href*="finding="])')
    boxes = rows.evaluate_all("""rows => rows.map(row => {
        const caption = row.querySelector('.ci-caption'), text = caption.getBoundingClientRect();
        const link = row.querySelector('[data-testid="stPageLink"] a').getBoundingClientRect();
        return {lines: Math.round(text.height / parseFloat(getComputedStyle(caption).lineHeight)),
                left: Math.round(link.left), height: Math.round(link.height), middle: (link.top + link.bottom) / 2,
                top: text.top, bottom: text.bottom};
    })""")  # fmt: skip
    lines = [b["lines"] for b in boxes]
    assert 1 in lines and max(lines) > 1, boxes  # some messages fit on one line, some wrap
    assert len({b["left"] for b in boxes}) == 1 and len({b["height"] for b in boxes}) == 1, boxes  # one column
    assert all(b["top"] <= b["middle"] <= b["bottom"] for b in boxes), boxes  # beside its finding, not below
    rows.last.scroll_into_view_if_needed()
    save_screenshot(page, "issue26-home-open-links")


LINE_BREAKS = REPO / "tests" / "fixtures" / "native" / "line_breaks_in_quoted_text.json"
BACKSLASH_ESCAPE = re.compile(r"\\[ntr]")


def test_no_finding_shows_a_literal_backslash_n(page, server):
    """A phrase quoted over a line break read 'as noted\\nabove' wherever its finding was shown."""
    upload(page, server, LINE_BREAKS)
    page.get_by_text("Top findings").wait_for()
    wait_for_app(page)
    shown = page.locator(".ci-caption").all_inner_texts()
    page.get_by_role("link", name="Generation view").click()
    findings = page.locator(".ci-findings li")
    findings.first.wait_for()
    wait_for_app(page)
    shown += findings.all_inner_texts()
    assert [text for text in shown if BACKSLASH_ESCAPE.search(text)] == []
    assert any("'as noted above' points back" in text for text in shown), shown
    save_screenshot(page, "issue26-generation-findings-one-line")
    page.get_by_role("link", name="Findings").first.click()
    table = page.locator('[data-testid="stDataFrame"]')
    table.wait_for()
    wait_for_app(page)
    cells = table.locator("td").all_inner_texts()
    assert "'as noted above' points back with no key beside it" in cells
    assert [text for text in cells if BACKSLASH_ESCAPE.search(text)] == []


def test_the_summary_text_has_the_pages_width_and_its_findings_stand_above_it(page, server):
    """Beside the findings, a real session's S1 filled 60% of the width and ran to 12,800 px."""
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server}/generation?trace=sample:anchor_decay.json&gen=3")
    summary = page.locator('[data-testid="stTabs"] .ci-text:not(.ci-legend):not(.ci-diff):not(.ci-quote)').first
    summary.wait_for()
    wait_for_app(page)
    width = page.locator('[data-testid="stMainBlockContainer"]').evaluate(  # its content box
        "c => c.clientWidth - parseFloat(getComputedStyle(c).paddingLeft) * 2"
    )
    text, findings = summary.bounding_box(), page.locator(".ci-findings").bounding_box()
    assert text["width"] >= 0.95 * width, (text, width)
    assert findings["y"] + findings["height"] <= text["y"], (findings, text)  # above the text, not beside it
    page.locator('[data-testid="stTabs"]').evaluate("tabs => tabs.scrollIntoView({block: 'start'})")
    save_screenshot(page, "issue26-generation-full-width")


def test_the_findings_table_fits_its_container_at_a_desktop_width(page, server):
    page.set_viewport_size({"width": 1280, "height": 900})
    page.goto(f"{server}/findings?trace=sample:five_item_synthetic.json")
    table = page.locator('[data-testid="stDataFrame"]')
    table.wait_for()
    wait_for_app(page)
    grid = table.locator(".dvn-scroller")  # the grid's scrolling box: its content wider than it is cut off
    overflow = grid.evaluate("g => ({content: g.scrollWidth, box: g.clientWidth})")
    assert overflow["content"] <= overflow["box"] + 1, overflow
    assert table.bounding_box()["x"] + table.bounding_box()["width"] <= 1280
    headers = table.locator("th").all_inner_texts()
    assert headers[-1] == "review" and "id" not in headers
    save_screenshot(page, "issue26-findings-table-fits")


CHART_HEADINGS = f"""
window.headingsOverNothing = []; window.chartSlotsSeen = {{}};
const started = performance.now();
function watch() {{
  for (const block of document.querySelectorAll('[class*="st-key-{CHART_BLOCK}-"]')) {{
    const heading = block.querySelector('h1, h2, h3');
    if (!heading || !heading.getBoundingClientRect().height) continue;
    const slot = block.querySelector(':scope > [data-testid="stElementContainer"]');  // the heading is in its own box
    const shown = e => !!e && e.getBoundingClientRect().height > 0;
    const height = slot ? slot.getBoundingClientRect().height : 0;
    const state = !slot ? 'none'
      : [...slot.querySelectorAll('{CHART_DRAWN}')].some(shown) ? 'drawn'
      : getComputedStyle(slot, '::after').content.includes('Drawing') && height >= {CHART_SLOT_PX} - 1 ? 'placeholder'
      : shown(slot.querySelector('[data-testid="stSkeleton"]')) ? 'skeleton'
      : 'nothing';
    window.chartSlotsSeen[state] = (window.chartSlotsSeen[state] || 0) + 1;
    if (state === 'none' || state === 'nothing') {{
      window.headingsOverNothing.push([Math.round(performance.now() - started), heading.textContent, height]);
    }}
  }}
  requestAnimationFrame(watch);
}}
requestAnimationFrame(watch);
"""
"""Checks every frame from the first: a chart heading that shows stands over its chart drawn, over the chart's
room with the placeholder in it, or (before the app's style has loaded) over Streamlit's own loading skeleton,
never over an empty or collapsed space."""


def test_a_chart_heading_never_stands_over_nothing_while_the_charts_draw(browser, server):
    context = browser.new_context(viewport={"width": 1280, "height": 1600})
    context.add_init_script(CHART_HEADINGS)
    tab = context.new_page()
    tab.set_default_timeout(30_000)
    try:
        tab.goto(f"{server}/chain?trace=sample:five_item_synthetic.json")
        wait_for_app(tab)  # every chart drawn
        charts = tab.locator('[data-testid="stVegaLiteChart"], [data-testid="stGraphVizChart"]')
        assert charts.count() == 5
        outside = charts.evaluate_all(f"""cs => cs.filter(c => !c.closest('[class*="st-key-{CHART_BLOCK}-"]'))""")
        assert outside == []  # every chart is in a block with its heading, so the watch above saw them all
        assert tab.evaluate("window.headingsOverNothing") == [], tab.evaluate("window.chartSlotsSeen")
        save_screenshot(tab, "issue26-chain-charts-drawn")
    finally:
        context.close()


CONSEQUENCE = REPO / "tests" / "fixtures" / "native" / "lost_rule_then_pushed.json"
"""S1 drops "Never push to main, …" and the next agent pushes to main (written by make_consequence.py beside it)."""


def test_the_chain_view_links_the_summary_that_lost_a_rule_to_the_push_that_broke_it(page, server):
    upload(page, server, CONSEQUENCE)
    page.get_by_role("link", name="Chain view").click()
    graph = page.locator('[data-testid="stGraphVizChart"] svg')
    graph.locator("g.edge", has_text="violated").wait_for()
    wait_for_app(page)
    edges = graph.locator("g.edge")
    titles = [t.strip() for t in edges.locator("title").all_text_contents()]
    assert sorted(titles) == ["S0->S1", "S1->C0"], titles  # the chain's step, and the link from S1 to the record
    assert edges.filter(has_text="violated").locator("title").text_content().strip() == "S1->C0"
    record = graph.locator("g.node", has_text="record turn-6")
    assert record.count() == 1 and "#6 in the log" in record.text_content()
    listed = page.locator(".ci-consequences li")
    assert listed.count() == 1
    assert listed.inner_text().startswith(
        "S1 lost “Never push to main, open a pull request for every change.” → record turn-6 (#6 in the log): "
        "violated the agent ran `git push origin main`")
    assert page.get_by_role("heading", name="What happened next").is_visible()
    save_screenshot(page, "chain-consequence")
    assert page.leaks == [] and page.dialogs == []
