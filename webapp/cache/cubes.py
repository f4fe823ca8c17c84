"""Cached reads of one run under a judge: its cube (every verdict, read once), the numbers
computed from it (metrics, corrected metrics, the overview of several runs, one attribute's
view, the memory-composition curve) and its pair table.

A run's cube and pair table are shared resources (``st.cache_resource``): ``st.cache_data`` would
unpickle a copy of millions of rows on every rerun. Read only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pandas as pd

from cimem.analysis import growth
from cimem.analysis import overview as analysis_overview
from cimem.analysis.audit import correction
from cimem.analysis.breakdowns import pair_table
from cimem.analysis.composition import CompositionCurve, composition_curve
from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.analysis.growth import AttributeView
from cimem.analysis.metrics import MetricOptions, RunMetrics, compute
from cimem.analysis.overview import Overview
from cimem.analysis.planner import MetricPlan, plan
from cimem.publish import html_report
from cimem.publish.content import build_report
from webapp.cache import registry
from webapp.cache.records import run_contents
from webapp.cache.scope import RunScope
from webapp.connection import reading_at
from webapp.startup import prefetch, warm


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


@registry.shared_read(show_spinner="Reading the run...", max_entries=16)
def _cube(key: CubeKey, _warmed: LeakCube | None) -> LeakCube:
    if _warmed is not None:
        return _warmed
    with reading_at(key.path) as store:
        return cube_from_store(store, key.run_id, key.judge_id)


@registry.data_read(show_spinner=False, max_entries=64)
def metrics(scope: RunScope) -> RunMetrics:
    return compute(cube(scope), scope.opts)


@registry.data_read(show_spinner=False, max_entries=32)
def study_plan(pilots: tuple[RunScope, ...], difference: float, margin: float) -> list[MetricPlan]:
    """Overview's plan of a study from one or two pilot runs (resampling thousands of studies:
    made once per pilots and inputs, not on every rerun of the page)."""
    started = prefetch.claim(("plan", pilots, difference, margin))
    if started is not None:
        made: list[MetricPlan] = started.result()
        return made
    a, *rest = [metrics(s) for s in pilots]
    return plan(a, rest[0] if rest else None, difference, margin)


@registry.data_read(show_spinner="Correcting for the judge's errors...", max_entries=16)
def corrected(scope: RunScope, human: int) -> correction.Corrected:
    """Violation and Completeness of a run under a judge, corrected from people's verdicts."""
    with reading_at(scope.path) as store:
        return correction.corrected(store, cube(scope), scope.opts, human)


@registry.data_read(show_spinner=False, max_entries=16)
def overview(scopes: tuple[RunScope, ...]) -> Overview:
    """The Overview page's table of several runs (each under its own judge, the same options)."""
    started = prefetch.claim(("overview", scopes))
    if started is not None:
        made: Overview = started.result()
        return made
    opts = scopes[0].opts if scopes else MetricOptions()
    return analysis_overview.overview([cube(s) for s in scopes], opts, [metrics(s) for s in scopes])


def prefetch_overview(
    scopes: tuple[RunScope, ...], pilots: tuple[RunScope, ...], difference: float, margin: float
) -> None:
    """Start making, in the background, Overview's table and plan under these scopes (the other
    metric mode's, which the sidebar's radio shows next: about 0.17 s of its first switch on
    three 60-profile runs). Their metrics are made here, as the page needs them anyway."""
    if not scopes or not pilots:
        return
    if prefetch.ahead(("overview", scopes)) is None:
        ms = [metrics(s) for s in scopes]
        cubes = [cube(s) for s in scopes]
        prefetch.start(("overview", scopes), analysis_overview.overview, cubes, scopes[0].opts, ms)
    key = ("plan", pilots, difference, margin)
    if prefetch.ahead(key) is None:
        a, *rest = [metrics(s) for s in pilots]
        prefetch.start(key, plan, a, rest[0] if rest else None, difference, margin)


@registry.shared_read(show_spinner=False, max_entries=16)
def pairs(scope: RunScope) -> pd.DataFrame:
    """Every labelled pair of a run with its leaks (the Leaks and Growth pages' base table)."""
    return pair_table(cube(scope), scope.opts)


@registry.data_read(show_spinner=False, max_entries=64)
def attribute_view(scope: RunScope, profile: str, key: str) -> AttributeView:
    """One attribute of one profile across the run's tasks (the Growth page)."""
    return growth.attribute_view(cube(scope), profile, key, scope.opts)


@registry.data_read(show_spinner=False, max_entries=16)
def composition(scope: RunScope) -> CompositionCurve | None:
    """The memory-composition curve of a run, or None when it has no composition messages.
    Read from the scope's database, never the URL's: a cached result is keyed by its scope."""
    with reading_at(scope.path) as store:
        if not store.has_composition(scope.run_id):
            return None
        return composition_curve(store, scope.run_id, scope.judge_id)


def report_html(cubes: list[LeakCube], opts: MetricOptions, path: str) -> str:
    """The chosen runs as one self-contained HTML report, what ``cimem report`` writes (made when
    its button is clicked, from the cubes the page already holds; not cached)."""
    with reading_at(path) as store:
        return html_report.report_html(build_report(cubes, opts, store))
