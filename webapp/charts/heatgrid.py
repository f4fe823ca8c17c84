"""The Leaks heatmap drawn as an HTML table in the page, with no chart library.

As a Vega chart it was a fifth of the Leaks page's first load in a browser: the chart library's
code, then the chart's compilation. As a table, every row and every column is labelled (a long
name is cut with an ellipsis, and its tooltip gives it whole), each cell's tooltip gives its
counts, and a click on a cell reports it (by keyboard: one cell in the tab order, the arrow
keys, Enter). The names are set as text, never read as HTML. With a ``download`` name, two
buttons under it save it as SVG or PNG: the same grid drawn in SVG in the browser from the same
data, with its legend, so the file is the heatmap on screen.
"""

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from webapp.charts import assets

NAME = "cimem_heatgrid"
JS, CSS = assets("heatgrid")
_GRID = st.components.v2.component(NAME, js=JS, css=CSS)


def grid_data(cells: pd.DataFrame, picked: tuple[str, str] | None, blank: str) -> dict:
    """What the table is drawn from, compact (a cell is seven numbers): the rows' and the
    columns' (shown, full) names in their order, each cell as (row, column, colour, label,
    leaks, samples, profiles) with its colour and label by their place in ``colours`` and
    ``labels``, the cell ``picked`` (attribute key, task context) to outline, and the colour of
    a place with no cell, ``blank``.

    ``cells``: the heatmap's cells with their ``fill`` colour (one per (row, column)).

    >>> cells = pd.DataFrame({"row": ["a"], "key": ["a_key"], "row_order": [0],
    ...     "column": ["t"], "context": ["t: full"], "column_order": [0], "fill": ["#fff"],
    ...     "label": ["private"], "leaks": [1], "samples": [4], "profiles": [2]})
    >>> grid_data(cells, None, "#eee")["cells"]
    [[0, 0, 0, 0, 1, 4, 2]]
    """
    rows = cells.drop_duplicates("row").sort_values("row_order")
    cols = cells.drop_duplicates("column").sort_values("column_order")
    row_at = {name: i for i, name in enumerate(rows["row"])}
    col_at = {name: j for j, name in enumerate(cols["column"])}
    fills = cells["fill"].astype(str)
    labels = cells["label"].astype(str)
    colours = sorted(set(fills))
    label_names = sorted(set(labels))
    colour_at = {c: i for i, c in enumerate(colours)}
    label_at = {name: i for i, name in enumerate(label_names)}
    return {
        "rows": [[str(r), str(k)] for r, k in zip(rows["row"], rows["key"], strict=True)],
        "cols": [[str(c), str(x)] for c, x in zip(cols["column"], cols["context"], strict=True)],
        "cells": [
            [row_at[r], col_at[c], colour_at[f], label_at[lab], int(n), int(s), int(p)]
            for r, c, f, lab, n, s, p in zip(
                cells["row"],
                cells["column"],
                fills,
                labels,
                cells["leaks"],
                cells["samples"],
                cells["profiles"],
                strict=True,
            )
        ],
        "colours": colours,
        "labels": label_names,
        "picked": list(picked) if picked else None,
        "blank": blank,
    }


@dataclass(frozen=True)
class GridLegend:
    """The heatmap's legend in its saved files: a ``title``; a colour ramp (stop in 0..1,
    colour) with ``ticks`` in percent, or ``swatches`` (name, colour); then what a place with no
    cell (the grid's blank colour) means, ``blank``."""

    title: str
    blank: str
    ramp: tuple[tuple[float, str], ...] = ()
    ticks: tuple[int, ...] = ()
    swatches: tuple[tuple[str, str], ...] = ()

    def as_data(self) -> dict:
        """The legend as the script reads it (plain JSON).

        >>> GridLegend("label", "no label", swatches=(("share", "#4c9f70"),)).as_data()
        {'title': 'label', 'blank': 'no label', 'ramp': [], 'ticks': [], 'swatches': [['share', '#4c9f70']]}
        """
        return {
            "title": self.title,
            "blank": self.blank,
            "ramp": [[float(stop), colour] for stop, colour in self.ramp],
            "ticks": list(self.ticks),
            "swatches": [[name, colour] for name, colour in self.swatches],
        }


def heat_grid(
    cells: pd.DataFrame,
    picked: tuple[str, str] | None,
    key: str,
    blank: str,
    download: str | None = None,
    legend: GridLegend | None = None,
) -> tuple[str, str] | None:
    """Draw the table; returns the (attribute key, task context) of the cell just clicked, in
    the rerun the click made, else None. With ``download``: SVG and PNG buttons that save it
    as ``download``.svg and .png, with ``legend`` drawn under the grid."""
    data = with_download(grid_data(cells, picked, blank), download, legend)
    result = _GRID(data=data, key=key, on_cell_change=lambda: None)
    return clicked_cell(getattr(result, "cell", None))


def with_download(data: dict, download: str | None, legend: GridLegend | None) -> dict:
    """The table's data with the file name its save buttons use and the legend of its files
    (no name: no buttons).

    >>> with_download({"rows": []}, "leaks", None), with_download({"rows": []}, None, None)
    ({'rows': [], 'download': 'leaks', 'legend': None}, {'rows': []})
    """
    if not download:
        return data
    return {**data, "download": download, "legend": legend.as_data() if legend else None}


def clicked_cell(value: object) -> tuple[str, str] | None:
    """The (attribute key, task context) a click reported, or None for anything else: the
    value comes from the browser, which a visitor can make send whatever they like.

    >>> clicked_cell(["income", "Bank: loan"]), clicked_cell(5), clicked_cell(["a", 1])
    (('income', 'Bank: loan'), None, None)
    """
    if isinstance(value, list | tuple) and len(value) == 2:
        if all(isinstance(part, str) for part in value):
            return value[0], value[1]
    return None
