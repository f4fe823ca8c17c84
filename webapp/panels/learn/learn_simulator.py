"""The Learn page's simulator: sliders that shape the attributes' leak chances, the simulated
worst case against 1-(1-p)^(T·n), and a caption saying how far the one-p formula misses. The
simulation is cimem.demo.teaching's, its curves cimem.analysis.learn.simulator's, the charts
webapp.charts.learn_simulator's (drawn in the page, as Growth's)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import streamlit as st

from cimem.analysis.learn.simulator import curve_table, one_p_gap, own_p_follows
from cimem.demo.teaching import MixedSimulation, attribute_chances, simulate_mixed
from webapp import render
from webapp.charts import linechart
from webapp.charts.learn_simulator import chances_chart, simulator_chart

ATTRIBUTES, SEED = 300, 1


class Shape(NamedTuple):
    """What the sliders chose: the chances' mean, spread and share that never leak, and how
    many tasks and samples per task each attribute is withheld in."""

    mean: float
    spread: float
    never: float
    tasks: int
    samples: int


@st.fragment
def simulator() -> None:
    """The sliders, the headline numbers, both charts and the caption; a fragment, so moving a
    slider reruns only this."""
    shape = _sliders()
    p = attribute_chances(shape.mean, shape.spread, shape.never, attributes=ATTRIBUTES, seed=SEED)
    sim = simulate_mixed(p, shape.tasks, shape.samples, seed=SEED)
    _headline(p, sim)
    left, right = st.columns([1, 2])
    with left:
        st.markdown("**The attributes' chances**")
        linechart.line_chart(chances_chart(p), key="sim_hist", download="simulator_p")
    with right:
        st.markdown("**Worst case as tasks accumulate**")
        linechart.line_chart(simulator_chart(curve_table(sim)), key="sim", download="simulator")
    st.caption(_caption(len(p), shape.samples, sim))


def _sliders() -> Shape:
    """The simulator's five sliders, in two rows."""
    c1, c2, c3 = st.columns(3)
    mean = c1.slider("Mean leak chance per sample p", 0.0, 0.2, 0.02, step=0.005, key="sim_p")
    spread = c2.slider(
        "Spread of p across attributes",
        0.0,
        0.95,
        0.5,
        step=0.05,
        key="sim_spread",
        help="0: every attribute has the same p; near 1: a few attributes leak often, most rarely",
    )
    never = c3.slider(
        "Share of attributes that never leak", 0.0, 0.9, 0.0, step=0.05, key="sim_never"
    )
    c4, c5 = st.columns(2)
    tasks = c4.slider("Tasks where each attribute is withheld", 1, 40, 10, key="sim_tasks")
    n = c5.slider("Samples per task n", 1, 10, 5, key="sim_n")
    return Shape(mean, spread, never, tasks, n)


def _headline(p: np.ndarray, sim: MixedSimulation) -> None:
    """The mean chance, the simulated worst case and the one-p formula, after all tasks."""
    m1, m2, m3 = st.columns(3)
    m1.metric("mean p per sample", render.pct(float(p.mean())))
    m2.metric("simulated Violation", render.pct(sim.observed[-1]))
    m3.metric(
        "1-(1-p)^(T·n), one p",
        render.pct(sim.one_p[-1]),
        delta=f"{100 * one_p_gap(sim):+.1f} points vs simulated",
        delta_color="off",
    )


def _caption(attributes: int, n: int, sim: MixedSimulation) -> str:
    """What the charts show and which way, and how far, the one-p formula misses here."""
    gap = one_p_gap(sim)
    return (
        "formula: 1-(1-p)^(T·n), with the mean p for every attribute (one p for all) or averaged"
        f" over each attribute's own p. {attributes} simulated attributes, seed {SEED}, n = {n}"
        " samples per task. With uneven chances the one-p formula "
        + ("over-states" if gap > 0 else "under-states")
        + f" the observed worst case here by {abs(100 * gap):.1f} points: attributes that"
        " rarely leak keep the share down while a few sure leakers saturate early. With equal"
        " chances (spread 0) the formula and the simulation agree up to sampling noise."
        + (
            " The formula with each attribute's own p follows the simulation: its dotted line"
            " lies under the simulated curve (vermillion)."
            if own_p_follows(sim)
            else ""
        )
    )
