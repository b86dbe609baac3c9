"""Rendering is tested as text: exact HTML for small inputs, hostile text included."""

import re

from inspector import analyze, load_trace
from inspector.model import Invariant, InvariantKind
from inspector.render import (
    DiffOp,
    Highlight,
    chain_dot,
    chain_width,
    diff_html,
    findings_html,
    highlight_html,
    highlights,
    matrix_html,
    token_change,
    word_diff,
)
from inspector.views import invariant_matrix
from tests.helpers import SAMPLES, MarkupCollector, chain, record

HOSTILE = "<script>alert(1)</script> <img src=x onerror=alert(2)> \"q\" & 'a'"


def test_plain_text_is_escaped_and_wrapped():
    assert highlight_html(HOSTILE, []) == (
        '<div class="ci-text">&lt;script&gt;alert(1)&lt;/script&gt; &lt;img src=x onerror=alert(2)&gt; '
        "&quot;q&quot; &amp; &#x27;a&#x27;</div>"
    )


def test_marks_escape_both_text_and_tooltip():
    html = highlight_html("see <b>x</b>", [Highlight(4, 12, "anchor-unresolved", 'why "<i>"')])
    assert html == (
        '<div class="ci-text">see <mark class="anchor-unresolved" title="why &quot;&lt;i&gt;&quot;">'
        "&lt;b&gt;x&lt;/b&gt;</mark></div>"
    )


def test_overlapping_marks_split_into_segments_with_both_classes():
    marks = [Highlight(0, 6, "invariant-kept", "k"), Highlight(4, 9, "anchor-resolved", "r")]
    assert highlight_html("abcdefghij", marks) == (
        '<div class="ci-text"><mark class="invariant-kept" title="k">abcd</mark>'
        '<mark class="anchor-resolved invariant-kept" title="k; r">ef</mark>'
        '<mark class="anchor-resolved" title="r">ghi</mark>j</div>'
    )


def test_disabled_classes_are_not_marked():
    marks = [Highlight(0, 3, "claim", "c"), Highlight(4, 7, "anchor-resolved", "r")]
    assert highlight_html("abc def", marks, enabled=["anchor-resolved"]) == (
        '<div class="ci-text">abc <mark class="anchor-resolved" title="r">def</mark></div>'
    )


def test_window_selected_span_and_targets():
    html = highlight_html("0123456789", [], window=(2, 8), selected=(4, 6), targets={4: ["f-abc"], 9: ["f-out"]})
    assert html == (
        '<div class="ci-text">23<a id="f-abc"></a><mark class="selected" title="" id="selected">45</mark>67</div>'
    )


def test_only_our_own_markup_survives_on_a_hostile_sample():
    analysis = analyze(load_trace(SAMPLES / "hostile_text.json"))
    for k, generation in enumerate(analysis.trace.generations):
        markup = highlight_html(generation.text or "", highlights(analysis, k)) + findings_html(analysis, k)
        parser = MarkupCollector(markup)
        assert parser.tags <= {"div", "mark", "a", "ol", "li", "span", "code", "p"}, parser.tags
        assert parser.attributes <= {"class", "title", "id", "href"}, parser.attributes
        assert all(href.startswith("#f-") for href in parser.urls)
        assert "<script>document.title='PWNED-script'</script>" in "".join(parser.text)  # shown as text


def test_word_diff_is_word_precise_and_reconstructs_both_sides():
    parent = "Keep this line.\nNever run migrations on staging.\nTail stays."
    child = "Keep this line.\nStaging access was discussed.\nTail stays."
    ops = word_diff(parent, child)
    assert "".join(o.text for o in ops if o.tag != "insert") == parent
    assert "".join(o.text for o in ops if o.tag != "delete") == child
    assert ops[0] == DiffOp("equal", "Keep this line.\n")
    assert DiffOp("delete", "Never run migrations on staging") in ops


def test_diff_html_escapes():
    assert diff_html([DiffOp("equal", "<a>"), DiffOp("delete", "&"), DiffOp("insert", "<b>")]) == (
        '<div class="ci-text ci-diff">&lt;a&gt;<del>&amp;</del><ins>&lt;b&gt;</ins></div>'
    )


def test_chain_dot_has_a_node_per_generation_and_escapes_labels():
    analysis = analyze(load_trace(SAMPLES / "hostile_text.json"))
    dot = chain_dot(analysis)
    assert [line.split()[0] for line in dot.splitlines() if re.match(r"\s+S\d+ \[", line)] == ["S0", "S1", "S2"]
    assert "S0 -> S1;" in dot and "S1 -> S2;" in dot
    assert "<" not in dot.split("digraph", 1)[1] and "E0 [label=" in dot  # the event label is neutralised


def test_matrix_html_shows_each_status_in_its_cell():
    analysis = analyze(load_trace(SAMPLES / "staging_db_constraint.json"))
    html = matrix_html(invariant_matrix(analysis), 4)
    assert html.count("<tr>") == 2
    assert '<td class="ci-st-weakened">weakened</td>' in html


def test_matrix_html_escapes_invariant_text():
    rule = "Never paste <script>alert(1)</script> & <img src=x onerror=alert(2)> into the chat."
    trace = chain([record("u:1", rule)], rule, invariants=[Invariant("<b>id</b>", InvariantKind.USER_CONSTRAINT, rule)])
    html = matrix_html(invariant_matrix(analyze(trace)), 2)
    assert MarkupCollector(html).tags == {"div", "table", "thead", "tbody", "tr", "th", "td", "code"}
    assert "<td>Never paste &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(2)&gt;" in html
    assert "<code>&lt;b&gt;id&lt;/b&gt;</code>" in html


