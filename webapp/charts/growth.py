"""Growth's two Violation charts: one colour per run, one dash per line (observed, independence,
union bound), integer x ticks, the paper's Figure 2 points as labelled diamonds; drawn in the page
(:mod:`webapp.charts.linechart`) and, for the SVG and PNG downloads, as a Vega-Lite layout of
the same rows."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from cimem.analysis.growth import Axis, Line
from webapp import render
from webapp.charts import linechart

OBSERVED, THEORY, BOUND = str(Line.OBSERVED), str(Line.THEORY), str(Line.BOUND)
STYLES = {OBSERVED: [1, 0], THEORY: [6, 4], BOUND: [2, 3]}  # each line's dash
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"] * 20


def ticks(n: int) -> list[int]:
    """Integer x ticks from 1 to ``n``, every one, fifth or tenth as the axis grows.

    >>> ticks(5), ticks(22)
    ([1, 2, 3, 4, 5], [1, 5, 10, 15, 20, 22])
    """
    step = 1 if n <= 12 else (5 if n <= 60 else 10)
    return sorted({1, *range(step, n + 1, step), n})


def styles_of(data: pd.DataFrame) -> tuple[str, ...]:
    """The lines drawn in a chart's rows, in legend order."""
    return tuple(c for c in STYLES if c in set(data["curve"]))


def paper_marks(
    points: Sequence[tuple[int, int, float]], axis: Axis, curves: pd.DataFrame, x_max: int
) -> pd.DataFrame:
    """The paper's points on a chart (:func:`cimem.analysis.growth.runs.on_slice`), each with
    where its label goes: above the curves at its x when it is as high as they are, else below
    (:func:`render.label_place`)."""
    marks = []
    for t, k, pv in points:
        x = k if axis == Axis.SAMPLES else t
        here = curves.loc[curves[str(axis)] == x, "violation"]
        align, dx, dy = render.label_place(
            (x - 1) / max(1, x_max - 1), above=here.empty or pv >= here.max()
        )
        label = f"GPT-5, paper (T={t}, k={k}): {pv}%"
        marks.append(
            {"T": t, "k": k, "violation": pv, "label": label, "align": align, "dx": dx, "dy": dy}
        )
    return pd.DataFrame(marks)


def chart_data(
    axis: Axis,
    at: int,
    x_title: str,
    x_max: int,
    data: pd.DataFrame,
    paper: pd.DataFrame,
    runs: tuple[str, ...],
) -> dict:
    """What the page draws a growth chart from (:func:`linechart.chart_data`): along tasks
    (``axis`` T, at k = ``at``) or along samples (at T = ``at``); ``runs``: every run, so each
    keeps its colour on both charts, drawn or not."""
    enc = linechart.Encoding(
        x=str(axis),
        x_title=x_title,
        x_tip="tasks T" if axis == Axis.TASKS else "samples k",
        y="violation",
        y_title="Violation (%)",
        y_tip="Violation %",
        colour="run",
        dash="curve",
        colour_title="run",
        dash_title="line",
        extra="se",
        extra_tip="± Monte Carlo error over task orders (points)",
        fixed=("samples k", at) if axis == Axis.TASKS else ("tasks T", at),
    )
    return linechart.chart_data(
        data,
        enc,
        colours=dict(zip(runs, PALETTE, strict=False)),
        dashes={c: STYLES[c] for c in styles_of(data)},
        x_ticks=ticks(x_max),
        x_domain=(1, max(2, x_max)),
        marks=paper,
    )


def download_spec(
    axis: Axis,
    x_title: str,
    x_max: int,
    data: pd.DataFrame,
    paper: pd.DataFrame,
    runs: tuple[str, ...],
) -> dict:
    """The Vega-Lite chart a growth chart's SVG and PNG downloads draw, its rows written in."""
    layout = render.layout(
        download_layout, str(axis), x_title, x_max, styles_of(data), not paper.empty, runs
    )
    return render.with_rows(layout, {"rows": data, **({"paper": paper} if len(paper) else {})})


def download_layout(
    x: str, x_title: str, x_max: int, styles: tuple[str, ...], with_paper: bool, runs: tuple
) -> alt.LayerChart:
    """The Vega-Lite chart that a growth chart's SVG and PNG downloads draw: one colour per run
    (``runs``: every run, so each keeps its colour on both charts, drawn or not), one dash per
    curve, integer x axis; the Figure 2 points labelled. The curves are the dataset "rows", the
    paper's points "paper" (a layout: :func:`render.layout`)."""
    axis = alt.Axis(tickMinStep=1, format="d", values=ticks(x_max))
    base = alt.Chart(alt.NamedData("rows")).encode(
        x=alt.X(f"{x}:Q", title=x_title, axis=axis, scale=alt.Scale(domain=[1, max(2, x_max)])),
        y=alt.Y("violation:Q", title="Violation (%)"),
        color=alt.Color(
            "run:N",
            title="run",
            scale=alt.Scale(domain=list(runs), range=PALETTE[: len(runs)]),
            legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=400),
        ),
        tooltip=[
            "run:N",
            "curve:N",
            alt.Tooltip("T:Q", title="tasks T"),
            alt.Tooltip("k:Q", title="samples k"),
            alt.Tooltip("violation:Q", title="Violation %", format=".2f"),
            alt.Tooltip("se:Q", title="± standard error (points)", format=".3f"),
        ],
    )
    layers = base.mark_line(strokeWidth=2).encode(strokeDash=_dashes(styles)) + base.mark_point(
        filled=True, size=30
    )
    if with_paper:
        diamonds, labels = _paper_layers(x)
        layers = layers + diamonds + labels
    return layers.properties(height=400)


def _dashes(styles: tuple[str, ...]) -> alt.StrokeDash:
    """One dash per line drawn, named in a legend of strokes under the chart."""
    return alt.StrokeDash(
        "curve:N",
        title="line",
        scale=alt.Scale(domain=list(styles), range=[STYLES[c] for c in styles]),
        legend=alt.Legend(
            orient="bottom",
            direction="vertical",
            symbolType="stroke",
            symbolStrokeColor="#333",
            symbolStrokeWidth=2,
            symbolSize=600,
            labelLimit=400,
        ),
    )


def _paper_layers(x: str) -> tuple[alt.Chart, alt.Chart]:
    """The paper's points (dataset "paper") as black diamonds, and their labels placed as
    :func:`paper_marks` says (two layers, each layered on the curves)."""
    pts = alt.Chart(alt.NamedData("paper")).encode(x=f"{x}:Q", y="violation:Q")
    diamonds = pts.mark_point(shape="diamond", size=140, color="black", filled=True).encode(
        tooltip=["label:N", alt.Tooltip("violation:Q", title="published %")]
    )
    labels = pts.mark_text(
        fontSize=12,
        align=alt.ExprRef("datum.align"),
        dx=alt.ExprRef("datum.dx"),
        dy=alt.ExprRef("datum.dy"),
    ).encode(text="label:N")
    return diamonds, labels
