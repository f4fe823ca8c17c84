"""App-side state: the cached database connection, cached query results, the shared sidebar.

The only module of the app that knows about caching; pages call these wrappers and `cimem`.
"""

from __future__ import annotations

import os

import streamlit as st

from cimem.store import Store, default_db_path


@st.cache_resource(show_spinner=False)
def _store(path: str) -> Store:
    return Store.open(path)


def db_path() -> str:
    """The database the user picked (kept in the URL so a view can be shared)."""
    return st.query_params.get("db") or os.environ.get("CIMEM_DB") or default_db_path()


def store() -> Store:
    return _store(db_path())


@st.cache_data(show_spinner=False)
def runs_table(path: str, _version: int = 0):
    import pandas as pd

    rows = _store(path).list_runs()
    return pd.DataFrame([r.__dict__ for r in rows])


def sidebar() -> None:
    with st.sidebar:
        st.caption(f"Database: `{db_path()}`")
