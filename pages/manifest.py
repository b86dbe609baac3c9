"""Manifest view: invariant statuses across the chain, per-generation changes, one invariant's lineage."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from inspector.render import matrix_html
from inspector.store import Target
from inspector.views import annotation_rows, invariant_matrix, lineage, manifest_diff
from pages.common import (
    caption_for,
    current_generation,
    require_analysis,
    set_state,
    show_raw_record,
    show_table,
    show_text,
)
from pages.review_widgets import annotate_form, trace_annotations

analysis = require_analysis()
caption_for(analysis)
tracks = analysis.facts.invariants
st.header("Manifest")
if not tracks:
    st.info("This trace has no invariants: no declared manifest and nothing the extraction rules recognise.")
    st.stop()

st.subheader("Invariants × generations")
st.html(matrix_html(invariant_matrix(analysis), len(analysis.trace.generations)))

st.subheader("What each generation did to the manifest")
labels = [g.label for g in analysis.trace.generations]
k = current_generation(analysis)
picked = st.selectbox("Generation", labels, index=k, key="manifest_gen")
changes = manifest_diff(analysis, labels.index(picked))
if changes:
    show_table(pd.DataFrame([{"change": c.change, "invariant": c.invariant_id, "kind": c.kind, "before": c.before,
                              "after": c.after, "text": c.text} for c in changes]))  # fmt: skip
else:
    st.write("No change to the manifest in this generation.")

st.subheader("Lineage of one invariant")
ids = [t.invariant.id for t in tracks]
wanted = st.session_state.get("inv")
index = ids.index(wanted) if wanted in ids else 0
chosen = st.selectbox("Invariant", ids, index=index, key=f"inv_pick_{index}")
if chosen != wanted:
    set_state(inv=chosen)
track = tracks[ids.index(chosen)]
show_text(f"{track.invariant.kind.value}: {track.invariant.text}", "div", "ci-text")
source = analysis.trace.source(track.invariant.source_key) if track.invariant.source_key else None
if source is not None:
    show_text(f"Source record {source.namespace}:{source.key} — {source.text}", "div", "ci-caption")
    show_raw_record(analysis.trace, source.key)
steps = lineage(track)
broken = next((s for s in steps if s.first_break), None)
if broken is not None:
    show_text(f"First weakened or lost in S{broken.generation} ({broken.status}).", "div", "ci-error")
show_table(pd.DataFrame([{"generation": f"S{s.generation}", "status": s.status,
                          "first break": "◀" if s.first_break else "", "wording": s.wording or "", "why": s.reason,
                          "depth": s.depth} for s in steps]))  # fmt: skip

st.subheader("Review this invariant")
notes = [a for a in trace_annotations() if a.target.kind == "invariant" and a.target.invariant_id == chosen]
if notes:
    show_table(pd.DataFrame(annotation_rows(notes)), key="invariant_annotations")
label, latest = analysis.trace.title or analysis.trace.id, notes[-1] if notes else None
annotate_form(Target("invariant", invariant_id=chosen), "invariant", trace_label=label, existing=latest)
