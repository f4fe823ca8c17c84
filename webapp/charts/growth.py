"""Growth's two Violation charts: one colour per run (:mod:`cimem.publish.palette`), each run's
observed line named at its end (a second cue beside colour), one dash per line (observed,
independence, union bound), integer x ticks, the paper's Figure 2 points as labelled diamonds;
drawn in the page (:mod:`webapp.charts.linechart`), whose own buttons save the SVG and PNG as
drawn."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from cimem.analysis.growth import Axis, Line
from cimem.publish import palette
from webapp import render
from webapp.charts import linechart

OBSERVED, THEORY, BOUND = str(Line.OBSERVED), str(Line.THEORY), str(Line.BOUND)
STYLES = {OBSERVED: [1, 0], THEORY: [6, 4], BOUND: [2, 3]}  # each line's dash
END_LABEL_CHARS = 18  # a longer run name is named at its line's end by its id


def ticks(n: int) -> list[int]:
    """Integer x ticks from 1 to ``n``, every one, fifth or tenth as the axis grows.

    >>> ticks(5), ticks(22)
    ([1, 2, 3, 4, 5], [1, 5, 10, 15, 20, 22])
    """
    step = 1 if n <= 12 else (5 if n <= 60 else 10)
    return sorted({1, *range(step, n + 1, step), n})


def end_label(run: str) -> str:
    """What a run's line is named by at its end: its name, or its id ("17: ...") when long.

    >>> end_label("3: gpt-4o level 1"), end_label("17: a run with a long name")
    ('3: gpt-4o level 1', '17')
    """
    return run if len(run) <= END_LABEL_CHARS else run.split(":", 1)[0]


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
        label="tag",
    )
    tags = [end_label(r) if c == OBSERVED else "" for r, c in zip(data["run"], data["curve"])]
    return linechart.chart_data(
        data.assign(tag=tags),
        enc,
        colours=palette.run_colours(runs),
        end_labels=True,
        dashes={c: STYLES[c] for c in styles_of(data)},
        x_ticks=ticks(x_max),
        x_domain=(1, max(2, x_max)),
        marks=paper,
    )
