"""The Learn page simulator's two charts: the attributes' leak chances, and the simulated worst
case against the two formulas as tasks accumulate."""

from __future__ import annotations

import altair as alt
import numpy as np
import pandas as pd

from cimem.analysis.learn.simulator import CURVES

CURVE_COLOURS = ("#D55E00", "#0072B2", "#555555")  # per curve: Okabe-Ito vermillion, blue; grey


def chances_chart(p: np.ndarray) -> alt.Chart:
    """How the simulated attributes' chances per sample are spread, in percent."""
    chart: alt.Chart = (
        alt.Chart(pd.DataFrame({"p": 100 * p}))
        .mark_bar()
        .encode(
            x=alt.X("p:Q", bin=alt.Bin(maxbins=30), title="p per sample (%)"),
            y=alt.Y("count():Q", title="attributes"),
        )
        .properties(height=300, title="The attributes' chances")
    )
    return chart


def simulator_chart(curves: pd.DataFrame) -> alt.LayerChart:
    """The simulated worst case against the two formulas: the simulation drawn last and wider,
    on top (the own-p formula often lies on it), each line's colour and dash in the legend."""
    legend = alt.Legend(orient="bottom", labelLimit=400, symbolType="stroke")
    base = alt.Chart(curves).encode(
        x=alt.X("tasks T:Q", axis=alt.Axis(format="d", tickMinStep=1)),
        y=alt.Y("Violation %:Q", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color(
            "curve:N",
            title=None,
            scale=alt.Scale(domain=list(CURVES), range=list(CURVE_COLOURS)),
            legend=legend,
        ),
        strokeDash=alt.StrokeDash(
            "curve:N",
            scale=alt.Scale(domain=list(CURVES), range=[[1, 0], [6, 3], [2, 2]]),
            legend=legend,
        ),
        tooltip=["tasks T", "curve", alt.Tooltip("Violation %:Q", format=".1f")],
    )
    simulated = alt.datum.curve == CURVES[0]
    formulas = base.transform_filter(~simulated).mark_line(point=True, strokeWidth=2)
    observed = base.transform_filter(simulated).mark_line(point=True, strokeWidth=3.5)
    chart: alt.LayerChart = (formulas + observed).properties(
        height=300, title="Worst case as tasks accumulate"
    )
    return chart
