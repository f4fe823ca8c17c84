"""The Learn page's "what the official script does differently" with the selected run's numbers:
how much each of the official script's three steps touched, and the run's numbers in both modes.
Drawing only: the options and the steps are cimem.analysis.learn.modes'."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.learn.modes import both_modes, official_steps, parse_failures_note
from cimem.analysis.metrics import RunMetrics
from cimem.analysis.options import Mode
from webapp import cache, render, sidebar


def official_differences(ch: sidebar.Choices) -> None:
    """The selected run (if any, and labelled) in official and definition mode, under the
    sidebar's other choices."""
    if ch.run is None:
        st.info("Choose a run in the sidebar to see these steps with its numbers.")
        return
    if not cache.cube(ch.scope(ch.run)).has_labels:
        st.info("The selected run has no labels, so neither metric applies to it.")
        return
    both = {mode: cache.metrics(ch.scope(ch.run, o)) for mode, o in both_modes(ch.opts).items()}
    official, definition = both[Mode.OFFICIAL], both[Mode.DEFINITION]
    st.markdown(
        f"For **{render.escape_md(official.run)}** (label rule"
        f" {render.escape_md(ch.opts.label_rule)}, n = {official.n_trials}):"
    )
    render.static_table(pd.DataFrame(official_steps(official.discarded)))
    st.markdown(
        f"Result: official mode Violation@n **{render.pct(official.violation.mean)}**,"
        f" Completeness **{render.pct(official.completeness.mean)}**; definition mode"
        f" ({_definition_note(definition)}) **{render.pct(definition.violation.mean)}** and"
        f" **{render.pct(definition.completeness.mean)}**."
    )


def _definition_note(m: RunMetrics) -> str:
    """What definition mode did with parse failures and, if any, the keys it left out."""
    o = m.options
    keys = f"; keys {render.escape_md(', '.join(o.exclude))} excluded" if o.exclude else ""
    return parse_failures_note(o) + keys
