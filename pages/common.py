"""Shared page plumbing: which trace is open, cached analysis, links that carry state.

State that must survive page switches (the open trace, the generation, the selected invariant or
finding) lives in `st.session_state` and is mirrored into `st.query_params`, so the URL is always a
deep link to what is on screen.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from inspector.analysis import Analysis, analyze
from inspector.bounded_io import ReadLimits, read_limits, reading_within
from inspector.errors import TraceReadError
from inspector.library import (
    TraceRef,
    TraceRefError,
    as_given,
    content_hash,
    data_dir,
    limits_for,
    trace_as_given,
    trace_file,
)
from inspector.model import Trace
from inspector.raw_records import Located, Stamps, pretty_json, read_record, record_index, stamps_of
from inspector.readers import load_trace
from inspector.refresh import RefreshResult, refresh_and_reanalyse
from inspector.render import text_html
from inspector.sized_cache import SizedCache, default_budget, trace_weight
from inspector.store import Store, open_store
from inspector.views import AFTER, ROW_MARKER_PX, TABLE_PX, GuardMark, guard_marks, table_layout

SAMPLES = Path(__file__).resolve().parents[1] / "sample_traces"


ENTRY_RAN = "entry_ran"
"""Session-state key app.py sets on every run, before it runs the page."""


def _use_entrypoint_navigation() -> None:
    """Make a deep link work as a fresh server's first request.

    Streamlit treats a folder named `pages/` beside the entry script as the legacy auto-discovered
    layout until some session calls `st.navigation`; until then a URL such as /generation runs the page
    bare (no app.py, no declared navigation). Calling `st.navigation` is the documented switch ("as soon
    as any session of your app executes the st.navigation command, your app will ignore the pages/
    directory"): declare the app's pages and rerun, which runs app.py, whose navigation lands on the
    requested page with its query parameters.
    """
    if st.session_state.get(ENTRY_RAN):
        return
    from pages.navigation import declared_pages

    st.navigation(declared_pages(), position="hidden")  # the same pages as app.py: the rerun lands on this one
    st.rerun()


_use_entrypoint_navigation()
STATE_KEYS = ("trace", "gen", "inv", "finding", "refresh")


@st.cache_data(max_entries=64, show_spinner=False)
def _hash_of(path: str, size: int, mtime_ns: int) -> str:
    return content_hash(Path(path))


@st.cache_resource(show_spinner=False)
def _analyses() -> SizedCache:
    """Analyses and refreshed branches of every open trace, bounded by the memory they hold (one per process)."""
    return SizedCache(default_budget())


def _analysis_of(digest: str, ref: TraceRef, path: Path) -> Analysis:
    """Keyed by content hash: the same bytes under any name or upload are parsed once (and keep the first's name)."""
    cache, key = _analyses(), ("analysis", digest)
    found = cache.get(key)
    if found is not None:
        return found
    with st.spinner("Analysing trace…"):
        return cache.get_or_make(key, lambda: analyze(trace_as_given(load_trace(path), ref, path, SAMPLES)),
                                 lambda a: trace_weight(a.trace))  # fmt: skip


def _refreshed(digest: str, k: int, analysis: Analysis) -> tuple[RefreshResult, Analysis]:
    return _analyses().get_or_make(("refresh", digest, k), lambda: refresh_and_reanalyse(analysis, k),
                                   lambda made: trace_weight(made[1].trace))  # fmt: skip


@st.cache_resource(show_spinner=False)
def _store(url: str) -> Store:
    # "default:<folder>" keys the default store by data folder, so tests with their own folder get their own.
    return open_store(None if url.startswith("default:") else url)


def store() -> Store:
    """The review store (annotations and ledger), opened and migrated once per process."""
    return _store(os.environ.get("INSPECTOR_DB_URL") or f"default:{data_dir()}")


def trace_hash() -> str | None:
    """Content hash of the open trace: the key the ledger (and annotations) use."""
    return st.session_state.get("trace_hash")


def guard_marks_of(analysis: Analysis, event: str = AFTER) -> dict[int, GuardMark]:
    """What the guard gave back on this trace (`AFTER`), or listed for its compactor (`BEFORE`), by generation:
    looked up by the trace's id (its session id)."""
    return guard_marks(analysis, store().guard.for_session(analysis.trace.id), event)


def refreshed_branch(analysis: Analysis) -> tuple[int, RefreshResult, Analysis] | None:
    """The refresh the reviewer asked for on this trace (kept in the URL), re-analysed."""
    try:
        k = int(st.session_state.get("refresh", ""))
    except ValueError:
        return None
    if not 0 < k < len(analysis.trace.generations) or trace_hash() is None:
        return None
    result, refreshed = _refreshed(trace_hash(), k, analysis)  # type: ignore[arg-type]
    return k, result, refreshed


def reviewer_field() -> None:
    """The sidebar 'Reviewer' field on every page. The name lives in a plain session key, not in the
    widget's, because widget state does not survive a page switch."""

    def remember() -> None:
        st.session_state["reviewer_name"] = st.session_state["reviewer"].strip()

    st.session_state["reviewer"] = st.session_state.get("reviewer_name", "")
    st.sidebar.text_input("Reviewer", key="reviewer", placeholder="your name", on_change=remember,
                          help="Recorded with every refresh")  # fmt: skip


def reviewer_name() -> str:
    return st.session_state.get("reviewer_name") or "anonymous"


def sync_state() -> None:
    """Take state from the URL when it has it (a pasted link), else put the session's into the URL."""
    reviewer_field()
    for key in STATE_KEYS:
        if key in st.query_params:
            st.session_state[key] = st.query_params[key]
        elif st.session_state.get(key) is not None:
            st.query_params[key] = str(st.session_state[key])


def set_state(**values: object) -> None:
    for key, value in values.items():
        if value is None:
            st.session_state.pop(key, None)
            st.query_params.pop(key, None)
        else:
            st.session_state[key] = str(value)
            st.query_params[key] = str(value)


def state_params(**overrides: object) -> dict[str, str]:
    """Query parameters for a link to another page that keeps the current state."""
    params = {k: str(st.session_state[k]) for k in STATE_KEYS if st.session_state.get(k) is not None}
    for key, value in overrides.items():
        if value is None:
            params.pop(key, None)
        else:
            params[key] = str(value)
    return params


def open_analysis() -> Analysis | None:
    """The open trace's analysis, or None with a visible reason (never a traceback). An upload is read within its
    own bounds (`limits_for`), every file of it and every reader alike."""
    ref_text = st.session_state.get("trace")
    if not ref_text:
        return None
    try:
        ref = TraceRef.parse(ref_text)
        path, status = trace_file(ref, SAMPLES)
    except TraceRefError as error:
        show_error(str(error))
        return None
    try:
        with reading_within(limits_for(ref)):
            digest = _hash_of(str(path), status.st_size, status.st_mtime_ns)
            st.session_state["trace_hash"] = digest
            return _analysis_of(digest, ref, path)
    except TraceReadError as error:  # named as the user gave it: the server's folders are nobody's business
        show_error(as_given(str(error), ref, path, SAMPLES))
    except OSError as error:  # the file vanished or changed under us between the check and the read
        show_error(as_given(f"{ref.shown}: cannot read ({error.strerror or error})", ref, path, SAMPLES))
    return None


def show_error(message: str) -> None:
    """An error line built from untrusted text: escaped HTML, never markdown."""
    st.html(f'<div role="alert" class="ci-error">{text_html(message)}</div>')


def show_text(text: str, tag: str = "p", css_class: str = "") -> None:
    """Trace-derived text as plain escaped HTML (titles, ids, messages), hidden characters marked: markdown
    never sees it."""
    st.html(f'<{tag} class="{css_class}">{text_html(text)}</{tag}>')


RAW_SHOWN_CHARS = 100_000
"""A record with a whole file or image inlined is cut here: enough to read, not enough to stall the browser."""


@st.cache_data(max_entries=64, show_spinner=False)
def _shown_record(located: Located, now: Stamps) -> tuple[str | None, str | None]:
    """(indented JSON, or None; why not): kept per place and file version, since a compressed log is read up to
    the line and a document's value is found by parsing the whole document. `now`, the files as they are, is
    only part of the key: a file changed since a record was shown makes a new entry, which gives the reason."""
    found = read_record(located)
    if found.text is None:
        return None, found.reason
    text = pretty_json(found.text)
    if len(text) > RAW_SHOWN_CHARS:
        text = f"{text[:RAW_SHOWN_CHARS]}\n… {len(text) - RAW_SHOWN_CHARS:,} more characters not shown"
    return text, None


def _open_trace_limits() -> ReadLimits:
    """The bounds the open trace was read within, for its records read again (an upload's, for an upload)."""
    try:
        return limits_for(TraceRef.parse(st.session_state.get("trace") or ""))
    except TraceRefError:
        return read_limits()


def show_raw_record(trace: Trace, key: str) -> None:
    """The record `key` was read from, in an expander: what the reader left out (a tool's full result, token
    usage). A record as stored (a log line, an event file, a database row) says so; a value found in a JSON
    document is written again, and says that. A code block, which Streamlit escapes; nothing for a record
    with no place."""
    index = record_index(trace)
    located = index.locate(key) if index is not None else None
    if located is None:
        return
    label = "Raw record, as written in the log" if located.exact else "Raw record, re-serialised from the log"
    with st.expander(label):
        show_text(f"From {located.describe()}.", "div", "ci-caption")
        with reading_within(_open_trace_limits()):
            text, reason = _shown_record(located, stamps_of(*(path for path, _ in located.files)))
        if text is None:
            show_text(f"Not shown: {reason}", "div", "ci-caption")
        else:
            st.code(text, language="json")


def require_analysis() -> Analysis:
    """For views: stop with a pointer to the home page when no trace is open."""
    sync_state()
    analysis = open_analysis()
    if analysis is None:
        st.info("No trace is open yet.")
        st.page_link("pages/home.py", label="Open a trace", icon=":material/folder_open:")
        st.stop()
    return analysis  # type: ignore[return-value]


def current_generation(analysis: Analysis) -> int:
    try:
        k = int(st.session_state.get("gen", 1 if len(analysis.trace.generations) > 1 else 0))
    except ValueError:
        k = 0
    return min(max(k, 0), len(analysis.trace.generations) - 1)


def caption_for(analysis: Analysis) -> None:
    trace = analysis.trace
    show_text(
        f"{trace.title or trace.id} · {trace.format} · {len(trace.generations)} generations · "
        f"verdict {analysis.verdict.upper()}",
        css_class="ci-caption",
    )


def show_table(frame: pd.DataFrame, **options: Any) -> Any:
    """`st.dataframe` laid out by `views.table_layout`: every shown column as wide as its values, all of them
    within the main area's width (the widest text narrowed and wrapped in taller rows rather than cut off on the
    right), and a missing value shown as "—" rather than "None". Explicit `column_config` entries win."""
    shown = [c for c in options.get("column_order") or list(frame.columns) if c in frame]
    room = TABLE_PX - (ROW_MARKER_PX if options.get("on_select", "ignore") != "ignore" else 0)
    layout = table_layout({c: frame[c].astype(object).where(frame[c].notna(), None).tolist() for c in shown}, room)
    config: dict[str, Any] = {c: st.column_config.Column(width=w) for c, w in layout.widths.items()}
    config.update(options.pop("column_config", None) or {})
    options.setdefault("hide_index", True)
    if layout.row_height is not None:
        options.setdefault("row_height", layout.row_height)
    return st.dataframe(frame, column_config=config, placeholder="—", **options)
