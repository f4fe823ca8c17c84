"""The Leaks page's view in its link, so that it can be shared: the filters, the attribute search,
the heatmap's colouring and size, and the chosen cell. A link is text anyone may write: a value
that is not one of the run's options is dropped, a number is kept within its slider's bounds,
and nothing of it is drawn but through the widgets."""

from __future__ import annotations

import json
from collections.abc import Mapping

import streamlit as st

from cimem.analysis.leak_table import FILTERED
from webapp.link import put

SEARCH_CHARS = 200  # an attribute search longer than any key
TOP_BOUNDS = (5, 80, 5)  # the heatmap's slider: low, high, step
PARAM = {col: f"l_{col}" for col in FILTERED} | {
    "search": "l_search",
    "private": "l_private",
    "top": "l_top",
    "cell": "l_cell",
}


def restore(options: Mapping[str, list[str]], top_default: int) -> None:
    """Put the view the link names into the widgets' state, where a widget has none yet (a
    visit's first draw): the filters among the run's ``options``, the rest checked."""
    state = st.session_state
    for col in FILTERED:
        key = f"f_{col}"
        if key not in state and (given := st.query_params.get_all(PARAM[col])):
            state[key] = [v for v in dict.fromkeys(given) if v in options.get(col, [])]
    if "f_search" not in state and (search := st.query_params.get(PARAM["search"], "")):
        state["f_search"] = search[:SEARCH_CHARS]
    if "heat_private" not in state and PARAM["private"] in st.query_params:
        state["heat_private"] = st.query_params[PARAM["private"]] != "0"
    if "heat_top" not in state and (top := _top(st.query_params.get(PARAM["top"], ""))):
        state["heat_top"] = top
    if "leak_pick" not in state and (cell := _cell(st.query_params.get(PARAM["cell"], ""))):
        state["leak_pick"] = cell


def _top(text: str) -> int | None:
    low, high, step = TOP_BOUNDS
    if not text.isdigit():
        return None
    return min(high, max(low, int(text) // step * step))


def _cell(text: str) -> tuple[str, str] | None:
    """(attribute, task) of a link's cell: a JSON list of two short strings, else nothing."""
    try:
        found = json.loads(text) if text else None
    except ValueError:
        return None
    if (
        isinstance(found, list)
        and len(found) == 2
        and all(isinstance(x, str) and 0 < len(x) <= SEARCH_CHARS for x in found)
    ):
        return found[0], found[1]
    return None


def remember(top_default: int) -> None:
    """Write the view as it stands into the link (a value at its default leaves the link)."""
    state = st.session_state
    for col in FILTERED:
        put(PARAM[col], list(state.get(f"f_{col}") or []))
    put(PARAM["search"], str(state.get("f_search") or ""))
    put(PARAM["private"], "" if state.get("heat_private", True) else "0")
    top = state.get("heat_top", top_default)
    put(PARAM["top"], "" if top == top_default else str(top))
    cell = state.get("leak_pick")
    put(PARAM["cell"], json.dumps(list(cell)) if cell else "")
