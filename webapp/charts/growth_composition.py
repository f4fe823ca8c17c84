"""The memory-composition chart on the Growth page: a line per measure over the memories of the
curve's axis in the prompt (withheld, needed, or both), drawn in the page (:mod:`webapp.charts.linechart`; as a Vega chart it
loaded the chart library for this one chart), whose own buttons save the SVG and PNG as drawn."""

from __future__ import annotations

import pandas as pd

from cimem.analysis.composition import CompositionAxis
from cimem.analysis.growth import Measure
from webapp.charts import linechart

COLOURS = {  # measure: colour (Okabe-Ito: red, orange and green were one under deuteranopia)
    str(Measure.LEAK_RATE): "#D55E00",
    str(Measure.ANY_LEAK): "#CC79A7",
    str(Measure.COMPLETENESS): "#0072B2",
}


def chart_data(rows: pd.DataFrame, axis: CompositionAxis = CompositionAxis.WITHHELD) -> dict:
    """What the page draws the chart from (:func:`linechart.chart_data`): one solid line per
    measure over the curve's steps (``axis``), about ten integer ticks, the y axis in percent up
    to 100."""
    x = str(axis)
    enc = linechart.Encoding(
        x=x,
        x_title=axis.label,
        x_tip=f"{x} memories" if axis != CompositionAxis.MEMORIES else "memories",
        y="value",
        y_title="Share (%)",
        y_tip="share %",
        colour="measure",
        dash="line",
        extra="messages",
        extra_tip="judged messages at this step",
    )
    low, high = int(rows[x].min()), int(rows[x].max())
    step = max(1, -(-(high - low) // 10))
    return linechart.chart_data(
        rows.assign(line=""),
        enc,
        colours=COLOURS,
        dashes={"": [1, 0]},
        x_ticks=sorted({*range(low, high + 1, step), high}),
        x_domain=(low, max(high, low + 1)),
        height=320,
        y_top=100,
    )
