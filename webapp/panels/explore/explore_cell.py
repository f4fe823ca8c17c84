"""The Explore page's cells: each a SQL text, its Run and Remove buttons, and its result (a table,
a quick chart, a CSV), kept for the visit; the cells read from and written to the link (``sql``,
once per cell), so a set of questions can be shared. A query runs in the store's sandbox
(:mod:`cimem.store.explore`): a visitor's SQL reaches the views and nothing else."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.store.explore import (
    EXAMPLE_QUERY,
    LEAK_CELLS,
    NEW_CELL_QUERY,
    VIEWS,
    QueryRefused,
    QueryResult,
)
from cimem.text import plural
from webapp import cache, connection, render, sidebar

MAX_CELLS = 8
MAX_SQL = 4000  # characters of one cell, as typed or read from a link
CHART_ROWS = 50
_CELLS = "explore_cells"  # the visit's cells: [(id, sql)] in order
_NEXT = "explore_next_id"


def cells() -> list[tuple[int, str]]:
    """The visit's cells; on a first visit, the link's (at most :data:`MAX_CELLS`, each cut to
    :data:`MAX_SQL` characters) or one example."""
    if _CELLS not in st.session_state:
        linked = [q[:MAX_SQL] for q in st.query_params.get_all("sql") if q.strip()][:MAX_CELLS]
        st.session_state[_CELLS] = list(enumerate(linked or [EXAMPLE_QUERY]))
        st.session_state[_NEXT] = len(st.session_state[_CELLS])
    cells: list[tuple[int, str]] = st.session_state[_CELLS]
    return cells


def add() -> None:
    cid = st.session_state[_NEXT]
    st.session_state[_NEXT] = cid + 1
    st.session_state[_CELLS] = [*cells(), (cid, NEW_CELL_QUERY)]


def share() -> None:
    """The cells as typed, into the link (one ``sql`` each)."""
    st.query_params["sql"] = [_typed(cid, sql) for cid, sql in cells()]


def _typed(cid: int, sql: str) -> str:
    return str(st.session_state.get(f"explore_sql_{cid}", sql))


def cell(i: int, ch: sidebar.Choices) -> None:
    """Cell ``i``: its text, Run and Remove, and its last result."""
    cid, sql = cells()[i]
    text = st.text_area(
        f"Cell {i + 1}", value=sql, key=f"explore_sql_{cid}", height=110, max_chars=MAX_SQL
    )
    # the cell keeps what was typed: a text box's own state is dropped while another page shows
    st.session_state[_CELLS] = [(c, text if c == cid else q) for c, q in cells()]
    run, remove, _ = st.columns([1, 1, 6])
    if remove.button("Remove", key=f"explore_remove_{cid}"):
        st.session_state[_CELLS] = [c for c in cells() if c[0] != cid]
        st.session_state.pop(f"explore_result_{cid}", None)
        st.rerun()
    if run.button("Run", key=f"explore_run_{cid}", type="primary"):
        st.session_state[f"explore_result_{cid}"] = _run(text, ch)
    result = st.session_state.get(f"explore_result_{cid}")
    if isinstance(result, str):
        st.error(render.escape_md(result))
    elif result is not None:
        _show(result, cid, i)


def _run(sql: str, ch: sidebar.Choices) -> QueryResult | str:
    """The query's result, or why it was not run (a sentence for the page)."""
    extra: dict[str, pd.DataFrame] = {}
    if LEAK_CELLS in sql.lower():
        if ch.run is None:
            return f"{LEAK_CELLS} is the sidebar's run's: choose a run with messages first."
        extra[LEAK_CELLS] = cache.pairs(ch.scope(ch.run))
    with connection.sandbox(extra) as box:
        try:
            return box.query(sql)
        except QueryRefused as exc:
            return str(exc)


def _show(result: QueryResult, cid: int, i: int) -> None:
    frame = result.frame
    st.dataframe(frame, hide_index=True, height=min(400, 38 + 35 * max(len(frame), 1)))
    more = f" (the first {len(frame):,}: there are more)" if result.truncated else ""
    st.caption(f"{plural(len(frame), 'row')}{more}; {result.seconds:.2f} s.")
    _quick_chart(frame, cid)
    render.csv_download(lambda: frame, f"cimem_explore_cell_{i + 1}", f"explore_{cid}")


def _quick_chart(frame: pd.DataFrame, cid: int) -> None:
    """A bar chart of the first numeric column by the first other column, when there are both
    (the first :data:`CHART_ROWS` rows, in the query's order: its ORDER BY is the bars'); the
    columns' own names as axis titles."""
    numeric = [c for c in frame.columns if frame[c].dtype.kind in "iuf"]
    others = [c for c in frame.columns if c not in numeric[:1]]
    if not numeric or not others or frame.empty:
        return
    x, y = others[0], numeric[0]
    data = pd.DataFrame({"x": frame[x].astype(str), "y": frame[y]}).head(CHART_ROWS)
    st.bar_chart(data, x="x", y="y", x_label=str(x), y_label=str(y), height=260, sort=False)
    if len(frame) > CHART_ROWS:
        st.caption(f"The chart draws the first {CHART_ROWS} rows.")


def views_table() -> None:
    """The views with what a row is and their columns (read from the sandbox itself)."""
    with connection.sandbox({}) as box:
        columns = box.columns()
    rows = [
        {
            "view": v.name,
            "a row is": v.row,
            "columns": ", ".join(c for c, _ in columns[v.name]),
            "rows in the order of": v.order,
        }
        for v in VIEWS
    ]
    render.static_table(pd.DataFrame(rows), breakable=("columns",))
