"""The Growth page's settings in its link, so that a shared link opens the same curves: the task
order, the samples and the random order's method. A link is text anyone may write: a value that
is not one of the radio's options is dropped, and nothing of it is drawn but through the radios."""

from __future__ import annotations

import streamlit as st

from cimem.analysis.growth import EXPECTED_RATIO, RATIO_OF_EXPECTATIONS
from webapp.link import put

ORDERS = ("random", "fixed", "worst")
SAMPLES = ("first", "unbiased")
METHODS = (EXPECTED_RATIO, RATIO_OF_EXPECTATIONS)
# widget key -> (query parameter, its options, the default the link leaves out)
PARAMS = {
    "order": ("g_order", ORDERS, ORDERS[0]),
    "samples": ("g_samples", SAMPLES, SAMPLES[0]),
    "method": ("g_method", METHODS, METHODS[0]),
}


def restore() -> None:
    """Put the settings the link names into the radios' state where a radio has none yet."""
    for key, (param, options, _) in PARAMS.items():
        given = st.query_params.get(param)
        if key not in st.session_state and given in options:
            st.session_state[key] = given


def remember() -> None:
    """Write the settings as they stand into the link (at their defaults: left out)."""
    for key, (param, _, default) in PARAMS.items():
        value = str(st.session_state.get(key, default))
        put(param, "" if value == default else value)
