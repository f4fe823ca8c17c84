"""Explore: questions of one's own, notebook style. Cells of SQL (DuckDB) over the store's
documented read-only views and the per-cell leak table of the sidebar's run; each result as a
table, a quick chart and a CSV; the cells kept for the visit and shared as a link."""

import streamlit as st

from cimem.store.explore import LEAK_CELLS, MAX_ROWS, TIME_LIMIT
from webapp import render, sidebar
from webapp.panels.explore import explore_cell

st.title("Explore")
ch: sidebar.Choices = st.session_state["choices"]
sidebar.simulated_banner(ch.runs)
st.caption(
    "Ask the database a question of your own: one SELECT per cell (DuckDB SQL: joins, CTEs,"
    f" window functions) over the views below. At most {MAX_ROWS:,} rows come back and a query"
    f" stops after {TIME_LIMIT:g} s; the views are read-only, and files, other databases and"
    " settings are out of reach. The same views from Python: `cimem.open(path)` (see"
    " docs/explore.md)."
)


def views() -> None:
    explore_cell.views_table()
    st.caption(
        f"{LEAK_CELLS}: one row per labelled (profile, task, attribute) of the sidebar's run"
        f" (run {ch.run}; {ch.describe()}), with leaks of samples and whether it counts for Violation"
        " (in_violation) or Completeness (in_completeness), as the metrics count it."
    )


render.when_opened("The views: what a row is, and the columns", "explore_views", views)
cells = explore_cell.cells()
for i in range(len(cells)):
    explore_cell.cell(i, ch)
left, right = st.columns(2)
if left.button("Add a cell", key="explore_add", disabled=len(cells) >= explore_cell.MAX_CELLS):
    explore_cell.add()
    st.rerun()
if right.button("Share these cells as a link", key="explore_share"):
    explore_cell.share()
    right.caption("The address bar now holds these cells: copy it to share them.")
