"""The Leaks heatmap: its colours, its legend, the table on screen (:mod:`webapp.charts.heatgrid`) and its
downloads: the SVG/PNG the table's own buttons save from the grid as drawn, and the cells' CSV."""

from __future__ import annotations

import functools
from collections.abc import Mapping

import pandas as pd
import streamlit as st

from cimem.analysis.leak_table import heatmap_csv
from cimem.text import plural
from webapp import render
from webapp.charts.heatgrid import GridLegend, heat_grid

LEGEND_BOX = "display:inline-block;vertical-align:middle;border:1px solid #ccc"


def grid_legend(only_private: bool) -> GridLegend:
    """The legend the saved SVG/PNG draw under the grid: that of :func:`legend_html`, from the
    same constants (the frequency ramp with its percentages, or the three labels' colours)."""
    if only_private:
        return GridLegend(
            "leak frequency",
            "not withheld in that task",
            ramp=tuple(zip(render.LEAK_STOPS, render.LEAK_COLOURS, strict=True)),
            ticks=(0, 25, 50, 75, 100),
        )
    return GridLegend("label", "no label", swatches=tuple(render.LABEL_COLOURS.items()))


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
    clicked = heat_grid(
        fills,
        chosen,
        "heat",
        blank=render.NO_CELL_COLOUR,
        download="leak_heatmap",
        legend=grid_legend(only_private),
    )
    st.html(legend_html(only_private))
    render.csv_download(functools.partial(heatmap_csv, cells, how), "leak_heatmap", "heat_download")
    st.caption(heatmap_caption(cells))
    return clicked


def heatmap_caption(cells: pd.DataFrame) -> str:
    """What the heatmap's rows and columns are and how to use it."""
    return (
        f"{plural(cells['row'].nunique(), 'attribute')} (rows, most leaked first) x"
        f" {plural(cells['column'].nunique(), 'task')} (columns, recipient: purpose,"
        " most leaked first), pooled over the filtered profiles. Long names are cut short;"
        " hover a name for its full text, and a cell for its counts. Click a cell to list the"
        " messages behind it, below; click it again to clear. By keyboard: Tab to the heatmap,"
        " the arrow keys, Enter."
    )
