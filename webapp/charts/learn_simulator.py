"""The Learn page simulator's two charts, drawn in the page (:mod:`webapp.charts.linechart`): the
attributes' leak chances, and the simulated worst case against the two formulas as tasks
accumulate. As Vega charts they were the page's only ones, so opening the simulator loaded and
started the chart library: about 0.45 s of the 0.7 s it took in chromium."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from cimem.analysis.learn.simulator import CURVES
from webapp.charts import linechart

CURVE_COLOURS = ("#D55E00", "#0072B2", "#555555")  # per curve: Okabe-Ito vermillion, blue; grey
CURVE_DASHES = ([1, 0], [6, 3], [2, 2])  # the simulation solid; the formulas dashed, dotted
CHANCE_BINS = 30
CHANCES = "share of attributes"  # the chances chart's one line


def chances_chart(p: np.ndarray) -> dict:
    """How the simulated attributes' chances per sample are spread: the share of attributes in
    each of 30 bins of p (in percent), a point at each bin's centre.

    >>> data = chances_chart(np.array([0.0, 0.01, 0.01, 0.05]))
    >>> data["x"]["domain"], data["x"]["ticks"], [round(y) for _, y, _ in data["series"][0][2]][:2]
    ([0, 5], [0, 1, 2, 3, 4, 5], [25, 0])
    """
    top = max(float(np.max(p)) * 100 if len(p) else 0.0, 1.0)
    counts, edges = np.histogram(100 * np.asarray(p, float), bins=CHANCE_BINS, range=(0, top))
    rows = pd.DataFrame(
        {
            "p": np.round((edges[:-1] + edges[1:]) / 2, 3),
            "share": 100 * counts / max(len(p), 1),
            "count": counts,
            "what": CHANCES,
        }
    )
    enc = linechart.Encoding(
        x="p",
        x_title="p per sample (%), in 30 bins",
        x_tip="p per sample % (bin centre)",
        y="share",
        y_title="Attributes (%)",
        y_tip="attributes %",
        colour="what",
        dash="line",
        extra="count",
        extra_tip="attributes",
    )
    step = next(s for s in (1, 2, 5, 10, 20, 25, 50) if top / s <= 8)  # at most 8 steps
    high = step * math.ceil(top / step)
    return linechart.chart_data(
        rows.assign(line=""),  # one line: named by its colour alone in the legend
        enc,
        colours={CHANCES: CURVE_COLOURS[1]},
        dashes={"": [1, 0]},
        x_ticks=list(range(0, high + 1, step)),
        x_domain=(0, high),
        height=300,
    )


def simulator_chart(curves: pd.DataFrame) -> dict:
    """The simulated worst case against the two formulas over tasks T: one colour and dash per
    curve, named in the legend; the simulation is drawn last, on top (the formula with each
    attribute's own p often lies on it), the y axis from 0 to 100%.

    >>> rows = pd.DataFrame({"tasks T": [1, 1], "curve": list(CURVES[:2]), "Violation %": [9, 8]})
    >>> [(s[0], s[1]) for s in simulator_chart(rows)["series"]]  # (colour, dash): simulated last
    [(1, 1), (0, 0)]
    """
    enc = linechart.Encoding(
        x="tasks T",
        x_title="tasks T",
        x_tip="tasks T",
        y="Violation %",
        y_title="Violation (%)",
        y_tip="Violation %",
        colour="curve",
        dash="curve",
    )
    tasks = int(curves["tasks T"].max()) if len(curves) else 1
    step = max(1, math.ceil(tasks / 10))
    return linechart.chart_data(
        curves,
        enc,
        colours=dict(zip(CURVES, CURVE_COLOURS, strict=True)),
        dashes=dict(zip(CURVES, CURVE_DASHES, strict=True)),
        x_ticks=sorted({*range(1, tasks + 1, step), tasks}),
        x_domain=(1, max(tasks, 2)),
        height=300,
        y_top=100,
    )
