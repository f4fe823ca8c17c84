"""Overview: how many profiles a study needs, with the first one or two selected runs as pilots.
Widgets and drawing only: the plan is cimem.analysis.planner's, as ``cimem plan`` prints it."""

from __future__ import annotations

from collections.abc import Sequence

import streamlit as st

from cimem.analysis.cube import LeakCube
from cimem.analysis.metrics import RunMetrics
from cimem.analysis.planner import plan_frame, plan_note, tasks_of
from webapp import cache, render, sidebar

DEFAULT_POINTS = 5.0  # the difference to detect and the interval's half-width, at first


def difference() -> float:
    """The difference to detect the visitor chose, in points (the default before the field is
    drawn)."""
    return float(st.session_state.get("plan_difference", DEFAULT_POINTS))


def margin() -> float:
    """The interval half-width the visitor chose, in points."""
    return float(st.session_state.get("plan_margin", DEFAULT_POINTS))


@st.fragment
def section(cubes: Sequence[LeakCube], metrics: Sequence[RunMetrics], ch: sidebar.Choices) -> None:
    """The plan, redrawn alone when its numbers change."""
    st.subheader("Planning a study: how many profiles")
    if not cubes or metrics[0].violation.n_profiles < 2:
        st.caption("Select a run of two or more profiles to plan from it.")
        return
    left, right = st.columns(2)
    difference = left.number_input(
        "Difference to detect (points)", 0.5, 50.0, DEFAULT_POINTS, 0.5, key="plan_difference"
    )
    margin = right.number_input(
        "Interval half-width (points)", 0.5, 50.0, DEFAULT_POINTS, 0.5, key="plan_margin"
    )
    a = metrics[0]
    b = metrics[1] if len(metrics) > 1 else None
    plans = cache.study_plan(
        tuple(ch.scope(r) for r in ch.runs[:2]), difference / 100, margin / 100
    )
    pilots = f"{a.run} and {b.run}" if b is not None else a.run
    render.static_table(plan_frame(plans, difference, margin, tasks_of(cubes[0]), a.n_trials))
    st.caption(
        render.escape_md(
            f"Pilots: {pilots}; {ch.describe()}. " + plan_note(b is not None, a.n_trials)
        )
        + " The same as `python -m cimem plan` (docs/statistics.md)."
    )
