"""cimem app: navigation and the sidebar every page shares. Pages live in webapp/pages/ (see webapp/__init__.py)."""

from pathlib import Path

import streamlit as st

from cimem.store import DatabaseBusy
from webapp import connection, failure, sidebar

FAVICON = Path(__file__).resolve().parent / "webapp" / "favicon.png"
# a favicon served by the app itself: a page's Material icon would be fetched from Google
st.set_page_config(page_title="cimem", page_icon=str(FAVICON), layout="wide")
PAGES = [
    st.Page(
        "webapp/pages/overview.py", title="Overview", icon=":material/table_chart:", default=True
    ),
    st.Page("webapp/pages/leaks.py", title="Leaks", icon=":material/water_drop:"),
    st.Page("webapp/pages/growth.py", title="Growth", icon=":material/trending_up:"),
    st.Page("webapp/pages/audit.py", title="Audit", icon=":material/fact_check:"),
    st.Page("webapp/pages/review.py", title="Review", icon=":material/keyboard:"),
    st.Page("webapp/pages/labels.py", title="Labels", icon=":material/label:"),
    st.Page("webapp/pages/explore.py", title="Explore", icon=":material/terminal:"),
    st.Page("webapp/pages/learn.py", title="Learn", icon=":material/school:"),
    st.Page("webapp/pages/data.py", title="Data", icon=":material/database:"),
]
nav = st.navigation(PAGES)
try:
    st.session_state["choices"] = sidebar.sidebar()
    nav.run()
except DatabaseBusy as exc:  # another process held the file longer than the app waits
    connection.busy(exc)
except Exception as exc:  # noqa: BLE001 - one line and the log, never a traceback box
    failure.said(exc)
