"""cimem app: navigation and the sidebar every page shares. Pages live in pages/."""

import streamlit as st

import app_state

st.set_page_config(page_title="cimem", layout="wide")

pages = [
    st.Page("pages/overview.py", title="Overview", default=True),
]
nav = st.navigation(pages)
app_state.sidebar()
nav.run()
