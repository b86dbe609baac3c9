"""Findings view: every finding, filterable; selecting one opens the generation view at its span."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from inspector.render import evidence_html
from inspector.review import latest_by_finding
from inspector.store import Target
from inspector.views import find_finding, finding_rows_with_source
from pages.common import caption_for, require_analysis, show_raw_record, show_table, state_params
from pages.review_widgets import annotate_form, trace_annotations

analysis = require_analysis()
caption_for(analysis)
st.header("Findings")
rows = pd.DataFrame(finding_rows_with_source(analysis))
reviews = latest_by_finding(trace_annotations())
if not rows.empty:
    rows["review"] = [reviews[i].label if i in reviews else "" for i in rows["id"]]
if rows.empty:
    st.success("No findings.")
    st.stop()

filters = st.columns(3)
rules = filters[0].multiselect("Rule", sorted(rows["rule"].unique()), key="filter_rule")
severities = filters[1].multiselect("Severity", ["error", "warning", "info"], key="filter_severity")
generations = filters[2].multiselect("Generation", sorted(rows["generation"].dropna().unique().astype(int)),
                                     key="filter_generation")  # fmt: skip
shown = rows
if rules:
    shown = shown[shown["rule"].isin(rules)]
if severities:
    shown = shown[shown["severity"].isin(severities)]
if generations:
    shown = shown[shown["generation"].isin(generations)]
st.write(f"{len(shown)} of {len(rows)} findings")

# The log record's key and quote, and the finding's id, stay in the frame but out of view: eight columns do not fit
# the main area at 1280 px, so the table was cut off on the right. A picked finding shows its record below.
event = show_table(
    shown[["generation", "severity", "rule", "message", "source key", "source quote", "review", "id"]],
    column_order=["generation", "severity", "rule", "message", "review"],
    on_select="rerun",
    selection_mode="single-row",
    key="findings_table",
)


def open_finding(finding_id: str) -> None:
    row = rows[rows["id"] == finding_id].iloc[0]
    generation = None if pd.isna(row["generation"]) else int(row["generation"])
    st.switch_page("pages/generation.py", query_params=state_params(gen=generation, finding=finding_id))


picked_rows = event.selection.rows if event is not None else []
if picked_rows:
    open_finding(shown.iloc[picked_rows[0]]["id"])

named = {row.id: f"{row.rule}: {row.message}" for row in rows.itertuples()}  # the table no longer shows the id
choice = st.selectbox("Or pick a finding to open", shown["id"].tolist(), format_func=named.__getitem__,
                      key="finding_pick")  # fmt: skip
if st.button("Open in generation view", key="open_finding") and choice:
    open_finding(choice)

if choice:
    picked = find_finding(analysis, choice)
    if picked is not None:
        st.subheader("Evidence")
        st.html(evidence_html(picked))
        if picked.source is not None:
            show_raw_record(analysis.trace, picked.source.key)
    st.subheader("Review the picked finding")
    row = rows[rows["id"] == choice].iloc[0]
    generation = None if pd.isna(row["generation"]) else int(row["generation"])
    text = analysis.trace.generations[generation].text if generation is not None else None
    start = None if pd.isna(row["start"]) else int(row["start"])
    end = None if pd.isna(row["end"]) else int(row["end"])
    annotate_form(
        Target("finding", finding_id=choice, rule=row["rule"], generation=generation, start=start, end=end,
               quoted_text=text[start:end] if text is not None and start is not None else None),
        "findings_page", trace_label=analysis.trace.title or analysis.trace.id, existing=reviews.get(choice),
    )  # fmt: skip
