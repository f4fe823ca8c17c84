"""The memory-composition curve of a run on the Growth page: how leakage grows as withheld
memories are added to each task's needed ones, with its downloads and what it is not part of."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from cimem.analysis.composition import CompositionAxis, CompositionCurve
from cimem.analysis.growth import composition_rows
from cimem.analysis.options import Mode
from webapp import cache, render, sidebar
from webapp.charts import growth_composition as charts
from webapp.charts import linechart


def composition_section(ch: sidebar.Choices, run_id: int, names: Mapping[int, str]) -> None:
    """The run's composition curve under its judge, when the run has composition messages."""
    comp = cache.composition(ch.scope(run_id))
    if comp is None:
        return
    judge_name = next(
        (j.name for j in cache.judges_of(ch.at, run_id) if j.judge_id == comp.judge),
        str(comp.judge),
    )
    run_name = names.get(run_id, str(run_id))
    st.subheader(f"Memory composition ({render.escape_md(run_name)})")
    composition_chart(comp, run_name, judge_name)
    counted = (
        "Official mode counts these messages in Violation@n and Completeness too, as the"
        " official script counts every trial; definition mode does not"
        if ch.opts.mode == Mode.OFFICIAL
        else "Definition mode leaves these messages out of Violation@n and Completeness"
        " (official mode counts them, as the official script does)"
    )
    st.caption(
        f"{STEPS[comp.axis]}; judge {render.escape_md(judge_name)}, parsed judgments only."
        f" {counted}."
    )


STEPS = {
    CompositionAxis.WITHHELD: "Each task's needed memories are kept and withheld ones added in"
    " steps",
    CompositionAxis.NEEDED: "Each task's withheld memories are kept and needed ones added in steps",
    CompositionAxis.MEMORIES: "Each trial's memory is a random set of needed and withheld"
    " memories, in sizes",
}


def composition_chart(comp: CompositionCurve, run_name: str, judge: str) -> None:
    """The composition curves drawn in the page, with SVG, PNG and CSV downloads."""
    rows = pd.DataFrame(composition_rows(comp))
    if rows.empty:
        st.info("No composition message has a parsed judgment yet.")
        return
    linechart.line_chart(
        charts.chart_data(rows, comp.axis), key="composition-chart", download="composition"
    )

    def table() -> pd.DataFrame:
        named = {str(comp.axis): comp.axis.label, "value": "value %"}
        return rows.rename(columns=named).assign(run=run_name, judge=judge)

    render.csv_download(table, "composition", "composition")
