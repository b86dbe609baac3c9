"""Open a trace: a bundled sample, an upload, or a path under the configured traces folder."""

from __future__ import annotations

import streamlit as st

from inspector.library import (
    TraceRef,
    list_samples,
    sample_index,
    store_upload,
    traces_dir,
    upload_help,
    upload_label,
)
from inspector.share import share_report
from inspector.views import finding_rows
from pages.common import (
    SAMPLES,
    caption_for,
    open_analysis,
    set_state,
    show_text,
    state_params,
    store,
    sync_state,
    trace_hash,
)

sync_state()
st.title("Compaction Inspector")
st.write("See what happened to an agent's memory as its context was compacted, and where it broke.")

sample_tab, upload_tab, path_tab = st.tabs(["Bundled sample", "Upload", "Traces folder"])
with sample_tab:
    samples = list_samples(SAMPLES)
    # A keyed widget takes `index` only when it has no state of its own: on a pasted link, and on coming
    # back from another page; a sample picked here but not yet opened stays picked.
    chosen = st.selectbox("Sample trace", samples, index=sample_index(st.session_state.get("trace"), samples),
                          key="sample_choice")  # fmt: skip
    if st.button("Open sample", key="open_sample", type="primary") and chosen:
        set_state(trace=TraceRef("sample", chosen), gen=None, inv=None, finding=None)
with upload_tab:
    uploaded = st.file_uploader(upload_label(), help=upload_help(), key="upload")
    if uploaded is not None and st.button("Open upload", key="open_upload"):
        set_state(trace=store_upload(uploaded.getvalue(), uploaded.name), gen=None, inv=None, finding=None)
with path_tab:
    folder = traces_dir()
    if folder is None:
        st.info("Set INSPECTOR_TRACES_DIR to a folder of traces to open files from it by path.")
    else:
        show_text("A path inside the traces folder the server was given (INSPECTOR_TRACES_DIR).")  # not where it is
        relative = st.text_input("Path inside the folder", key="path_choice")
        if st.button("Open path", key="open_path") and relative:
            set_state(trace=TraceRef("path", relative), gen=None, inv=None, finding=None)

analysis = open_analysis()
if analysis is not None:
    st.divider()
    caption_for(analysis)
    rows = finding_rows(analysis)
    counts = {s: sum(1 for r in rows if r["severity"] == s) for s in ("error", "warning", "info")}
    # Each metric as wide as its value, in a row that wraps: five equal columns cut "openai-responses" to
    # "openai-…" at 1280 px.
    metrics = st.container(horizontal=True, gap="large")
    metrics.metric("Format", analysis.trace.format, width="content")
    metrics.metric("Generations", len(analysis.trace.generations), width="content")
    metrics.metric("Verdict", analysis.verdict.upper(), width="content")
    metrics.metric("Errors", counts["error"], width="content")
    metrics.metric("Warnings", counts["warning"], width="content")

    links = st.columns(4)
    links[0].page_link("pages/chain.py", label="Chain view", icon=":material/timeline:", query_params=state_params())
    links[1].page_link("pages/generation.py", label="Generation view", icon=":material/article:",
                       query_params=state_params())  # fmt: skip
    links[2].page_link("pages/manifest.py", label="Manifest view", icon=":material/checklist:",
                       query_params=state_params())  # fmt: skip
    links[3].page_link("pages/findings.py", label="All findings", icon=":material/report:", query_params=state_params())

    st.subheader("Share")
    digest, annotations = trace_hash() or "", store()
    shares = st.columns(2)
    # Built on click, not on every run: the HTML report of a 100 MB session takes a second or more.
    # A download changes nothing on the page, so it does not rerun it either: a rerun would replace
    # the buttons' deferred downloads while the other button was being clicked, and lose that click.
    shares[0].download_button("Report (HTML)", lambda: share_report(analysis, annotations, digest, "html"),
                              file_name="compaction-report.html", mime="text/html", key="report_html",
                              on_click="ignore")  # fmt: skip
    shares[1].download_button("Report (Markdown)", lambda: share_report(analysis, annotations, digest, "md"),
                              file_name="compaction-report.md", mime="text/markdown", key="report_md",
                              on_click="ignore")  # fmt: skip

    st.subheader("Top findings")
    top = sorted(rows, key=lambda r: ("error", "warning", "info").index(r["severity"]))[:8]
    if not top:
        st.success("No findings: every anchor resolves and every invariant survives.")
    for row in top:
        where = f"S{row['generation']}" if row["generation"] is not None else "trace"
        # wrap=False: the link stays at the line's right end and a long message wraps beside it, where a wrapping
        # row put some links beside their finding and others on a line of their own.
        line = st.container(horizontal=True, vertical_alignment="center", wrap=False)
        with line:
            show_text(f"{row['severity'].upper()} · {row['rule']} · {where}: {row['message']}", css_class="ci-caption")
            if row["generation"] is not None:
                st.page_link(
                    "pages/generation.py",
                    label="Open",
                    icon=":material/arrow_forward:",
                    query_params=state_params(gen=row["generation"], finding=row["id"]),
                )
