"""Sessions: every log in the traces folder ranked by how badly its memory broke; open one to inspect it."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import altair as alt
import pandas as pd
import streamlit as st

from inspector.fleet import findings_by_rule, scan
from inspector.fleet.views import filter_sessions, refused_line, rules_seen, session_rows
from inspector.library import data_dir, ref_for, traces_dir
from pages.common import SAMPLES, set_state, show_error, show_table, show_text, state_params, sync_state

sync_state()
st.header("Sessions")
folder = traces_dir() or SAMPLES
# Named, not spelled out: where the server keeps its files is nobody's business in a shared app.
caption = "Every session in the traces folder" if traces_dir() else (
    "The bundled samples: set INSPECTOR_TRACES_DIR to scan yours")  # fmt: skip
show_text(caption, css_class="ci-caption")

scanned_key = f"scan_rows:{folder}"
if st.button("Rescan", key="rescan") or scanned_key not in st.session_state:
    cache = data_dir() / "scans" / f"{hashlib.sha256(str(folder.resolve()).encode()).hexdigest()[:16]}.cache.json"
    bar = st.progress(0.0, text="Scanning sessions…")

    def progress(done: int, total: int) -> None:
        bar.progress(done / total if total else 1.0, text=f"Scanned {done} of {total} sessions")

    st.session_state[scanned_key] = scan([folder], workers=os.cpu_count() or 1, cache=cache, progress=progress)
    bar.empty()
result = st.session_state[scanned_key]
scanned = result.rows
if result.refused:  # links out of the folder, FIFOs: counted, never opened
    show_text(refused_line(result.refused), css_class="ci-caption ci-refused")
rows = session_rows(scanned, folder)
if not rows:
    st.info("No session files (.json, .jsonl, .zst) in this folder.")
    st.stop()

metrics = st.columns(4)
metrics[0].metric("Sessions", len(rows))
metrics[1].metric("Failing", sum(r["verdict"] == "fail" for r in rows))
metrics[2].metric("Passing", sum(r["verdict"] == "pass" for r in rows))
metrics[3].metric("Unreadable", sum(r["verdict"] == "unreadable" for r in rows))

filters = st.columns([1, 2, 2])
verdicts = filters[0].multiselect("Verdict", ["fail", "pass", "unreadable"], key="filter_verdict")
rules = filters[1].multiselect("Has a finding of rule", rules_seen(rows), key="filter_session_rule")
text = filters[2].text_input("Session name contains", key="filter_session_text")
shown = filter_sessions(rows, verdicts, rules, text)
show_text(f"{len(shown)} of {len(rows)} sessions, worst first: those where a lost item had a consequence "
          "(the next agent broke, retried or redid it, or the user said it again) at the top", css_class="ci-caption")

# Without the server's paths: a table sends every column to the browser, shown or not; a row is opened by its index.
table = pd.DataFrame(shown, columns=[c for c in rows[0] if c != "path"])
event = show_table(
    table, on_select="rerun", selection_mode="single-row", key="sessions_table",
    column_config={"density trend": st.column_config.NumberColumn(format="%.3f")},
)  # fmt: skip


def open_session(path: str) -> None:
    ref = ref_for(Path(path), SAMPLES)
    if ref is None:
        show_error(f"{Path(path).name} is outside the traces folder, so the app cannot open it")
        return
    set_state(trace=ref, gen=None, inv=None, finding=None)
    st.switch_page("pages/chain.py", query_params=state_params())


picked = event.selection.rows if event is not None else []
if picked:
    open_session(shown[picked[0]]["path"])

names = {r["path"]: f"#{r['rank']} {r['session']} ({r['verdict']})" for r in shown}
choice = st.selectbox("Or pick a session", list(names), format_func=names.__getitem__, key="session_pick")
if st.button("Open in the inspector", key="open_session", type="primary") and choice:
    open_session(choice)

st.subheader("Findings by rule")
by_path = {row["path"]: row for row in scanned}
chart = pd.DataFrame(findings_by_rule(by_path[r["path"]] for r in shown))
if chart.empty:
    st.write("No findings in these sessions.")
else:
    st.altair_chart(
        alt.Chart(chart).mark_bar().encode(
            x=alt.X("findings:Q", title="findings", axis=alt.Axis(tickMinStep=1, format="d")),  # a count: no 0.5
            y=alt.Y("rule:N", sort="-x", title=None, axis=alt.Axis(labelLimit=0)),  # rule names whole, never "…"
            color=alt.Color("severity:N", scale=alt.Scale(domain=["error", "warning"], range=["#c62828", "#ef6c00"])),
            tooltip=["rule", "severity", "findings", "sessions"],
        ),
        width="stretch",
    )
