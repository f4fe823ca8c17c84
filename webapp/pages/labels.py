"""Labels: what the numbers rest on. The selected runs under each labelling rule and persona
(how much Violation@n, Completeness and the ranking of runs move, and the pairs each rule
leaves out per domain), and people's own labels with their agreement with the personas."""

import streamlit as st

from webapp import cache, sidebar
from webapp.panels.labels import label_sensitivity, people_labelling

st.title("Labels")
ch: sidebar.Choices = st.session_state["choices"]
sidebar.simulated_banner(ch.runs)
label_sensitivity.section(ch, has_people=bool(cache.people_labels(ch.at)))
people_labelling.section(ch)
