"""Review queue: walk the unreviewed findings in order, label each, and export the review."""

from __future__ import annotations

import streamlit as st

from inspector.model import finding_id
from inspector.render import highlight_html, highlights
from inspector.review import markdown_report, review_queue
from inspector.store import Target
from pages.common import caption_for, require_analysis, show_text, state_params, store, trace_hash
from pages.review_widgets import annotate_form, trace_annotations

CONTEXT = 400
"""Characters of text shown either side of a finding's span."""

analysis = require_analysis()
caption_for(analysis)
st.header("Review queue")
rows = analysis.findings
filters = st.columns(2)
rules = filters[0].multiselect("Rule", sorted({f.rule for f in rows}), key="queue_rules")
severities = filters[1].multiselect("Severity", ["error", "warning", "info"], key="queue_severities")
reviews = trace_annotations()
queue = review_queue(analysis, reviews, rules, severities)
st.progress(len(queue.reviewed) / len(queue.findings) if queue.findings else 1.0, text=queue.progress)

finding = queue.next
if finding is None:
    st.success("Every finding in this queue has a review.")
else:
    k = finding.generation
    show_text(f"{finding.severity.value.upper()} · {finding.rule} · S{k}: {finding.message}", "div",
              "ci-error" if finding.severity.value == "error" else "ci-caption")  # fmt: skip
    text = analysis.trace.generations[k].text if k is not None else None
    if text and finding.start is not None and finding.end is not None:
        window = (max(0, finding.start - CONTEXT), min(len(text), finding.end + CONTEXT))
        st.html(highlight_html(text, highlights(analysis, k), window=window, selected=(finding.start, finding.end)))
    if k is not None:
        st.page_link("pages/generation.py", label=f"Open S{k} in the generation view",
                     query_params=state_params(gen=k, finding=finding_id(finding)))  # fmt: skip
    quoted = text[finding.start : finding.end] if text and finding.start is not None else None
    annotate_form(Target("finding", finding_id=finding_id(finding), rule=finding.rule, generation=k,
                         start=finding.start, end=finding.end, quoted_text=quoted),
                  "queue", trace_label=analysis.trace.title or analysis.trace.id)  # fmt: skip

st.subheader("Export this trace's review")
digest = trace_hash() or ""
columns = st.columns(3)
columns[0].download_button("CSV", store().annotations.export_csv(digest), file_name="annotations.csv",
                           mime="text/csv", key="export_csv")  # fmt: skip
columns[1].download_button("JSONL", store().annotations.export_jsonl(digest), file_name="annotations.jsonl",
                           mime="application/x-ndjson", key="export_jsonl")  # fmt: skip
columns[2].download_button("Markdown report", markdown_report(analysis, reviews), file_name="review.md",
                           mime="text/markdown", key="export_md")  # fmt: skip
