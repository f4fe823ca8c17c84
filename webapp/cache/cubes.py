"""Cached reads of one run under a judge: its cube (every verdict, read once), the numbers
computed from it (metrics, corrected metrics, the overview of several runs, one attribute's
view, the memory-composition curve) and its pair table.

A run's cube and pair table are shared resources (``st.cache_resource``): ``st.cache_data`` would
unpickle a copy of millions of rows on every rerun. Read only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.analysis.metrics import MetricOptions, RunMetrics, compute
from webapp.cache.records import run_contents
from webapp.cache.scope import RunScope
from webapp.connection import reading_at
from webapp.startup import warm

if TYPE_CHECKING:
    from cimem.analysis.audit.correction import Corrected
    from cimem.analysis.composition import CompositionCurve
    from cimem.analysis.growth import AttributeView
    from cimem.analysis.overview import Overview


@dataclass(frozen=True)
class CubeKey:
    """What a run's cube depends on: under its original judge, what its row of the runs table
    says it holds (so a write to another run keeps it); under another judge, the file's version."""

    path: str
    run_id: int
    judge_id: int | None
    content: str


def cube(scope: RunScope) -> LeakCube:
    """The run's cube under its judge (the same one whatever the metric options)."""
    if scope.judge_id is None:
        content = run_contents(scope.db).get(scope.run_id, "")
    else:
        content = f"file {scope.db_version}"
    key = CubeKey(scope.path, scope.run_id, scope.judge_id, content)
    warmed = warm.take_cube(scope.path, scope.db_version, scope.run_id, scope.judge_id)
    made = _cube(key, warmed)
    return made if scope.view is None else replace(made, run=f"{made.run} · {scope.view}")


@st.cache_resource(show_spinner="Reading the run...", max_entries=16)
def _cube(key: CubeKey, _warmed: LeakCube | None) -> LeakCube:
    if _warmed is not None:
        return _warmed
    with reading_at(key.path) as store:
        return cube_from_store(store, key.run_id, key.judge_id)


@st.cache_data(show_spinner=False, max_entries=64)
def metrics(scope: RunScope) -> RunMetrics:
    return compute(cube(scope), scope.opts)


@st.cache_data(show_spinner="Correcting for the judge's errors...", max_entries=16)
def corrected(scope: RunScope, human: int) -> Corrected:
    """Violation and Completeness of a run under a judge, corrected from people's verdicts."""
    from cimem.analysis.audit.correction import corrected as build

    with reading_at(scope.path) as store:
        return build(store, cube(scope), scope.opts, human)


@st.cache_data(show_spinner=False, max_entries=16)
def overview(scopes: tuple[RunScope, ...]) -> Overview:
    """The Overview page's table of several runs (each under its own judge, the same options)."""
    from cimem.analysis.overview import overview as build

    opts = scopes[0].opts if scopes else MetricOptions()
    return build([cube(s) for s in scopes], opts, [metrics(s) for s in scopes])


@st.cache_resource(show_spinner=False, max_entries=16)
def pairs(scope: RunScope) -> pd.DataFrame:
    """Every labelled pair of a run with its leaks (the Leaks and Growth pages' base table)."""
    from cimem.analysis.breakdowns import pair_table

    return pair_table(cube(scope), scope.opts)


@st.cache_data(show_spinner=False, max_entries=64)
def attribute_view(scope: RunScope, profile: str, key: str) -> AttributeView:
    """One attribute of one profile across the run's tasks (the Growth page)."""
    from cimem.analysis.growth import attribute_view as build

    return build(cube(scope), profile, key, scope.opts)


@st.cache_data(show_spinner=False, max_entries=16)
def composition(scope: RunScope) -> CompositionCurve | None:
    """The memory-composition curve of a run, or None when it has no composition messages.
    Read from the scope's database, never the URL's: a cached result is keyed by its scope."""
    from cimem.analysis.composition import composition_curve

    with reading_at(scope.path) as store:
        if not store.has_composition(scope.run_id):
            return None
        return composition_curve(store, scope.run_id, scope.judge_id)


def report_html(cubes: list[LeakCube], opts: MetricOptions, path: str) -> str:
    """The chosen runs as one self-contained HTML report, what ``cimem report`` writes (made when
    its button is clicked, from the cubes the page already holds; not cached)."""
    from cimem.publish.content import build_report
    from cimem.publish.html_report import report_html as html

    with reading_at(path) as store:
        return html(build_report(cubes, opts, store))
