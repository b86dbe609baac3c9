"""The app's pages, declared once: app.py navigates with them, and a page run bare (a deep link as a fresh
server's first request, see `pages.common`) declares the same ones to leave Streamlit's legacy layout."""

from __future__ import annotations

import streamlit as st
from streamlit.navigation.page import StreamlitPage


def declared_pages() -> list[StreamlitPage]:
    """Every page with its title, icon and URL path (`/generation?trace=…` is a deep link)."""
    return [
        st.Page("pages/home.py", title="Open a trace", icon=":material/folder_open:", default=True),
        st.Page("pages/chain.py", title="Chain", icon=":material/timeline:", url_path="chain"),
        st.Page("pages/generation.py", title="Generation", icon=":material/article:", url_path="generation"),
        st.Page("pages/manifest.py", title="Manifest", icon=":material/checklist:", url_path="manifest"),
        st.Page("pages/findings.py", title="Findings", icon=":material/report:", url_path="findings"),
        st.Page("pages/sessions.py", title="Sessions", icon=":material/table_rows:", url_path="sessions"),
        st.Page("pages/review.py", title="Review queue", icon=":material/rate_review:", url_path="review"),
        st.Page("pages/policies.py", title="Refresh policies", icon=":material/tune:", url_path="policies"),
        st.Page("pages/ledger.py", title="Corrections ledger", icon=":material/history:", url_path="ledger"),
        st.Page("pages/story.py", title="Guided story", icon=":material/slideshow:", url_path="story"),
    ]


__all__ = ["declared_pages"]
