"""Growth: how Violation grows with the number of tasks T and samples per task k, one colour per
run, observed against 1-(1-p)^k; the paper's Figure 2 points; the memory-composition curve; one
attribute's leak frequency per task and its hazards."""

import streamlit as st

from webapp import sidebar
from webapp.panels import progress
from webapp.panels.growth import growth_sections
from webapp.panels.growth.growth_attribute import one_attribute
from webapp.panels.growth.growth_composition import composition_section
from webapp.panels.growth.growth_settings import how_computed_caption, settings

st.title("Growth")
ch: sidebar.Choices = st.session_state["choices"]
runs = sidebar.labelled_runs(ch)
if not runs:
    st.stop()
sidebar.simulated_banner(ch.runs)
progress.making_banner(ch.runs)
names = sidebar.view_names(ch)
st.markdown(
    "How Violation grows when an assistant writes more messages: over more **tasks T** (each"
    " task a recipient and a purpose) and more **samples k** of each task. A fact counts once"
    " it has reached any recipient it should not reach, so every curve can only rise with k."
    " Over tasks a curve can dip: a new task can bring attributes that it must withhold and"
    " does not leak, which join the denominator (most often in a fixed or worst order)."
)


@st.fragment
def violation_growth() -> None:
    """Its own part of the page: a change of order, samples, method or toggle redraws these
    two charts, not the charts below that do not depend on them."""
    v = settings(ch, runs, names)
    how_computed_caption(v)
    growth_sections.by_tasks(v)
    growth_sections.by_samples(v)
    growth_sections.at_the_end(v)
    growth_sections.prefetch(v)


violation_growth()
composition_section(ch, runs[0], names)
one_attribute(ch, runs[0], names)
