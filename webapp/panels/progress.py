"""Runs that `cimem run` is making (in another process): how far each has come, what it failed
and cost, and its time left, on the Data page (redrawn every few seconds while one runs) and as a
banner over a page that shows such a run. Drawing only: the states are cimem.analysis.progress's."""

from __future__ import annotations

import streamlit as st

from cimem.analysis.progress import RunMaking, RunState, making
from webapp import cache, render

REDRAW_SECONDS = 5


def runs_made(run_ids: list[int] | None = None) -> list[RunMaking]:
    """The runs being made or stopped unfinished (of ``run_ids``, when given), as of now."""
    found = [making(row) for row in cache.run_progress(cache.current())]
    return [
        m
        for m in found
        if m.state != RunState.FINISHED and (run_ids is None or m.run_id in run_ids)
    ]


def making_banner(run_ids: list[int]) -> None:
    """Over a page showing runs being made: their numbers are over the part stored so far."""
    for m in runs_made(run_ids):
        st.info(
            render.escape_md(m.sentence())
            + f". Its numbers here are over the {m.done:,} messages stored so far (each with its"
            " judge's verdicts); reload the page to see more.",
            icon=":material/hourglass_top:",
        )


def making_section() -> None:
    """The Data page's runs being made, redrawn every few seconds while one is."""
    if not runs_made():
        return
    st.header("Runs being made")
    _making_now()


@st.fragment(run_every=REDRAW_SECONDS)
def _making_now() -> None:
    found = runs_made()
    for m in found:
        st.progress(m.share, text=render.escape_md(m.sentence()))
    if any(m.state == RunState.MAKING for m in found):
        st.caption(
            f"Redrawn every {REDRAW_SECONDS} s. A run stores its messages a part at a time, each"
            " with its verdicts; the other pages show the stored part's numbers on their next"
            " rerun."
        )
