"""One attribute of a run up close on the Growth page, folded until opened: its leak frequency
in each task where it is private, where it first leaks, and its hazards over tasks and samples."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from webapp import cache, render, sidebar
from webapp.charts.growth_attribute import hazard_chart, leak_frequency_chart

HAZARD_NOTE = (
    "Hazard: the chance that the next task (or sample) is the first to leak this attribute,"
    " given it has not leaked before. It is undefined after a sure leak, so a curve can"
    " stop early (a single point when the first sample always leaks)."
)


@st.fragment
def one_attribute(ch: sidebar.Choices, run_id: int, names: Mapping[int, str]) -> None:
    """Its own part of the page, folded and drawn only when opened: drawing its two charts on
    every visit was about a fifth of what a revisit of the page cost (server and browser)."""
    name = render.escape_md(names.get(run_id, str(run_id)))
    render.when_opened(
        f"One attribute ({name}): its leak frequency per task, and when it first leaks",
        "growth_one",
        lambda: attribute_detail(ch, run_id),
    )


def attribute_detail(ch: sidebar.Choices, run_id: int) -> None:
    """The chosen attribute's first leak, its leak frequency per task and its hazards."""
    picked = _pick_attribute(ch, run_id)
    if picked is None:
        return
    profile, key = picked
    try:
        view = cache.attribute_view(ch.scope(run_id), profile, key)
    except LookupError as exc:
        st.info(render.escape_md(str(exc)))
        return
    st.markdown(
        f"Private in **{len(view.tasks)}** tasks; first leak in the listed order: "
        + view.first_leak_text()
        + "."
    )
    render.chart(leak_frequency_chart(view), "attribute_p", "attr_p")
    render.chart(hazard_chart(view), "attribute_hazard", "attr_hz")
    st.caption(HAZARD_NOTE)


def _pick_attribute(ch: sidebar.Choices, run_id: int) -> tuple[str, str] | None:
    """A profile of the run and one of its attributes, most leaked first; None (said) when no
    attribute of the profile is private in a task with samples."""
    cube = cache.cube(ch.scope(run_id))
    pc1, pc2 = st.columns(2)
    profile = pc1.selectbox("Profile", cube.profile_names, key="growth_profile")
    ranked = cache.ranked_attributes(ch.scope(run_id))
    keys = ranked[ranked["profile"] == profile]["key"].tolist()
    if not keys:
        st.info(f"No attribute of {render.escape_md(profile)} is private in a task with samples.")
        return None
    key = pc2.selectbox("Attribute (most leaked first)", keys, key="growth_key")
    return profile, key
