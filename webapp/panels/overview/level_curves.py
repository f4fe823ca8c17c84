"""Overview: each model's privacy-utility curve across its prompt levels, as a table. Widgets
and drawing only: the curves are cimem.analysis.level_curves'."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from cimem.analysis.cube import LeakCube
from cimem.analysis.level_curves import LevelCurve, level_curves
from cimem.analysis.metrics import RunMetrics
from webapp import render, sidebar


def section(cubes: Sequence[LeakCube], metrics: Sequence[RunMetrics], ch: sidebar.Choices) -> None:
    st.subheader("Privacy and utility across prompt levels")
    curves = level_curves(cubes, metrics)
    if not curves:
        st.caption(
            "Select runs of one model at two or more privacy-prompt levels, on the same profiles,"
            " to see how its Violation@n and Completeness move together (the level is set on"
            " import with --level, or by `cimem run`)."
        )
        return
    render.static_table(pd.DataFrame([_row(c) for c in curves]))
    st.caption(
        f"{ch.describe()}. One row per model and profile set (a hash of the sorted profile names),"
        " its runs in order of prompt level. Dominated area: the share of the square of privacy"
        " (100 - Violation@n) against Completeness that some level beats on both, from 0 (leaks"
        " everything, includes nothing) to 100; a level worse on both than another adds nothing."
    )


def _row(c: LevelCurve) -> dict[str, object]:
    def path(values: list[float]) -> str:
        return " → ".join(f"{100 * v:.1f}" for v in values)

    return {
        "model": c.model,
        "profile set": c.profile_set,
        "levels": ", ".join(str(p.level) for p in c.points),
        "Violation@n % by level": path([p.violation for p in c.points]),
        "Completeness % by level": path([p.completeness for p in c.points]),
        "dominated area %": round(100 * c.area, 1),
    }
