"""Chain view: S₀ → … → Sₙ with per-node health, and charts across generations."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from inspector.render import chain_dot
from inspector.views import debt_comparison, generation_rows, survival_by_kind
from pages.common import caption_for, guard_marks_of, refreshed_branch, require_analysis, show_text, state_params

analysis = require_analysis()
caption_for(analysis)
st.header("Chain")
branch = refreshed_branch(analysis)
guard = guard_marks_of(analysis)
st.graphviz_chart(
    chain_dot(analysis, (branch[0], len(branch[1].corrections), branch[1].records_read) if branch else None, guard),
    width="stretch",
)
for mark in guard.values():
    show_text(f"{mark.label}: performed by the guard at {mark.latest.created_at}", css_class="ci-caption")
if branch is not None:
    k, result, refreshed = branch
    st.subheader(f"What the refresh at S{k} would have cleared")
    st.dataframe(pd.DataFrame(debt_comparison(analysis, refreshed)), hide_index=True, key="debt_comparison")

rows = pd.DataFrame(generation_rows(analysis))
links = st.columns(min(len(rows), 8))
for column, row in zip(links, rows.itertuples(), strict=False):
    column.page_link("pages/generation.py", label=f"Open {row.label}", query_params=state_params(gen=row.generation))

left, right = st.columns(2)
with left:
    st.subheader("Invariant survival by kind")
    survival = pd.DataFrame(survival_by_kind(analysis))
    if survival.empty:
        st.write("No invariants in this trace.")
    else:
        st.altair_chart(
            alt.Chart(survival).mark_bar().encode(
                x=alt.X("generation:O", title="generation"),
                y=alt.Y("sum(count):Q", title="invariants"),
                color=alt.Color("status:N", scale=alt.Scale(
                    domain=["verbatim", "paraphrased", "weakened", "lost", "not-yet-introduced", "retired", "unknown"],
                    range=["#2e7d32", "#81c784", "#ef6c00", "#c62828", "#cfd8dc", "#b0bec5", "#eceff1"])),
                tooltip=["kind", "status", "count"],
            ).properties(width=130, height=100).facet(facet=alt.Facet("kind:N", title=None), columns=2)
        )  # fmt: skip
    st.subheader("Compaction debt")
    debt = rows.melt(id_vars=["generation"], value_vars=["max_depth", "mean_depth"], var_name="measure")
    st.altair_chart(
        alt.Chart(debt.dropna()).mark_line(point=True).encode(
            x="generation:O", y=alt.Y("value:Q", title="summaries since source"), color="measure:N"
        ).properties(height=220),
        width="stretch",
    )  # fmt: skip
with right:
    st.subheader("Anchor density")
    st.altair_chart(
        alt.Chart(rows.dropna(subset=["anchor_density"])).mark_line(point=True).encode(
            x="generation:O", y=alt.Y("anchor_density:Q", scale=alt.Scale(domain=[0, 1]), title="density")
        ).properties(height=220),
        width="stretch",
    )  # fmt: skip
    st.subheader("Fidelity: parent→child vs source→current")
    fidelity = rows.melt(id_vars=["generation"], value_vars=["local_fidelity", "source_fidelity"], var_name="measure")
    st.altair_chart(
        alt.Chart(fidelity.dropna()).mark_line(point=True).encode(
            x="generation:O", y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1])), color="measure:N"
        ).properties(height=220),
        width="stretch",
    )  # fmt: skip

if analysis.trace.events:
    st.subheader("Events on the chain")
    st.dataframe(
        pd.DataFrame([{"after": f"S{e.after_generation}", "kind": e.kind, "description": e.description}
                      for e in analysis.trace.events]),
        hide_index=True,
    )  # fmt: skip
