"""The generation view's parts, one function each: the page (pages/generation.py) only lays them out.

Each part reads and sets the same session state and widget keys it did as top-level page code, so links
and tests that name them keep working.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from inspector.analysis import Analysis
from inspector.model import finding_id
from inspector.refresh import refresh_at
from inspector.render import (
    diff_html,
    evidence_html,
    finding_targets,
    findings_html,
    highlight_html,
    highlights,
    paginate_diff,
    word_diff,
)
from inspector.review import annotation_highlights, latest_by_finding
from inspector.store import Annotation, Target
from inspector.store.annotations import occurrences
from inspector.views import GuardMark, annotation_rows, correction_rows, find_finding
from pages.common import (
    refreshed_branch,
    reviewer_name,
    set_state,
    show_raw_record,
    show_table,
    show_text,
    store,
    trace_hash,
)
from pages.review_widgets import annotate_form

PAGE_CHARS = 40_000
"""Longer texts are shown a part at a time so a 1 MB generation keeps the page responsive."""


def navigation(analysis: Analysis, k: int) -> None:
    """Previous / next and a picker; each move clears the selected finding."""
    generations = analysis.trace.generations
    nav = st.columns([1, 1, 3])
    if nav[0].button("← Previous", disabled=k == 0, key="prev_gen"):
        set_state(gen=k - 1, finding=None)
        st.rerun()
    if nav[1].button("Next →", disabled=k == len(generations) - 1, key="next_gen"):
        set_state(gen=k + 1, finding=None)
        st.rerun()
    labels = [g.label for g in generations]
    picked = nav[2].selectbox("Generation", labels, index=k, key=f"gen_pick_{k}", label_visibility="collapsed")
    if picked != labels[k]:
        set_state(gen=labels.index(picked), finding=None)
        st.rerun()


def selected_finding(analysis: Analysis, k: int) -> tuple[int, int] | None:
    """Show the finding the URL selects, if it is on this generation; its span, to scroll the text to."""
    selected = None
    finding_ref = st.session_state.get("finding")
    if finding_ref:
        finding = find_finding(analysis, finding_ref)
        if finding is not None and finding.generation == k:
            show_text(f"Selected finding — {finding.severity.value} · {finding.rule}: {finding.message}", "div",
                      "ci-error" if finding.severity.value == "error" else "ci-caption")  # fmt: skip
            st.html(evidence_html(finding))
            if finding.source is not None:
                show_raw_record(analysis.trace, finding.source.key)
            if finding.start is not None and finding.end is not None:
                selected = (finding.start, finding.end)
    return selected


def refresh_controls(analysis: Analysis, k: int, guarded: GuardMark | None) -> None:
    """Refresh from source (appending to the ledger), or say the guard already did; the refreshed branch's
    corrections."""
    generation = analysis.trace.generations[k]
    refresh_column, note_column = st.columns([1, 3])
    # Where the guard refreshed, the refresh was performed: the simulated one is for generations it did not see.
    if guarded is not None:
        with refresh_column:
            show_text("Refresh performed by the guard (above)", css_class="ci-caption")
    elif generation.kind == "summary" and refresh_column.button("Refresh from source", key="refresh_button",
                                                                  type="primary"):  # fmt: skip
        with st.status(f"Refreshing {generation.label} from source…", expanded=True) as status:
            st.write(f"Re-reading the {len(generation.covers)} source records {generation.label} descends from…")
            result = refresh_at(analysis, k)
            st.write(f"Rebuilt {len(result.rebuilt)} typed invariants; "
                     f"comparing with what {generation.label} inherited…")
            entries = store().ledger.append(result, trace=trace_hash() or analysis.trace.id,
                                              trace_label=analysis.trace.title or analysis.trace.id,
                                              trigger="manual", requested_by=reviewer_name())  # fmt: skip
            st.write(f"Appended {len(entries)} corrections to the ledger.")
            status.update(label=f"Refreshed {generation.label}: {len(result.corrections)} corrections",
                          state="complete")
        set_state(refresh=k)
    branch = refreshed_branch(analysis)
    if branch is not None and branch[0] == k:
        _, result, refreshed = branch
        note_column.write(
            f"Refreshed {generation.label}: {result.records_read} records re-read (~{result.tokens_read} tokens), "
            f"{len(result.corrections)} corrections; {len(analysis.findings) - len(refreshed.findings)} fewer findings "
            "on the refreshed branch."
        )
        if result.corrections:
            show_table(pd.DataFrame(correction_rows(result.corrections)), key="corrections_table")
        else:
            st.success("Nothing to correct: this state matches its sources.")


def text_and_findings(analysis: Analysis, k: int, enabled: list[str], selected: tuple[int, int] | None,
                      reviews: list[Annotation]) -> None:  # fmt: skip
    """The findings, each linking to its span, then the text with its highlights across the page's width (a
    part at a time when long): beside the findings, a real summary in 60% of the width ran to 12,800 px."""
    generation = analysis.trace.generations[k]
    st.subheader("Findings")
    st.html(findings_html(analysis, k))
    if generation.text is None:
        reason = generation.extra.get("unavailable_reason", "this summary's text is not in the log")
        show_text(f"Text unavailable: {reason}", "div", "ci-caption")
        return
    text = generation.text
    window = None
    if len(text) > PAGE_CHARS:
        parts = (len(text) + PAGE_CHARS - 1) // PAGE_CHARS
        default = (selected[0] // PAGE_CHARS + 1) if selected else 1
        part = st.number_input(f"Part (of {parts})", 1, parts, default, key=f"part_{k}")
        window = ((part - 1) * PAGE_CHARS, min(len(text), part * PAGE_CHARS))
    marks = highlights(analysis, k) + annotation_highlights(analysis, reviews, k)
    targets = finding_targets(analysis, k)
    st.html(highlight_html(text, marks, enabled, window=window, selected=selected, targets=targets))


def diff_against_parent(analysis: Analysis, k: int) -> None:
    """A word diff against the parent, paged when long; off by default for long texts."""
    generations = analysis.trace.generations
    generation = generations[k]
    parent = generation.parent
    if parent is None:
        st.write("S0 has no parent: it is the raw context.")
    elif generation.text is None or generations[parent].text is None:
        st.write("One of the two texts is unavailable, so there is nothing to diff.")
    else:
        large = len(generation.text) + len(generations[parent].text or "") > PAGE_CHARS
        if st.toggle(f"Compare with S{parent}", value=not large, key=f"diff_{k}"):
            parts = paginate_diff(word_diff(generations[parent].text or "", generation.text), PAGE_CHARS)
            part = 1
            if len(parts) > 1:
                part = st.number_input(f"Diff part (of {len(parts)})", 1, len(parts), 1, key=f"diff_part_{k}")
            st.html(diff_html(parts[part - 1]))


def review(analysis: Analysis, k: int, reviews: list[Annotation]) -> None:
    """Review a finding, mark a span the detectors missed, list this generation's annotations."""
    generation = analysis.trace.generations[k]
    label = analysis.trace.title or analysis.trace.id
    here = analysis.findings_for(k)
    by_finding = latest_by_finding(reviews)
    st.subheader("Review a finding")
    if here:
        ids = [finding_id(f) for f in here]
        wanted = st.session_state.get("finding")
        state = {i: by_finding[i].label if i in by_finding else "unreviewed" for i in ids}
        chosen = st.selectbox(
            "Finding", ids, index=ids.index(wanted) if wanted in ids else 0, key=f"review_finding_{k}",
            format_func=lambda i: f"{here[ids.index(i)].rule} — {state[i]}",
        )  # fmt: skip
        finding = here[ids.index(chosen)]
        show_text(finding.message, "div", "ci-caption")
        if chosen != st.session_state.get("finding"):  # the selected finding's evidence is already shown above
            st.html(evidence_html(finding))
            if finding.source is not None:
                show_raw_record(analysis.trace, finding.source.key)
        annotate_form(Target("finding", finding_id=chosen, rule=finding.rule, generation=k, start=finding.start,
                             end=finding.end, quoted_text=(generation.text or "")[finding.start : finding.end]
                             if finding.start is not None else None),
                      f"finding_{k}", trace_label=label, existing=by_finding.get(chosen))  # fmt: skip
    else:
        st.write("No findings in this generation.")
    st.subheader("Mark a span the detectors missed")
    if generation.text:
        quote = st.text_input("Exact text to mark (as it appears in the text)", key=f"span_quote_{k}")
        positions = list(occurrences(generation.text, quote)) if quote else []
        if quote and not positions:
            st.warning("That text does not occur in this generation.")
        elif positions:
            which = st.number_input("Occurrence", 1, len(positions), 1, key=f"span_occurrence_{k}") if len(
                positions) > 1 else 1  # fmt: skip
            start = positions[which - 1]
            annotate_form(Target("span", generation=k, start=start, end=start + len(quote), quoted_text=quote),
                          f"span_{k}", trace_label=label)  # fmt: skip
    mine = [a for a in reviews if a.target.generation == k]
    if mine:
        st.subheader("Annotations on this generation")
        show_table(pd.DataFrame(annotation_rows(mine)), key=f"annotations_{k}")
