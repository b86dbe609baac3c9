"""Compaction Inspector: the Streamlit entry point. Pages are declared here, explicitly."""

from pathlib import Path

import streamlit as st

from inspector.render import style_block

ICON = Path(__file__).parent / "assets" / "icon.png"  # a local file: a material-icon favicon is fetched from a CDN
st.set_page_config(page_title="Compaction Inspector", page_icon=str(ICON), layout="wide")

PAGES = [
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

page = st.navigation(PAGES)
st.session_state["entry_ran"] = True  # pages.common.ENTRY_RAN: a page run without this ran bare (legacy pages/)
st.html(style_block())  # once for every page: the home page's error line and the sessions' captions are styled too
page.run()
