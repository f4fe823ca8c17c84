"""Overview's trade-off chart: violation against completeness with the Pareto front, drawn in the
page (:mod:`webapp.charts.linechart`), and its downloads: the SVG/PNG the chart's own buttons save
from the chart as drawn, and the points' CSV."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from cimem.analysis.overview_table import PUBLISHED, THIS_DATABASE
from cimem.publish import palette
from webapp import render
from webapp.charts import linechart

FRONT = "Pareto front of this database's runs"
X_TITLE = "Violation@n (%) — lower is better"
Y_TITLE = "Completeness (%) — higher is better"


def front_caption(runs: int, on_front: int) -> str:
    """What the dashed line is, or why there is none: a front needs two runs neither of which
    beats the other on both numbers."""
    if on_front > 1:
        return (
            f"Dashed: the Pareto front of this database's runs, {on_front} of the {runs} drawn"
            " (no other run has both lower violation and higher completeness)."
        )
    if runs == 0:
        return "No run of this database has both numbers, so none is drawn."
    if runs == 1:
        return "One run of this database is drawn: there is no Pareto front to join."
    return (
        f"No dashed front: one of the {runs} runs has both the lowest violation and the highest"
        " completeness, so it alone is the Pareto front."
    )


def tradeoff_chart_data(
    data: pd.DataFrame, front_data: pd.DataFrame, runs: Sequence[str] = ()
) -> dict[str, Any]:
    """What the page's chart draws: every point labelled with its name, each run of this
    database in its colour (``runs``: the selection in order, so a run has its Growth colour;
    the published points grey), and the front (when it joins two or more) as a dashed line
    without labels."""
    ours = data["source"] == THIS_DATABASE
    names = [*runs, *(n for n in data.loc[ours, "name"] if n not in runs)]
    rows = pd.concat(
        [
            data.assign(line="", label=data["name"], colour=data["name"].where(ours, PUBLISHED)),
            front_data.assign(line=FRONT, label="", colour="") if len(front_data) > 1 else None,
        ]
    )
    enc = linechart.Encoding(
        x="violation",
        x_title=X_TITLE,
        x_tip="Violation@n %",
        y="completeness",
        y_title=Y_TITLE,
        y_tip="Completeness %",
        colour="colour",
        dash="line",
        label="label",
    )
    return linechart.chart_data(
        rows,
        enc,
        # the front's colour is named "": the legend names it among the lines
        colours=palette.run_colours(names) | {PUBLISHED: palette.OTHER, "": palette.OTHER},
        dashes={"": [1, 0], FRONT: [4, 3]},
        x_ticks=list(range(0, 101, 20)),
        x_domain=(0, 100),
        height=380,
        y_top=100,
    )


def tradeoff(
    data: pd.DataFrame,
    front_data: pd.DataFrame,
    how: Mapping[str, str],
    runs: Sequence[str] = (),
) -> None:
    """Draw the trade-off chart, its downloads (the CSV with ``how`` the numbers were computed)
    and the caption that says what the dashed line is."""
    linechart.line_chart(
        tradeoff_chart_data(data, front_data, runs), key="tradeoff-chart", download="tradeoff"
    )
    render.csv_download(
        lambda: data.rename(
            columns={"name": "run", "violation": "violation %", "completeness": "completeness %"}
        ).assign(**how),
        "tradeoff",
        "tradeoff",
    )
    drawn = int((data["source"] == THIS_DATABASE).sum())
    st.caption(front_caption(drawn, len(front_data)))
