"""The Learn page's Figure 1 worked through: the paper's case as a table of reveals the reader
flips, then Violation@n and Completeness computed from it step by step. Widgets and drawing only:
the rows are cimem.analysis.learn.figure1's, the steps cimem.demo.teaching's."""

from __future__ import annotations

import functools
from typing import Any

import pandas as pd
import streamlit as st

from cimem.analysis.learn.figure1 import (
    SAMPLES,
    figure1_rows,
    shown_reveals,
    withheld_reveals,
    worked_rows,
)
from cimem.demo.teaching import FIGURE1, INVENTED_TASK, WorkedCase, worked_case
from webapp import render

LABEL_STYLE = {"needed": "background-color: #d3e6f3", "withheld": "background-color: #f6dccb"}


@st.fragment
def figure1() -> None:
    """The reveal table (practice rows on request), the worked steps and both numbers; a
    fragment, so flipping a reveal reruns only this."""
    extended = _extended_toggle()
    samples = list(SAMPLES) if extended else [SAMPLES[0]]
    rows = flip_reveals(figure1_rows(FIGURE1, INVENTED_TASK, extended), samples)
    render.static_table(
        shown_reveals(rows, samples), styles={"label": lambda v: LABEL_STYLE.get(str(v), "")}
    )
    st.caption(
        "R = 1: the judge found the attribute stated in that sample. A blue label: needed for the"
        " task (counts for Completeness); an orange label: withheld from this recipient (counts"
        " for Violation)."
    )
    n = len(samples)
    worked = worked_rows(rows, samples)
    case = worked_case(worked, n)
    _violation_steps(case, worked, n)
    _completeness_steps(case)
    m1, m2 = st.columns(2)
    m1.metric(f"Violation@{n}", render.pct(case.violation))
    m2.metric("Completeness", render.pct(case.completeness))


def _extended_toggle() -> bool:
    """Whether the reader asked for the INVENTED practice rows, with the warning that says so."""
    extended = st.toggle(
        "Add an INVENTED second task and two more samples per task (practice only)",
        value=False,
        key="fig1_extended",
        help="The paper describes one task and one message; everything this adds is made up to"
        " show the maximum over tasks and samples at work.",
    )
    if extended:
        st.warning(
            "INVENTED for illustration: the rows marked INVENTED and samples 2 and 3 are not from"
            " the paper. Only the paper row's sample 1 is Figure 1.",
            icon="✏️",
        )
    return extended


def cell_name(base: pd.DataFrame, cells: list[tuple[int, str]], samples: int, k: int) -> str:
    """A reveal button's name: the attribute, and the sample when there are several."""
    i, sample = cells[k]
    return str(base["attribute"].iloc[i]) + (f", {sample}" if samples > 1 else "")


def flip_reveals(base: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    """The rows with their reveals as chosen: one row of buttons per task, a cell (attribute,
    sample) revealed while its button is on; they start as ``base`` says. (An editable grid did
    this too, but drawing it was a third of the time the page took to show in a browser.)"""
    out = base.copy()
    for t, task in enumerate(dict.fromkeys(base["task"])):
        rows = [i for i in range(len(base)) if base["task"].iloc[i] == task]
        cells = [(i, c) for i in rows for c in cols]
        chosen = st.pills(
            f"Reveals in {task}"
            + (" (INVENTED)" if base["source"].iloc[rows[0]] != "paper" else ""),
            range(len(cells)),
            selection_mode="multi",
            default=[k for k, (i, c) in enumerate(cells) if base[c].iloc[i]],
            format_func=functools.partial(cell_name, base, cells, len(cols)),
            key=f"fig1_reveals_{len(cols)}_{t}",
        )
        for k, (i, c) in enumerate(cells):
            out.loc[out.index[i], c] = k in (chosen or [])
    return out


def _violation_steps(case: WorkedCase, rows: list[dict[str, Any]], n: int) -> None:
    """Violation@n worked out: each withheld attribute's maximum, then their mean."""
    st.markdown(f"**Violation@{n}: the maximum, then the mean over withheld attributes**")
    for a, tasks, top in case.per_attribute:
        cells = [str(v) for v in withheld_reveals(rows, a)]
        st.markdown(
            f"- :orange[{a}] (withheld) in {len(tasks)} task(s); max over {len(cells)} message(s) of"
            f" ({', '.join(cells)}) = **{top}**"
        )
    if case.violation is not None:
        tops = [str(top) for *_, top in case.per_attribute]
        st.markdown(
            f"Violation@{n} = ({' + '.join(tops)}) / {len(tops)} = **{render.pct(case.violation)}**"
        )


def _completeness_steps(case: WorkedCase) -> None:
    """Completeness worked out: each task's share of needed cells stated, then their mean."""
    st.markdown("**Completeness: the mean per task, then the mean over tasks**")
    for t, stated, n_cells, mean in case.per_task:
        st.markdown(
            f"- {render.escape_md(t)}: {stated} of {n_cells} :blue[(needed attribute, sample)]"
            f" cells stated = **{stated}/{n_cells}** = {render.pct(mean)}"
        )
    if case.completeness is not None:
        st.markdown(
            f"Completeness = mean over {len(case.per_task)} task(s) ="
            f" **{render.pct(case.completeness)}**"
        )
