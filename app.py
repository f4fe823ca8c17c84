"""cimem app: navigation and the sidebar every page shares. Pages live in pages/."""

import streamlit as st

import app_state

st.set_page_config(page_title="cimem", layout="wide")
PAGES = [
    st.Page("app_pages/overview.py", title="Overview", icon=":material/table_chart:", default=True),
    st.Page("app_pages/leaks.py", title="Leaks", icon=":material/water_drop:"),
    st.Page("app_pages/growth.py", title="Growth", icon=":material/trending_up:"),
    st.Page("app_pages/audit.py", title="Audit", icon=":material/fact_check:"),
    st.Page("app_pages/learn.py", title="Learn", icon=":material/school:"),
    st.Page("app_pages/data.py", title="Data", icon=":material/database:"),
]
nav = st.navigation(PAGES)
st.session_state["choices"] = app_state.sidebar()
nav.run()
