"""Growth's line charts and Overview's trade-off scatter drawn as SVG in the page, with no chart
library.

As Vega charts, Growth's two charts were about 0.7 s of its first load in a browser (measured
against the same page without them): the chart library's code, then each chart's compilation.
Here a chart is drawn from its points by about 160 lines of script: integer x ticks, a y axis in
percent from zero, one colour per run and one dash per curve, both named in a legend under the
chart, a tooltip on every point, the paper's points as labelled diamonds; for a scatter, each
series' points labelled with its name and a fixed top to the y axis (Overview's trade-off as a
Vega chart was about 0.4 s of its first load). Every name is set as text, never read as HTML.
With a ``download`` name, two buttons under the chart save it as SVG or PNG, made in the browser
from the chart as drawn (with its legend), so the file is the chart on screen.
"""

from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd
import streamlit as st

from webapp.charts import assets

NAME = "cimem_linechart"
JS, CSS = assets("linechart")
_CHART = st.components.v2.component(NAME, js=JS, css=CSS)


@dataclass(frozen=True)
class Encoding:
    """How a chart reads its rows: which column is x, y, colour, dash and the tooltip's extra
    value, with their titles; ``fixed`` is the coordinate that is the same for every point (its
    title in tooltips, its value)."""

    x: str
    x_title: str
    x_tip: str
    y: str
    y_title: str
    y_tip: str
    colour: str
    dash: str
    colour_title: str = ""
    dash_title: str = ""
    extra: str | None = None
    extra_tip: str = ""
    fixed: tuple[str, int] | None = None
    label: str | None = None  # a column naming each series: its points are labelled with it


def chart_data(
    rows: pd.DataFrame,
    enc: Encoding,
    *,
    colours: dict[str, str],
    dashes: dict[str, list[int]],
    x_ticks: list[int],
    x_domain: tuple[int, int],
    marks: pd.DataFrame | None = None,
    height: int = 400,
    y_top: float | None = None,
    end_labels: bool = False,
) -> dict:
    """What a chart is drawn from, compact: its axes; its colours and dashes, each (name, value)
    in legend order (``colours``: every name that may be drawn, so a name keeps its colour from
    chart to chart; only those drawn are in the legend); one series per (colour, dash) as
    [colour place, dash place, points], a point [x, y, extra or None] in x order; ``marks``
    (columns x, y, label, align, dx, dy) as diamonds with their labels. With ``enc.label``, one
    series per (colour, dash, label), its points labelled with it (a label "" is no label);
    ``y_top``: the y axis's top (else the largest value, rounded up); ``end_labels``: a
    series' label at its last point only (a line named at its end).

    >>> rows = pd.DataFrame({"T": [2, 1], "v": [5.0, 2.5], "run": ["a", "a"], "c": ["obs"] * 2})
    >>> enc = Encoding("T", "tasks", "tasks T", "v", "Violation (%)", "Violation %", "run", "c")
    >>> data = chart_data(rows, enc, colours={"a": "#111", "b": "#222"}, dashes={"obs": [1, 0]},
    ...     x_ticks=[1, 2], x_domain=(1, 2))
    >>> data["series"], data["colours"]
    ([[0, 0, [[1, 2.5, None], [2, 5.0, None]], '']], [['a', '#111']])
    """
    shown_colours = _drawn(colours, rows[enc.colour])
    shown_dashes = _drawn(dashes, rows[enc.dash])
    return {
        "x": {"title": enc.x_title, "tip": enc.x_tip, "ticks": x_ticks, "domain": list(x_domain)},
        "y": {"title": enc.y_title, "tip": enc.y_tip, "top": y_top},
        "extra": enc.extra_tip if enc.extra else None,
        "fixed": list(enc.fixed) if enc.fixed else None,
        "colourTitle": enc.colour_title,
        "dashTitle": enc.dash_title,
        "colours": [[c, colours[c]] for c in shown_colours],
        "dashes": [[d, dashes[d]] for d in shown_dashes],
        "series": _series(rows, enc, shown_colours, shown_dashes),
        "marks": _marks(marks, enc),
        "height": height,
        "endLabels": end_labels,
    }


def _drawn(names: Iterable[str], column: pd.Series) -> list[str]:
    """The names a legend shows: those of ``names`` (in their order, which fixes each one's
    colour or dash from chart to chart) that some row draws."""
    present = set(column)
    return [name for name in names if name in present]


def _series(
    rows: pd.DataFrame, enc: Encoding, shown_colours: list[str], shown_dashes: list[str]
) -> list[list]:
    """One series per (colour, dash[, label]) as [colour place, dash place, points, label],
    ordered so the first dash (the observed curve) is drawn last, on top."""
    series: list[tuple[int, int, list, str]] = []
    keys = [enc.colour, enc.dash] + ([enc.label] if enc.label else [])
    for group, part in rows.groupby(keys, sort=False):
        colour, dash = group[0], group[1]
        label = str(group[2]) if enc.label else ""
        series.append(
            (
                shown_colours.index(str(colour)),
                shown_dashes.index(str(dash)),
                _points(part, enc),
                label,
            )
        )
    series.sort(key=lambda s: (-s[1], s[0]))
    return [list(s) for s in series]


def _points(part: pd.DataFrame, enc: Encoding) -> list[list]:
    """One series' points [x, y, extra or None] in x order (a missing extra is None, so the
    tooltip leaves it out)."""
    part = part.sort_values(enc.x)
    extra = part[enc.extra] if enc.extra else pd.Series([None] * len(part), index=part.index)
    return [
        [_number(x), float(y), None if e is None or e != e else float(e)]
        for x, y, e in zip(part[enc.x], part[enc.y], extra, strict=True)
    ]


def _marks(marks: pd.DataFrame | None, enc: Encoding) -> list[list]:
    """The labelled diamonds (e.g. the paper's points) as [x, y, label, align, dx, dy]."""
    if marks is None or marks.empty:
        return []
    return [
        [_number(m[enc.x]), float(m[enc.y]), str(m["label"]), str(m["align"])]
        + [int(m["dx"]), int(m["dy"])]
        for _, m in marks.iterrows()
    ]


def _number(x: float) -> int | float:
    """An axis value as JSON: a whole number as an int."""
    return int(x) if float(x).is_integer() else float(x)


def line_chart(data: dict, key: str, download: str | None = None) -> None:
    """Draw a chart from :func:`chart_data`, as wide as the page; with ``download``, SVG and
    PNG buttons that save it as ``download``.svg and .png."""
    _CHART(data=with_download(data, download), key=key)


def with_download(data: dict, download: str | None) -> dict:
    """A chart's data with the file name its save buttons use (none: no buttons).

    >>> with_download({"height": 400}, "growth"), with_download({"height": 400}, None)
    ({'height': 400, 'download': 'growth'}, {'height': 400})
    """
    return {**data, "download": download} if download else data
