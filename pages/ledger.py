"""The corrections ledger: every refresh's corrections, appended and never rewritten."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import streamlit as st

from inspector.store.ledger import entries_as_rows
from pages.common import open_analysis, show_table, show_text, store, sync_state, trace_hash

sync_state()
st.header("Corrections ledger")
st.write("Every refresh appends its corrections here with when, where, what triggered it and who asked. "
         "Nothing is ever edited or deleted.")  # fmt: skip
ledger = store().ledger
url = store().engine.url  # its kind and name, not its host or the server's folders
show_text(f"Stored in the review store ({url.get_backend_name()}: {Path(url.database or '').name or 'in memory'})",
          css_class="ci-caption")  # fmt: skip
analysis = open_analysis()
only_this = analysis is not None and st.toggle("Only the open trace", value=True, key="ledger_only_open")
entries = ledger.entries(trace_hash() if only_this else None)
if not entries:
    st.info("No corrections recorded yet. Use “Refresh from source” on a generation.")
else:
    show_table(pd.DataFrame(entries_as_rows(entries)), key="ledger_table")
    buffer = io.BytesIO()
    ledger.export_jsonl(buffer, trace_hash() if only_this else None)
    st.download_button("Export JSONL", buffer.getvalue(), file_name="corrections.jsonl",
                       mime="application/x-ndjson", key="ledger_export")  # fmt: skip
