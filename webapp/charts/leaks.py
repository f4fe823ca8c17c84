"""The Leaks heatmap: its colours, its legend, the table on screen (:mod:`webapp.charts.heatgrid`) and its
downloads (an SVG/PNG chart of the same cells and their CSV), one specification for all of them."""

from __future__ import annotations

import functools
from collections.abc import Mapping

import altair as alt
import pandas as pd
import streamlit as st

from cimem.analysis.leak_table import heatmap_csv
from webapp import render
from webapp.charts.heatgrid import heat_grid

LEGEND_BOX = "display:inline-block;vertical-align:middle;border:1px solid #ccc"


def heatmap_layout(colour: str) -> alt.Chart:
    """The heatmap as a chart, for its downloads (on screen it is a table,
    :mod:`webapp.charts.heatgrid`): every row labelled, rows and columns in the order of the cells'
    row_order and column_order, coloured by ``colour``: "frequency" (the leak frequency's
    scale, white at 0%) or "label"; a place with no cell grey, as on screen. A layout:
    :func:`render.layout`."""
    return (
        alt.Chart(alt.NamedData("cells"))
        .mark_rect(stroke="#e6e6e6", strokeWidth=0.5)
        .encode(
            x=alt.X(
                "column:N",
                title=None,
                sort=alt.EncodingSortField("column_order", op="min"),
                axis=alt.Axis(labelAngle=-90, labelLimit=240, labelOverlap=False, orient="top"),
            ),
            y=alt.Y(
                "row:N",
                title=None,
                sort=alt.EncodingSortField("row_order", op="min"),
                axis=alt.Axis(labelLimit=260, labelOverlap=False, labelFontSize=11),
            ),
            color=_colour_scale(colour),
        )
        .properties(
            height=alt.Step(18),
            width=alt.Step(18),
            title=alt.TitleParams(
                "grey: " + ("not withheld in that task" if colour == "frequency" else "no label"),
                orient="bottom",
                anchor="start",
                fontSize=11,
                fontWeight="normal",
            ),
        )
        .configure_view(fill=render.NO_CELL_COLOUR)  # a place with no cell, as on screen
    )


def _colour_scale(colour: str) -> alt.Color:
    """The downloaded chart's colours, those of the table on screen: the leak frequency's ramp
    ("frequency") or the labels' colours."""
    if colour == "frequency":
        return alt.Color(
            "frequency:Q",
            title="leak frequency",
            scale=alt.Scale(domain=render.LEAK_STOPS, range=render.LEAK_COLOURS, interpolate="rgb"),
            legend=alt.Legend(format=".0%", values=[0, 0.05, 0.25, 0.5, 1]),
        )
    return alt.Color(
        "label:N",
        title="label",
        scale=alt.Scale(
            domain=list(render.LABEL_COLOURS), range=list(render.LABEL_COLOURS.values())
        ),
    )


def coloured(cells: pd.DataFrame, only_private: bool) -> pd.DataFrame:
    """The cells with their colour ("fill"): by leak frequency, or by label."""
    if only_private:
        fill = render.ramp_colours(cells["frequency"], render.LEAK_STOPS, render.LEAK_COLOURS)
    else:
        by_label = cells["label"].astype(str).map(render.LABEL_COLOURS)
        fill = by_label.fillna(render.LABEL_COLOURS["ambiguous"]).tolist()
    return cells.assign(fill=pd.Categorical(fill))


def legend_html(only_private: bool) -> str:
    """The heatmap's legend (the table draws none): the frequency ramp with its percentages,
    or the three labels' colours. Made from this module's constants only, never from data."""
    if only_private:
        ramp = ",".join(
            f"{c} {100 * s:g}%" for s, c in zip(render.LEAK_STOPS, render.LEAK_COLOURS, strict=True)
        )
        ticks = "".join(
            f'<span style="position:absolute;left:{p}%;transform:translateX(-50%)">{p}%</span>'
            for p in (0, 25, 50, 75, 100)
        )
        return (
            '<div style="font-size:13px;margin:0 0 4px 0">leak frequency '
            f'<span style="{LEGEND_BOX};position:relative;width:240px;height:12px;'
            "margin:0 16px 14px 8px;"
            f'background:linear-gradient(to right,{ramp})">'
            f'<span style="position:absolute;top:13px;left:0;width:100%;font-size:11px">{ticks}'
            f"</span></span>{swatch(render.NO_CELL_COLOUR)}not withheld in that task</div>"
        )
    swatches = "".join(f"{swatch(c)}{n}" for n, c in render.LABEL_COLOURS.items())
    return (
        '<div style="font-size:13px;margin:0 0 4px 0">label '
        f"{swatches}{swatch(render.NO_CELL_COLOUR)}no label</div>"
    )


def swatch(colour: str) -> str:
    """A legend's square of one colour (from this module's constants)."""
    return (
        f'<span style="{LEGEND_BOX};width:12px;height:12px;margin:0 4px 0 12px;'
        f'background:{colour}"></span>'
    )


def heatmap(
    cells: pd.DataFrame,
    only_private: bool,
    chosen: tuple[str, str] | None,
    how: Mapping[str, str | int],
) -> tuple[str, str] | None:
    """The heatmap of these cells (``chosen`` marked), its legend, downloads (the CSV saying
    ``how`` the numbers were computed) and caption; or, with nothing to colour, why not. Returns
    the cell just clicked, else None."""
    if cells.empty:
        st.info("No private cell with samples here.")
        return None
    if only_private and cells["leaks"].sum() == 0:
        st.success(
            f"No leaks here: none of the {cells['samples'].sum():,} samples of these"
            f" {cells['key'].nunique()} withheld attributes revealed one."
        )
        return None
    fills = coloured(cells, only_private)
    clicked = heat_grid(fills, chosen, "heat", blank=render.NO_CELL_COLOUR)
    st.html(legend_html(only_private))
    layout = "frequency" if only_private else "label"
    render.downloads(
        lambda: render.with_rows(render.layout(heatmap_layout, layout), {"cells": fills}),
        "leak_heatmap",
        "heat_download",
        table=functools.partial(heatmap_csv, cells, how),
    )
    st.caption(heatmap_caption(cells))
    return clicked


def heatmap_caption(cells: pd.DataFrame) -> str:
    """What the heatmap's rows and columns are and how to use it."""
    return (
        f"{render.plural(cells['row'].nunique(), 'attribute')} (rows, most leaked first) x"
        f" {render.plural(cells['column'].nunique(), 'task')} (columns, recipient: purpose,"
        " most leaked first), pooled over the filtered profiles. Long names are cut short;"
        " hover a name for its full text, and a cell for its counts. Click a cell to list the"
        " messages behind it, below; click it again to clear. By keyboard: Tab to the heatmap,"
        " the arrow keys, Enter."
    )
