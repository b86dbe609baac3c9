"""Chain view: S₀ → … → Sₙ with per-node health, and charts across generations."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import altair as alt
import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from inspector.render import chain_dot, chain_width, chart_block_key, consequences_html, guard_list_html
from inspector.views import (
    BEFORE,
    ChainChart,
    chain_chart,
    consequence_links,
    debt_comparison,
    generation_rows,
    survival_by_kind,
)
from pages.common import (
    caption_for,
    guard_marks_of,
    refreshed_branch,
    require_analysis,
    show_table,
    show_text,
    state_params,
)


@contextmanager
def chart_block(title: str, heading: str = "subheader", **container: Any) -> Iterator[DeltaGenerator]:
    """A heading over what the body draws (a chart, or the sentence standing in for one). Charts draw a second or
    two after the page is idle and their headings stood over nothing: the heading is sent after the body, so it
    never reaches the browser before its chart's slot, which keeps its room with a placeholder until the chart is
    drawn (render.CHART_SLOT_PX). It goes into a container of its own made first: filling an `st.empty` would not
    do, since Streamlit's queue sends a later delta to the same place where the first one stood."""
    block = st.container(key=chart_block_key(title), **container)
    head = block.container()
    with block:
        yield block
    getattr(head, heading)(title)


analysis = require_analysis()
caption_for(analysis)
branch = refreshed_branch(analysis)
guard = guard_marks_of(analysis)
with chart_block("Chain", heading="header", width=chain_width(len(analysis.trace.generations))) as drawing:
    st.graphviz_chart(
        chain_dot(analysis, (branch[0], len(branch[1].corrections), branch[1].records_read) if branch else None,
                  guard),
        width="stretch",
    )  # fmt: skip
for mark in guard.values():
    show_text(f"{mark.label}: performed by the guard at {mark.latest.created_at}", css_class="ci-caption")
listed = guard_marks_of(analysis, BEFORE)
if listed:  # what the compactor was asked to keep, beside the chain of what it kept
    st.subheader("What the guard asked each compactor to keep")
    for mark in listed.values():
        st.html(guard_list_html(mark))
links = consequence_links(analysis)
if links:  # drawn as edges on the graph; listed here in full, each from the summary that lost it to the later record
    st.subheader("What happened next")
    st.html(consequences_html(links))
if branch is not None:
    k, result, refreshed = branch
    st.subheader(f"What the refresh at S{k} would have cleared")
    show_table(pd.DataFrame(debt_comparison(analysis, refreshed)), key="debt_comparison")

generations = generation_rows(analysis)
with drawing:  # each link under its node: the links share the graph's width
    for column, row in zip(st.columns(min(len(generations), 8)), generations, strict=False):
        column.page_link("pages/generation.py", label=f"Open {row['label']}",
                         query_params=state_params(gen=row["generation"]))  # fmt: skip


def line_chart(title: str, chart: ChainChart, axis: str, unit_interval: bool = False) -> None:
    """One chart across the chain, or the sentence that says why there is nothing to draw."""
    with chart_block(title):
        if not chart.points:
            show_text(chart.nothing_to_chart, css_class="ci-caption ci-nothing-to-chart")
            return
        scale = alt.Scale(domain=[0, 1]) if unit_interval else alt.Scale(zero=True)
        measures = {point["measure"] for point in chart.points}
        st.altair_chart(
            alt.Chart(pd.DataFrame(chart.points)).mark_line(point=True).encode(
                x=alt.X("generation:O", title="generation"), y=alt.Y("value:Q", scale=scale, title=axis),
                color=alt.Color("measure:N", title=None, legend=alt.Legend() if len(measures) > 1 else None),
            ).properties(height=220),
            width="stretch",
        )  # fmt: skip


left, right = st.columns(2)
with left:
    survival = pd.DataFrame(survival_by_kind(analysis))
    if survival.empty:
        st.subheader("Invariant survival by kind")
        st.write("No invariants in this trace.")
    else:
        with chart_block("Invariant survival by kind"):
            st.altair_chart(
                alt.Chart(survival).mark_bar().encode(
                    x=alt.X("generation:O", title="generation"),
                    y=alt.Y("sum(count):Q", title="invariants", axis=alt.Axis(tickMinStep=1, format="d")),
                    color=alt.Color("status:N", scale=alt.Scale(
                        domain=["verbatim", "paraphrased", "weakened", "lost", "not-yet-introduced", "retired",
                                "unknown"],
                        range=["#2e7d32", "#81c784", "#ef6c00", "#c62828", "#cfd8dc", "#b0bec5", "#eceff1"])),
                    tooltip=["kind", "status", "count"],
                ).properties(width=130, height=100).facet(facet=alt.Facet("kind:N", title=None), columns=2)
            )  # fmt: skip
    line_chart("Compaction debt", chain_chart(generations, "debt"), "summaries since source")
with right:
    line_chart("Anchor density", chain_chart(generations, "density"), "density", unit_interval=True)
    line_chart("Fidelity: parent→child vs source→current", chain_chart(generations, "fidelity"), "fidelity",
               unit_interval=True)  # fmt: skip

if analysis.trace.events:
    st.subheader("Events on the chain")
    show_table(pd.DataFrame([{"after": f"S{e.after_generation}", "kind": e.kind, "description": e.description}
                             for e in analysis.trace.events]))  # fmt: skip
