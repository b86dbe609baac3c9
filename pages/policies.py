"""Refresh policies: cost against drift for no refresh, every N, and adaptive triggers on this chain."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from inspector.policies import AdaptiveWeights, compare
from pages.common import caption_for, require_analysis, show_table

analysis = require_analysis()
caption_for(analysis)
st.header("Refresh policies")
st.write(
    "Each policy re-reads source records at the generations it chooses. A refresh rebuilds the typed invariants "
    "and re-injects them as a sidecar later states carry; cost is the records and tokens re-read. "
    "The numbers are whatever this chain gives: nothing is tuned to make one policy win."
)
settings = st.columns(7)
n = settings[0].number_input("Every N", 1, 50, 2, key="policy_n")
defaults = AdaptiveWeights()
weights = AdaptiveWeights(**{
    name: settings[i + 1].number_input(name, 0.0, 10.0, getattr(defaults, name), 0.25, key=f"weight_{name}")
    for i, name in enumerate(("depth", "corrections", "authority", "volatility", "irreversible", "threshold"))
})  # fmt: skip
runs = compare(analysis, int(n), weights)

summary = pd.DataFrame(
    [{"policy": r.policy, "refreshes": r.refreshes, "records read": r.records_read, "tokens read": r.tokens_read,
      "mean source fidelity": r.mean_source_fidelity, "drift": r.drift,
      "silent drift at": ", ".join(f"S{s.generation}" for s in r.steps if s.silent_drift) or "-"} for r in runs]
)  # fmt: skip
show_table(summary, key="policy_summary")

steps = pd.DataFrame(
    [{"policy": r.policy, "generation": s.generation, "refreshed": s.refreshed, "records read": s.records_read,
      "tokens read": s.tokens_read, "parent→child": s.local_fidelity, "source→current": s.source_fidelity,
      "silent drift": s.silent_drift, "adaptive score": s.score} for r in runs for s in r.steps]
)  # fmt: skip
left, right = st.columns(2)
with left:
    st.subheader("Cost against drift")
    st.altair_chart(
        alt.Chart(summary.dropna(subset=["drift"])).mark_circle(size=160).encode(
            x=alt.X("tokens read:Q", title="tokens re-read (cost)"),
            y=alt.Y("drift:Q", title="drift (1 − mean source fidelity)"),
            color="policy:N", tooltip=["policy", "refreshes", "tokens read", "drift"],
        ).properties(height=260),
        width="stretch",
    )  # fmt: skip
with right:
    st.subheader("Fidelity per generation")
    long = steps.melt(id_vars=["policy", "generation", "silent drift"], value_vars=["parent→child", "source→current"],
                      var_name="measure").dropna(subset=["value"])  # fmt: skip
    lines = alt.Chart(long).mark_line(point=True).encode(
        x="generation:O", y=alt.Y("value:Q", scale=alt.Scale(domain=[0, 1])), color="policy:N", strokeDash="measure:N"
    )
    marks = alt.Chart(long[(long["silent drift"]) & (long["measure"] == "source→current")]).mark_point(
        shape="triangle-down", size=140, color="#c62828", filled=True
    ).encode(x="generation:O", y="value:Q", tooltip=["policy", "generation"])
    st.altair_chart((lines + marks).properties(height=260), width="stretch")
    st.caption("Red triangles: silent drift, as the findings report it — source→current fell from its peak by the "
               "configured drop while every step since kept parent→child fidelity high.")
st.subheader("Per generation")
show_table(steps, key="policy_steps")
