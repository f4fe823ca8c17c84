"""One Growth chart: Violation along tasks (at one k) or along samples (at one T), a line per
run that reaches that far, drawn in the page with its downloads, and what the page says around
it (the runs left out, a line hidden under another, the Monte Carlo error, where the paper's
points are when none is on it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from cimem.analysis.growth import (
    Axis,
    GrowthCurve,
    hidden_reason,
    largest_stderr,
    on_slice,
    runs_with_theory_hidden,
    slice_rows,
    slice_table,
    standard_error_note,
)
from cimem.demo.reference import FIGURE2
from cimem.publish import palette
from webapp import cache, render
from webapp.charts import growth as charts
from webapp.charts import linechart
from webapp.panels.growth.growth_settings import View


@dataclass(frozen=True)
class ChartText:
    """What one chart says: its x axis title; the words before the runs it leaves out; what to
    say when no run has a point; a note before the chart (only when there is one, if
    ``note_if_drawn``); its downloads' file name and its widgets' key."""

    x_title: str
    not_drawn: str
    empty: str
    note: str | None
    note_if_drawn: bool
    name: str
    key: str


def growth_chart(v: View, axis: Axis, at: int, text: ChartText) -> pd.DataFrame | None:
    """Violation along tasks (axis T, at k = ``at``) or along samples (axis k, at T = ``at``):
    one line per run that reaches ``at``, the others named. Returns the paper's points on the
    chart, or None when nothing is drawn."""
    slices = {r: _slice(v, axis, at, r) for r in v.runs.reaching(axis, at)}
    rows = [
        row
        for r, g in slices.items()
        for row in slice_rows(v.runs.name(r, g), g, axis, at, v.show_bound)
    ]
    left_out = v.runs.left_out(axis, at)
    if left_out:
        st.caption(text.not_drawn + ", ".join(render.escape_md(s) for s in left_out))
    if text.note and not text.note_if_drawn:
        st.info(text.note)
    if not rows:
        st.info(text.empty)
        return None
    if text.note and text.note_if_drawn:
        st.info(text.note)
    x_max = v.max_t if axis == Axis.TASKS else v.max_n
    data = pd.DataFrame(rows)
    groups = [g for g in palette.groups(v.colour_names) if data["run"].isin(g).any()]
    for i, group in enumerate(groups):
        part = data[data["run"].isin(group)]
        if len(groups) > 1:
            st.markdown(f"**Runs {_span(v, group)}** (chart {i + 1} of {len(groups)})")
        _draw(v, axis, at, text, x_max, part, _paper(v, axis, at, part, x_max), i)
    _hidden_note(v, slices, axis, at)
    largest = largest_stderr(slices.values())
    if largest is not None:
        st.caption(standard_error_note(largest))
    paper = _paper(v, axis, at, data, x_max)
    _paper_note(v, paper)
    return paper


def _slice(v: View, axis: Axis, at: int, run_id: int) -> GrowthCurve:
    """Run ``run_id``'s curve at every task count and k = ``at`` (axis T), or at every k and
    T = ``at`` (axis k)."""
    return cache.growth_slice(
        v.ch.scope(run_id),
        v.order,
        v.samples,
        v.method,
        tasks=None if axis == Axis.TASKS else (at,),
        trials=(at,) if axis == Axis.TASKS else None,
    )


def _paper(v: View, axis: Axis, at: int, data: pd.DataFrame, x_max: int) -> pd.DataFrame:
    """The paper's points on this chart with their labels' places (none when not shown)."""
    if not v.show_paper:
        return pd.DataFrame()
    return charts.paper_marks(on_slice(FIGURE2, axis, at, v.max_t, v.max_n), axis, data, x_max)


def _draw(
    v: View,
    axis: Axis,
    at: int,
    text: ChartText,
    x_max: int,
    data: pd.DataFrame,
    paper: pd.DataFrame,
    part: int = 0,
) -> None:
    """One chart (``part`` of the small multiples) drawn in the page
    (:mod:`webapp.charts.linechart`), whose own SVG and PNG buttons save it as drawn, and its
    numbers as CSV."""
    shown = charts.chart_data(axis, at, text.x_title, x_max, data, paper, v.colour_names)
    name, key = (
        (text.name, text.key) if part == 0 else (f"{text.name}_{part + 1}", f"{text.key}{part}")
    )
    linechart.line_chart(shown, key=f"{key}-chart", download=name)
    render.csv_download(lambda: _numbers(v, data), name, key)


def _span(v: View, group: list[str]) -> str:
    """Which of the selected runs a chart of the small multiples draws: "1-7 of 20"."""
    first = v.colour_names.index(group[0]) + 1
    return f"{first}-{first + len(group) - 1} of {len(v.colour_names)}"


def _numbers(v: View, data: pd.DataFrame) -> pd.DataFrame:
    """A chart's rows as its CSV, with how they were computed."""
    return slice_table(
        data,
        v.runs.judges(),
        mode=v.ch.opts.mode,
        label_rule=v.ch.opts.label_rule,
        order=v.order,
        samples=v.samples,
        method=v.method,
    )


def _hidden_note(v: View, slices: Mapping[int, GrowthCurve], axis: Axis, at: int) -> None:
    """Say which runs' 1-(1-p)^k line lies under their observed one, and why when n = 1."""
    hidden = runs_with_theory_hidden(slices, v.runs, axis, at, v.show_bound)
    if not hidden:
        return
    n_of = v.runs.samples_per_task()
    why = hidden_reason(n_of.get(r, 0) for r in hidden)
    st.caption(
        f"For {', '.join(render.escape_md(r) for r in hidden)}, 1-(1-p)^k equals observed at"
        f" every point drawn{why}, so the dashed line lies under the solid one."
    )


def _paper_note(v: View, shown: pd.DataFrame) -> None:
    """Say where the paper's points are when none is on this chart."""
    if not v.show_paper or not shown.empty:
        return
    where = "; ".join(f"(T = {t}, k = {k})" for t, k, _ in FIGURE2)
    st.caption(
        f"The paper's Figure 2 points are at {where}; none is on this chart"
        f" (these runs have {v.max_t} tasks and n = {v.max_n})."
    )
