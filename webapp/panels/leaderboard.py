"""Overview's leaderboard: every run of the database in one sortable table, grouped by model and
prompt level, narrowed by model, level, memory format and judge, from which runs are picked into
the sidebar's selection. How each run was made is one cheap read; the numbers of the runs not
already on screen are computed on request when the database is large (they read every run)."""

from __future__ import annotations

import streamlit as st

from cimem.analysis import leaderboard as lb
from cimem.analysis.metrics import RunMetrics
from cimem.analysis.report import frame_to_csv
from webapp import cache, sidebar

# every run's numbers at once when the runs not yet read hold at most this many messages (about
# a second of reading on a lab's machine); above it, on request
AUTO_MESSAGES = 30_000
SECONDS_PER_MESSAGE = 2e-5  # measured: 0.06 s per 2,450-message run, 0.27 s per 14,700 (busy)
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
    kept = lb.filtered(board, _filters(board))
    metrics = _metrics(ch, kept)
    table = lb.table(kept, metrics)
    table.insert(1, "shown", ["yes" if r in ch.runs else "" for r in table["run_id"]])
    _note(ch, kept, metrics, len(board))
    event = st.dataframe(
        table.drop(columns=["run_id"]),
        hide_index=True,
        on_select="rerun",
        selection_mode="multi-row",
        key="board_table",
        height=min(38 + 35 * len(table), 390),
        column_config={
            "Violation@n %": st.column_config.NumberColumn(format="%.2f"),
            "Completeness %": st.column_config.NumberColumn(format="%.2f"),
        },
    )
    picked = [int(table["run_id"].iloc[i]) for i in event.selection.rows]
    usable = [r for r in picked if r in _with_messages(board)]
    c1, c2 = st.columns([3, 1])
    if c1.button(
        f"Show these {len(usable)} runs" if usable else "Show the runs ticked in the table",
        disabled=not usable,
        type="primary",
        key="board_show",
        help="Tick rows in the table's first column; the sidebar's selection becomes them",
    ):
        sidebar.pick_selection(usable)
    c2.download_button(
        "Leaderboard as CSV",
        lambda: frame_to_csv(table.drop(columns=["run_id", "shown"])),
        file_name="cimem_leaderboard.csv",
        mime="text/csv",
        on_click="ignore",
    )


def _filters(board: list[lb.Entry]) -> lb.Filters:
    """The four filters, each offered only when the runs differ in it."""
    offered = lb.choices(board)
    cols = st.columns(len(FILTERS))
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
    return lb.Filters(**picked)


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
        f" Each run under its original verdicts, {ch.describe()}; intervals: bootstrap 95% over"
        " profiles. Sort by a column's header; tick rows in the first column, then show them."
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
