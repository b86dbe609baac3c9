"""Compaction Inspector: the Streamlit entry point. Its pages are declared explicitly, in pages/navigation.py."""

from pathlib import Path

import streamlit as st

from inspector.render import style_block
from pages.navigation import declared_pages

ICON = Path(__file__).parent / "assets" / "icon.png"  # a local file: a material-icon favicon is fetched from a CDN
st.set_page_config(page_title="Compaction Inspector", page_icon=str(ICON), layout="wide")

page = st.navigation(declared_pages())
st.session_state["entry_ran"] = True  # pages.common.ENTRY_RAN: a page run without this ran bare (legacy pages/)
st.html(style_block())  # once for every page: the home page's error line and the sessions' captions are styled too
page.run()
