"""Guided story for demos: a prohibition kept, paraphrased, lost, proposed, refreshed and confirmed."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from inspector import analyze, load_trace
from inspector.library import TraceRef, real_sessions
from inspector.model import finding_id
from inspector.refresh import refresh_at
from inspector.render import chain_dot, highlight_html, highlights, matrix_html, real_consequence_html
from inspector.review import latest_by_finding
from inspector.store import Target
from inspector.story import SAMPLE, followed, story
from inspector.views import ConsequenceLink, correction_rows, first_consequence, invariant_matrix, lineage
from pages.common import open_analysis, reviewer_name, set_state, show_table, show_text, store, sync_state, trace_hash
from pages.review_widgets import trace_annotations


@st.cache_resource(show_spinner="Reading a real session…")
def real_consequence(sessions: tuple[tuple[str, int, int], ...]) -> tuple[str, ConsequenceLink] | None:
    """Keyed by each session's path, size and mtime; only the quote is kept, not the sessions' analyses."""
    return first_consequence((Path(path).name, lambda path=path: analyze(load_trace(path))) for path, _, _ in sessions)


sync_state()
if st.session_state.get("trace") != f"sample:{SAMPLE}":
    set_state(trace=TraceRef("sample", SAMPLE), gen=None, inv=None, finding=None, refresh=None)
analysis = open_analysis()
if analysis is None:
    st.stop()
steps = story(analysis)
try:
    number = min(max(int(st.query_params.get("step", "1")), 1), len(steps))
except ValueError:
    number = 1
st.query_params["step"] = str(number)
step = steps[number - 1]

st.header("The story of one forgotten constraint")
st.progress(number / len(steps), text=f"Step {number} of {len(steps)}")
controls = st.columns([1, 1, 6])
if controls[0].button("← Back", disabled=number == 1, key="story_back"):
    st.query_params["step"] = str(number - 1)
    st.rerun()
if controls[1].button("Next →", disabled=number == len(steps), key="story_next", type="primary"):
    st.query_params["step"] = str(number + 1)
    st.rerun()

st.subheader(step.title)
show_text(step.narration, "div", "ci-text ci-narration")
st.html('<style>.ci-narration{white-space:normal;font-family:inherit;font-size:1rem;background:#f5f9ff}</style>')

track = followed(analysis)
if step.view == "generation" and step.generation is not None:
    text = analysis.trace.generations[step.generation].text or ""
    st.caption(f"Generation view · S{step.generation}")
    st.html(highlight_html(text, highlights(analysis, step.generation), selected=step.focus))
    if step.next_act:  # what the log shows an agent then did, in a real session when one is at hand
        found = real_consequence(tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in real_sessions()))
        st.html(real_consequence_html(*(found or (None, None))))
elif step.view == "manifest":
    st.caption("Manifest view")
    st.html(matrix_html(invariant_matrix(analysis), len(analysis.trace.generations)))
    show_table(pd.DataFrame([{"generation": f"S{s.generation}", "status": s.status,
                              "first break": "◀" if s.first_break else "", "wording": s.wording or ""}
                             for s in lineage(track)]))  # fmt: skip
elif step.view == "refresh" and step.generation is not None:
    result = refresh_at(analysis, step.generation)
    st.caption(f"Refresh from source at S{step.generation} · chain view")
    st.graphviz_chart(chain_dot(analysis, (step.generation, len(result.corrections), result.records_read)))
    show_table(pd.DataFrame(correction_rows(result.corrections)))
elif step.view == "review":
    reviews = latest_by_finding(trace_annotations())
    existing = reviews.get(step.finding or "")
    finding = next(f for f in analysis.findings if finding_id(f) == step.finding)
    show_text(f"{finding.severity.value} · {finding.rule} · S{finding.generation}: {finding.message}", "div",
              "ci-error")  # fmt: skip
    if existing is not None:
        show_text(f"Reviewed: {existing.label} by {existing.current.reviewer} — {existing.current.comment}", "div",
                  "ci-caption")  # fmt: skip
    elif st.button("Confirm as reviewer", key="story_confirm", type="primary"):
        store().annotations.add(trace_hash() or "", Target("finding", finding_id=step.finding, rule=finding.rule,
                                                           generation=finding.generation),
                                "confirmed", "Constraint lost at compaction; restored by source refresh.",
                                reviewer_name(), trace_label=analysis.trace.title or analysis.trace.id)  # fmt: skip
        st.rerun()
