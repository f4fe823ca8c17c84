"""The messages behind a leak on the Leaks page: one profile's messages for a pair, with the
judge's evidence highlighted and the pair's own outlined, and those of a heatmap cell (several
profiles pooled). Widgets and drawing only."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from cimem.analysis import leak_table
from cimem.analysis.cube import LeakCube
from cimem.analysis.options import Mode
from webapp import cache, message_view, render, sidebar


@dataclass(frozen=True)
class Reading:
    """What reading a pair's messages takes: the sidebar's choices, the run's cube, its judge."""

    ch: sidebar.Choices
    cube: LeakCube
    judge_id: int | None


def cell_messages(
    read: Reading, match: pd.DataFrame, key: str, context: str, profiles: int
) -> None:
    """The messages behind one cell: each profile's that leaked it, most leaks first (at most
    ``profiles`` of them)."""
    if match.empty:
        st.info(
            f"No sample revealed {render.escape_md(key)} to {render.escape_md(context)}:"
            " the chosen cell has no leaked message. Choose another cell, or a pair below."
        )
        return
    if len(match) > 1:  # a cell pools profiles: each one's messages, most leaks first
        st.caption(leak_table.pooled_caption(len(match), profiles))
    for n, (_, row) in enumerate(match.head(profiles).iterrows()):
        show_pair(read, row, legend=n == 0)


def show_pair(read: Reading, target: pd.Series, legend: bool = True) -> None:
    """One profile's messages for a pair, every evidence sentence of the judge highlighted as on
    Audit and the pair's own outlined (``legend``: say what the marks mean, once per list)."""
    ch = read.ch
    pid, ctx, attr = leak_table.pair_store_ids(read.cube, target)
    rows = cache.pair_messages(ch.at, ch.run_id, pid, ctx, attr, read.judge_id)
    st.markdown(
        f"**{render.escape_md(str(target['key']))}** of "
        f"**{render.escape_md(str(target['profile']))}** to "
        f"**{render.escape_md(str(target['recipient']))}** "
        f"({render.escape_md(str(target['task']))}): label {target['label']}, "
        f"{target['leaks']} of {target['samples']} samples revealed it."
    )
    if legend:
        message_view.legend(chosen=True, note="Each message's raw text is on Audit.")
    for row in rows:
        with st.container(border=True):
            revealed = "**revealed**" if row.revealed else "not revealed"
            said = f" — evidence: {render.escape_md(row.evidence)}" if row.evidence else ""
            st.markdown(f"Trial {row.trial}: {revealed}{said}")
            found = cache.message_audit(ch.at, row.message_id, ch.opts.label_rule)
            official = ch.opts.mode == Mode.OFFICIAL
            evidence = found.evidence(read.judge_id, official) if found is not None else []
            chosen, key = str(target["key"]), f"leaks-{row.message_id}"
            message_view.show_message(row.text or "", evidence, key=key, chosen=chosen, alone=False)
            st.page_link(
                "webapp/pages/audit.py",
                label="Audit this message",
                query_params={**st.query_params.to_dict(), "message": str(row.message_id)},
            )
