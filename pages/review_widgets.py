"""The annotate form, shared by the generation, findings, manifest and review pages."""

from __future__ import annotations

import streamlit as st

from inspector.store import LABELS, Annotation, Target
from pages.common import reviewer_name, store, trace_hash

CUSTOM = "custom…"


def annotate_form(target: Target, key: str, *, trace_label: str, existing: Annotation | None = None) -> None:
    """Label + comment + save; revises `existing` (a new revision) instead of adding a second annotation."""
    with st.form(key=f"annotate_{key}", clear_on_submit=True, border=True):
        columns = st.columns([2, 2, 5])
        choice = columns[0].selectbox("Label", [*LABELS, CUSTOM], key=f"label_{key}")
        custom = columns[1].text_input("Custom label", key=f"custom_{key}", placeholder="only for custom…")
        comment = columns[2].text_input("Comment", key=f"comment_{key}")
        submitted = st.form_submit_button("Save review" if existing is None else "Add revision")
    if not submitted:
        return
    label = custom.strip() if choice == CUSTOM else choice
    if not label:
        st.warning("A custom label needs a name.")
        return
    annotations = store().annotations
    if existing is not None:
        annotations.revise(existing.id, label, comment, reviewer_name())
    else:
        annotations.add(trace_hash() or "", target, label, comment, reviewer_name(), trace_label=trace_label)
    st.toast("Review saved")
    st.rerun()  # the page above the form (queue, marks, review column) must show the new state


def trace_annotations() -> list[Annotation]:
    digest = trace_hash()
    return store().annotations.for_trace(digest) if digest else []
