"""The memory-composition chart on the Growth page: a line per measure over the withheld
memories in the prompt, drawn in the page (:mod:`webapp.charts.linechart`; as a Vega chart it
loaded the chart library for this one chart), whose own buttons save the SVG and PNG as drawn."""

from __future__ import annotations

import pandas as pd

from cimem.analysis.growth import Measure
from webapp.charts import linechart

COLOURS = {  # measure: colour (Okabe-Ito: red, orange and green were one under deuteranopia)
    str(Measure.LEAK_RATE): "#D55E00",
    str(Measure.ANY_LEAK): "#CC79A7",
    str(Measure.COMPLETENESS): "#0072B2",
}
X_TITLE = "withheld memories in the prompt"


def chart_data(rows: pd.DataFrame) -> dict:
    """What the page draws the chart from (:func:`linechart.chart_data`): one solid line per
    measure, about ten integer ticks over the steps, the y axis in percent up to 100."""
    enc = linechart.Encoding(
        x="withheld",
        x_title=X_TITLE,
        x_tip="withheld memories",
        y="value",
        y_title="Share (%)",
        y_tip="share %",
        colour="measure",
        dash="line",
        extra="messages",
        extra_tip="judged messages at this step",
    )
    low, high = int(rows["withheld"].min()), int(rows["withheld"].max())
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
