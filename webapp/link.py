"""A page's view kept in its link: one query parameter written only when it differs, and
removed at its default, so a link holds just what a visitor changed."""

from __future__ import annotations

import streamlit as st


def put(name: str, value: str | list[str]) -> None:
    """``?name=value`` in the link (a list: the parameter repeated); gone when ``value`` is
    empty."""
    if value:
        if st.query_params.get_all(name) != (value if isinstance(value, list) else [value]):
            st.query_params[name] = value
    elif name in st.query_params:
        del st.query_params[name]
