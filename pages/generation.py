"""Generation view: the text of Sₖ with highlights, its findings, and a word diff against its parent.

The page lays the view out; each part is a function in `pages/generation_parts.py`.
"""

from __future__ import annotations

import streamlit as st

from inspector.render import HIGHLIGHT_CLASSES, HIGHLIGHT_LABELS, guard_html, legend_html
from pages.common import caption_for, current_generation, guard_marks_of, require_analysis
from pages.generation_parts import (
    diff_against_parent,
    navigation,
    refresh_controls,
    review,
    selected_finding,
    text_and_findings,
)
from pages.review_widgets import trace_annotations

analysis = require_analysis()
caption_for(analysis)
k = current_generation(analysis)
navigation(analysis, k)

generation = analysis.trace.generations[k]
st.header(f"{generation.label} · {generation.kind}")
guarded = guard_marks_of(analysis).get(k)
if guarded is not None:
    st.html(guard_html(guarded))
selected = selected_finding(analysis, k)

# Pills wrap onto a second line where ten toggles in ten columns cut their labels to "reso…" at 1400 px;
# the legend below says what each class means.
enabled = st.pills("Highlight classes", list(HIGHLIGHT_CLASSES), selection_mode="multi",
                   default=list(HIGHLIGHT_CLASSES), format_func=HIGHLIGHT_LABELS.__getitem__,
                   key="highlight_classes")  # fmt: skip
st.html(legend_html(enabled))
refresh_controls(analysis, k, guarded)

reviews = trace_annotations()
text_tab, diff_tab, review_tab = st.tabs(["Text and findings", "Diff against parent", "Review"])
with text_tab:
    text_and_findings(analysis, k, enabled, selected, reviews)
with diff_tab:
    diff_against_parent(analysis, k)
with review_tab:
    review(analysis, k, reviews)
