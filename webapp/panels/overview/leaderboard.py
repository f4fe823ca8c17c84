"""Overview's leaderboard: every run of the database in one table, grouped by model and prompt
level or sorted as asked, narrowed by model, level, memory format and judge, from which runs are
picked into the sidebar's selection. How each run was made is one cheap read; the numbers of the
runs not already on screen are computed on request when the database is large (they read every
run). The table is plain HTML: an interactive grid of tens of runs cost a browser about 250 ms
more on every change of the page's options (measured with bench/browser.py)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis import leaderboard as lb
from cimem.analysis.intervals import INTERVALS_SAID
from cimem.analysis.metrics import RunMetrics
from cimem.analysis.sheets import frame_to_csv
from webapp import cache, render, sidebar

# every run's numbers at once when the runs not yet read hold at most this many messages (about
# a second of reading on a lab's machine); above it, on request
AUTO_MESSAGES = 30_000
SECONDS_PER_MESSAGE = 2e-5  # measured: 0.06 s per 2,450-message run, 0.27 s per 14,700 (busy)
TABLE_ROWS = 12  # more runs than this: the table scrolls in a box of TABLE_HEIGHT pixels
TABLE_HEIGHT = 460
SORT_NAMES = {
    lb.SortKey.GROUPED: "model, then level",
    lb.SortKey.VIOLATION: "lowest Violation@n",
    lb.SortKey.COMPLETENESS: "highest Completeness",
    lb.SortKey.DATE: "newest",
    lb.SortKey.RUN: "run",
}
FILTERS = {
    "models": "Model",
    "levels": "Prompt level",
    "memory_formats": "Memory format",
    "judges": "Judge",
}


def leaderboard_section(ch: sidebar.Choices) -> None:
    """The leaderboard under its filters, with the button that shows the picked runs."""
    board = cache.board_entries(ch.at)
    if not board:
        return
    st.subheader(f"Leaderboard: all {lb.summary(board)}")
    filters, order = _filters(board)
    kept = lb.filtered(board, filters)
    metrics = _metrics(ch, kept)
    table = lb.sort_table(lb.table(kept, metrics), order)
    table.insert(2, "shown", ["yes" if r in ch.runs else "" for r in table["run_id"]])
    _note(ch, kept, metrics, len(board))
    shared = lb.shared_columns(table)
    with st.container(height=TABLE_HEIGHT if len(table) > TABLE_ROWS else "content"):
        render.static_table(
            table.drop(columns=["run_id", *shared]),
            digits={"Violation@n %": 2, "Completeness %": 2},
            breakable=("judges",),
        )
    if shared:
        st.caption(
            "Every run listed has "
            + "; ".join(f"{render.escape_md(c)} {render.escape_md(v)}" for c, v in shared.items())
            + "."
        )
    _pick(ch, table, board)
    st.download_button(
        "Leaderboard as CSV",
        lambda: frame_to_csv(table.drop(columns=["run_id", "shown"])),
        file_name="cimem_leaderboard.csv",
        mime="text/csv",
        on_click="ignore",
    )


def _filters(board: list[lb.Entry]) -> tuple[lb.Filters, lb.SortKey]:
    """The four filters, each offered only when the runs differ in it, and the order."""
    offered = lb.choices(board)
    cols = st.columns(len(FILTERS) + 1)
    picked: dict[str, frozenset[str]] = {}
    for col, (name, title) in zip(cols, FILTERS.items()):
        values = offered[name]
        picked[name] = frozenset(
            col.multiselect(
                title,
                values,
                key=f"board_{name}",
                placeholder="any",
                disabled=len(values) < 2,
            )
        )
    order = cols[-1].selectbox(
        "Sort by", list(lb.SortKey), format_func=lambda k: SORT_NAMES[k], key="board_sort"
    )
    return lb.Filters(**picked), order or lb.SortKey.GROUPED


def _pick(ch: sidebar.Choices, table: pd.DataFrame, board: list[lb.Entry]) -> None:
    """Runs picked from the table, in its order, into the sidebar's selection."""
    usable = _with_messages(board)
    names = {int(r): str(n) for r, n in zip(table["run_id"], table["run"]) if int(r) in usable}
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    picked = c1.multiselect(
        "Runs to show",
        list(names),
        default=[r for r in ch.runs if r in names],
        format_func=lambda r: names[r],
        key="board_pick",
        help="Pick runs of the table; the sidebar's selection becomes them",
    )
    if c2.button(
        {0: "Show the runs picked", 1: "Show this run"}.get(
            len(picked), f"Show these {len(picked)} runs"
        ),
        disabled=not picked or sorted(picked) == sorted(ch.runs),
        type="primary",
        key="board_show",
    ):
        sidebar.pick_selection(picked)


def _with_messages(board: list[lb.Entry]) -> set[int]:
    return {e.run_id for e in board if e.messages > 0}


def _metrics(ch: sidebar.Choices, kept: list[lb.Entry]) -> dict[int, RunMetrics]:
    """The numbers at hand: those computed so far (by any visitor), the shown runs' (read for
    the table below anyway), then the other kept runs' when that is cheap or was asked for."""
    have = cache.board_metrics_known(ch.at, ch.opts)
    usable = _with_messages(kept)
    have |= {
        r: cache.metrics(ch.scope(r))
        for r in ch.runs
        if r not in have and sidebar.judge_for(ch, r) is None and r in usable
    }
    missing = [e for e in kept if e.messages > 0 and e.run_id not in have]
    cheap = sum(e.messages for e in missing) <= AUTO_MESSAGES
    if missing and (cheap or st.session_state.pop("board_all", False)):
        bar = st.progress(0.0, text=f"Reading {len(missing)} runs...")

        def progress(i: int, n: int) -> None:
            bar.progress(i / n, text=f"Read {i} of {n} runs")

        done = cache.board_metrics(ch.at, ch.opts, [e.run_id for e in missing], progress)
        bar.empty()
        have |= done
    return have


def _note(
    ch: sidebar.Choices, kept: list[lb.Entry], metrics: dict[int, RunMetrics], total: int
) -> None:
    """How the numbers were computed, and the button that computes the missing ones."""
    st.caption(
        f"{len(kept)} of {total} runs under the filters, grouped by model and prompt level."
        f" Each run under its original verdicts, {ch.describe()}; {INTERVALS_SAID}."
        " Pick runs below the table to show them on every page."
    )
    missing = [e for e in kept if e.messages > 0 and e.run_id not in metrics]
    if missing:
        n = sum(e.messages for e in missing)
        c1, c2 = st.columns([3, 1], vertical_alignment="center")
        c1.info(
            f"Violation and Completeness are shown for the runs computed so far; the other"
            f" {len(missing)} ({n:,} messages) are read on request: about"
            f" {max(1, round(SECONDS_PER_MESSAGE * n))} s.",
            icon=":material/schedule:",
        )
        if c2.button(f"Compute all {len(missing)}", key="board_compute"):
            st.session_state["board_all"] = True
            st.rerun()
    elif any(e.messages == 0 for e in kept):
        st.caption("Runs without messages (labels or profiles only) have no numbers.")