def test_paginated_diff_parts_rebuild_the_script():
    from inspector.render import paginate_diff

    ops = [DiffOp("equal", "a" * 25), DiffOp("delete", "b" * 10), DiffOp("insert", "c" * 7)]
    parts = paginate_diff(ops, 10)
    assert [sum(len(o.text) for o in part) for part in parts] == [10, 10, 10, 10, 2]
    assert "".join(o.text for part in parts for o in part) == "a" * 25 + "b" * 10 + "c" * 7
    assert parts[2] == [DiffOp("equal", "aaaaa"), DiffOp("delete", "bbbbb")]


def test_the_raw_context_shows_where_each_kept_invariant_sits():
    """S0's spans are found only when S0 is shown; the highlight must still land on the user's words."""
    analysis = analyze(load_trace(SAMPLES / "staging_db_constraint.json"))
    text = analysis.trace.generations[0].text or ""
    kept = [text[m.start : m.end] for m in highlights(analysis, 0) if m.css_class == "invariant-kept"]
    assert any("Never run migrations against the staging database" in span for span in kept), kept


def test_a_chain_node_leaves_out_token_counts_the_log_did_not_record():
    assert token_change(168_000, 9_800) == "168k→9.8k"
    assert token_change(120_000, None) == "from 120k tokens"
    assert token_change(None, 900) == "to 900 tokens"
    assert token_change(None, None) == ""
    trace = chain([record("u:1", "Never deploy on Fridays.")], "Never deploy on Fridays.")  # no token counts
    dot = chain_dot(analyze(trace))
    assert "?" not in dot and "raw\\ndensity" in dot and "summary\\ndensity" in dot


def test_a_short_chain_is_drawn_at_its_own_size():
    assert chain_width(2) < chain_width(4) < chain_width(8)
    assert chain_width(2) <= 500  # two modest boxes, not two stretched across a 1400 px page


def _highlight_by_testing_every_mark(text, marks, enabled=None, *, window=None, selected=None, targets=None):
    """`highlight_html` as it was before it walked the marks open and closed: every mark tested against every
    segment. The reference the walk must equal byte for byte."""
    import html as html_module

    from inspector.render import HIGHLIGHT_CLASSES, attribute_html, text_html

    allowed = set(HIGHLIGHT_CLASSES if enabled is None else enabled)
    lo, hi = window if window is not None else (0, len(text))
    active = [m for m in marks if m.css_class in allowed and m.end > lo and m.start < hi and m.end > m.start]
    cuts = {lo, hi}
    for m in active:
        cuts.update((max(lo, m.start), min(hi, m.end)))
    if selected is not None:
        cuts.update(p for p in selected if lo <= p <= hi)
    targets = {p: ids for p, ids in (targets or {}).items() if lo <= p < hi}
    cuts.update(targets)
    points = sorted(cuts)
    out = []
    for start, end in zip(points, points[1:], strict=False):
        out.extend(f'<a id="{html_module.escape(ident)}"></a>' for ident in targets.get(start, ()))
        segment = text_html(text[start:end])
        covering = [m for m in active if m.start <= start and end <= m.end]
        is_selected = selected is not None and selected[0] <= start and end <= selected[1]
        if not covering and not is_selected:
            out.append(segment)
            continue
        labels = "".join(f'<span class="ci-author">{html_module.escape(m.label)}</span>' for m in covering
                         if m.label and m.start == start)  # fmt: skip
        segment = labels + segment
        classes = sorted({m.css_class for m in covering} | ({"selected"} if is_selected else set()))
        title = "; ".join(dict.fromkeys(m.why for m in covering))
        ident = ' id="selected"' if is_selected and start == selected[0] else ""
        out.append(f'<mark class="{" ".join(classes)}" title="{attribute_html(title)}"{ident}>{segment}</mark>')
    return f'<div class="ci-text">{"".join(out)}</div>'


def test_walking_marks_open_and_closed_gives_what_testing_every_mark_gave():
    import random

    from inspector.render import HIGHLIGHT_CLASSES

    rng = random.Random(11)
    classes = [*HIGHLIGHT_CLASSES, "not-a-class"]
    text = "".join(rng.choice("ab <&\"'\n") for _ in range(120))
    for _ in range(1500):
        marks = []
        for _ in range(rng.randint(0, 12)):
            start = rng.randint(-5, 125)
            marks.append(Highlight(start, start + rng.randint(-3, 60), rng.choice(classes), rng.choice("wxyz"),
                                   rng.choice([None, "", "pasted", "tool output"])))  # fmt: skip
        options = {}
        if rng.random() < 0.4:
            lo = rng.randint(0, 100)
            options["window"] = (lo, lo + rng.randint(0, 40))
        if rng.random() < 0.3:
            first = rng.randint(0, 110)
            options["selected"] = (first, first + rng.randint(0, 20))
        if rng.random() < 0.3:
            options["targets"] = {rng.randint(0, 125): [f"f-{n}"] for n in range(rng.randint(1, 4))}
        enabled = rng.sample(classes, rng.randint(1, len(classes))) if rng.random() < 0.3 else None
        assert highlight_html(text, marks, enabled, **options) == _highlight_by_testing_every_mark(
            text, marks, enabled, **options), (marks, options)  # fmt: skip


def test_text_left_as_it_is_is_text_that_escaping_would_not_change():
    import html as html_module
    import random

    from inspector.inert import HIDDEN
    from inspector.render import text_html

    rng = random.Random(5)
    alphabet = "ab \n<>&\"'é→\u202e\u200b\u2066\ufeff\U000e0041"
    for _ in range(5000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        escaped = text_html(text)
        assert escaped == HIDDEN.sub(lambda m: text_html(m.group()), html_module.escape(text)), repr(text)
        assert (escaped == text) == (not HIDDEN.search(text) and html_module.escape(text) == text), repr(text)
