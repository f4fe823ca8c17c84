"""The Growth page's settings (task order, samples, the random order's method, the union bound
and the paper's points) and every selected run's curve at all its tasks, which give the sliders
their ranges; with the caption that says how the curves were computed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from cimem.analysis.growth import EXPECTED_RATIO, RATIO_OF_EXPECTATIONS, RunCurves, how_computed
from cimem.analysis.leaderboard import UNKNOWN, selection_phrase
from cimem.demo.reference import FIGURE2_NOTE
from cimem.text import plural
from webapp import cache, render, sidebar
from webapp.panels.growth import growth_link

ALL = 10**6  # "every task": growth() clamps a task count to the run's number of tasks
METHODS = {
    EXPECTED_RATIO: "expected ratio (Figure 2)",
    RATIO_OF_EXPECTATIONS: "ratio of expected counts",
}


@dataclass(frozen=True)
class View:
    """What the growth charts are drawn for: the chosen settings, each run's curve at all its
    tasks, and every selected run's name in order (so each keeps its colour on every chart)."""

    ch: sidebar.Choices
    order: str
    samples: str
    method: str
    show_bound: bool
    show_paper: bool
    runs: RunCurves
    colour_names: tuple[str, ...]

    @property
    def max_t(self) -> int:
        return self.runs.max_tasks

    @property
    def max_n(self) -> int:
        return self.runs.max_samples


def settings(ch: sidebar.Choices, run_ids: list[int], names: Mapping[int, str]) -> View:
    """The order, samples and method radios, the two toggles, and every run's curve at all its
    tasks (small and cheap: all tasks is one subset); the charts ask for their own slices."""
    order, samples, method = _radios()
    curves = {
        r: cache.growth_slice(ch.scope(r), order, samples, method, tasks=(ALL,)) for r in run_ids
    }
    show_bound, show_paper = _toggles(order)
    return View(
        ch,
        order,
        samples,
        method,
        show_bound,
        show_paper,
        RunCurves(curves, names),
        tuple(names.get(r, str(r)) for r in ch.views()),  # every view: colours as Overview's
    )


def _radios() -> tuple[str, str, str]:
    """The task order, the samples and the random order's method (only for a random order),
    from the link and kept in it."""
    growth_link.restore()
    c1, c2, c3 = st.columns([3, 2, 3])
    order = c1.radio(
        "Task order",
        growth_link.ORDERS,
        horizontal=True,
        key="order",
        help="random: the average over random sets of T tasks; fixed: the tasks in their listed"
        " order; worst: a greedy order that leaks most (an upper envelope)",
    )
    samples = c2.radio(
        "Samples",
        growth_link.SAMPLES,
        horizontal=True,
        key="samples",
        help="first: the first k samples of each task; unbiased: the estimator from all n",
    )
    method = c3.radio(
        "Random order: average of",
        list(METHODS),
        format_func=lambda k: METHODS[k],
        horizontal=True,
        key="method",
        disabled=order != "random",
        help="expected ratio: the mean of Violation over random task sets, what the paper's"
        " Figure 2 samples (Monte Carlo over random task orders, with its standard error);"
        " ratio of expected counts: expected leaked attributes over expected eligible ones"
        " (exact, slightly different)",
    )
    growth_link.remember()
    return str(order), str(samples), str(method)


def _toggles(order: str) -> tuple[bool, bool]:
    """Whether to draw the union bound (a random order only) and the paper's Figure 2 points."""
    o1, o2 = st.columns(2)
    show_bound = o1.toggle(
        "Union bound T·V(1)",
        value=False,
        disabled=order != "random",
        help="For random task sets the ratio of expected counts can never exceed T times its"
        " value at one task; that is why the paper's 9.6% over 40 tasks cannot be a plain"
        " random average.",
        key="growth_bound",
    )
    show_paper = o2.toggle(
        "Paper's Figure 2 (GPT-5)",
        value=True,
        help=FIGURE2_NOTE,
        key="growth_paper",
    )
    return show_bound, show_paper


def how_computed_caption(v: View) -> None:
    """The caption saying how the curves below were computed and, in a phrase, which runs (each
    run's judge, tasks and samples per task listed under it)."""
    how = how_computed(v.order, v.method)
    curves = v.runs.curves
    models = {e.run_id: e.model for e in cache.board_entries(v.ch.at)}
    phrase = selection_phrase(
        [models.get(r, UNKNOWN) for r in curves],
        [g.judge for g in curves.values()],
        [g.n_tasks for g in curves.values()],
        [g.n_trials for g in curves.values()],
    )
    st.caption(
        f"{render.escape_md(phrase)}; "
        + v.ch.describe()
        + f"; order **{v.order}**, {how}, samples **{v.samples}**. Theory: 1-(1-p)^k with"
        " p = c/n per attribute and task (a plug-in estimate from the same samples)."
    )
    if len(curves) > 1:
        with st.expander(f"The {len(curves)} runs: judge, tasks, samples per task"):
            st.markdown(
                "\n".join(
                    f"- **{render.escape_md(v.runs.name(r))}**: model"
                    f" {render.escape_md(models.get(r, UNKNOWN))}, judge"
                    f" {render.escape_md(g.judge)}, {plural(g.n_tasks, 'task')}, n = {render.escape_md(g.n_said or str(g.n_trials))}"
                    for r, g in curves.items()
                )
            )
