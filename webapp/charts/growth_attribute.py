"""One attribute's two charts on the Growth page: its leak frequency in each task where it is
private (a bar per task, every bar named), and its hazards over tasks and over samples."""

from __future__ import annotations

import altair as alt
import pandas as pd

from cimem.analysis.growth import AttributeView
from cimem.analysis.growth.attribute import NEXT_SAMPLE, NEXT_TASK


def leak_frequency_chart(view: AttributeView) -> alt.Chart:
    """A bar per task where the attribute is private: the share of its samples that leak it
    (p = c/n), most leaked on top."""
    pv = pd.DataFrame({"task": view.tasks, "p": view.p, "samples": view.samples})
    pv["leak frequency %"] = 100 * pv["p"]
    chart: alt.Chart = (
        alt.Chart(pv)
        .mark_bar()
        .encode(
            x=alt.X(
                "leak frequency %:Q",
                title="leak frequency p = c/n (% of this task's samples)",
                scale=alt.Scale(domain=[0, 100]),
            ),
            y=alt.Y(
                "task:N",
                sort="-x",
                title=None,
                axis=alt.Axis(labelLimit=360, labelOverlap=False),  # every bar named
            ),
            tooltip=["task", alt.Tooltip("leak frequency %:Q", format=".0f"), "samples"],
        )
        .properties(height=max(120, 20 * len(pv)))
    )
    return chart


HAZARD_COLOURS = {NEXT_TASK: "#0072B2", NEXT_SAMPLE: "#E69F00"}  # Okabe-Ito blue and orange


def hazard_chart(view: AttributeView) -> alt.Chart:
    """The chance that the next task (or sample) is the first to leak the attribute, a line
    over tasks and one over samples, each stopping where it is undefined."""
    both = pd.concat(
        [
            pd.DataFrame({"step": range(1, len(curve) + 1), "hazard": curve, "over": over})
            for over, curve in ((NEXT_TASK, view.hazard_tasks), (NEXT_SAMPLE, view.hazard_samples))
        ]
    ).dropna()  # undefined after a sure leak
    both["hazard %"] = 100 * both["hazard"]
    chart: alt.Chart = (
        alt.Chart(both)
        .mark_line(point=True)
        .encode(
            x=alt.X(
                "step:Q", title="task or sample number", axis=alt.Axis(format="d", tickMinStep=1)
            ),
            y=alt.Y("hazard %:Q", title="hazard (%)"),
            color=alt.Color(
                "over:N",
                title=None,
                scale=alt.Scale(domain=list(HAZARD_COLOURS), range=list(HAZARD_COLOURS.values())),
                legend=alt.Legend(orient="bottom"),
            ),
            strokeDash=alt.StrokeDash(  # a second cue besides colour
                "over:N", scale=alt.Scale(domain=[NEXT_TASK, NEXT_SAMPLE], range=[[1, 0], [6, 3]])
            ),
            tooltip=["over", "step", alt.Tooltip("hazard %:Q", format=".1f")],
        )
        .properties(height=260)
    )
    return chart
