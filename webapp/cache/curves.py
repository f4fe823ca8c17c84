"""The Growth page's curves: a run's violation over task counts and samples per task, one slice
at a time, cached as shared resources and made ahead in the background
(:mod:`webapp.startup.prefetch`) under the key the page will ask by."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from cimem.analysis.cube import LeakCube
from cimem.analysis.growth import EXPECTED_RATIO, GrowthCurve, growth
from cimem.analysis.metrics import MetricOptions
from webapp.cache import registry
from webapp.cache.cubes import cube
from webapp.cache.scope import RunScope
from webapp.startup import prefetch

Counts = tuple[int, ...] | None  # task counts or samples per task of a slice (None: all of them)


@dataclass(frozen=True)
class CurveAsk:
    """Which curve of a run: the task order, which samples, the method, and the slice."""

    order: str
    samples: str
    method: str
    tasks: Counts = None
    trials: Counts = None


def growth_slice(
    scope: RunScope,
    order: str,
    samples: str,
    method: str,
    tasks: Counts = None,
    trials: Counts = None,
) -> GrowthCurve:
    """A run's growth curve at the given task counts and samples per task (None: all of them).
    The same random task orders serve every slice (one seed per run), so two slices agree
    where they meet, and each slice is computed once. A fixed or worst order gives every task
    count at once, so there the whole grid is computed once and serves every slice."""
    return _growth_slice(scope, _ask(order, samples, method, tasks, trials))


def _ask(order: str, samples: str, method: str, tasks: Counts, trials: Counts) -> CurveAsk:
    """The curve asked for, under one key whatever the page's other settings: a fixed or worst
    order gives every slice at once and has no method (the random order's), so that its curve
    made ahead serves every method."""
    if order != "random":
        return CurveAsk(order, samples, str(EXPECTED_RATIO), None, None)
    return CurveAsk(order, samples, method, tasks, trials)


# a shared read-only resource, not a copy per call: a whole-grid curve keeps every profile's
# grid, and copying it out of the cache cost a page change about 70 ms
@registry.shared_read(show_spinner="Computing the curves...", max_entries=128)
def _growth_slice(scope: RunScope, ask: CurveAsk) -> GrowthCurve:
    started = prefetch.claim(("growth", scope, ask))
    if started is not None:  # under way or done in the background: the same call
        curve: GrowthCurve = started.result()
        return curve
    return _curve(cube(scope), scope.opts, ask)


def _curve(run_cube: LeakCube, opts: MetricOptions, ask: CurveAsk) -> GrowthCurve:
    """A run's growth curve as the page draws it (what a slice and a prefetch both compute)."""
    return growth(
        run_cube,
        opts,
        order=ask.order,
        samples=ask.samples,
        method=ask.method,
        tasks=list(ask.tasks) if ask.tasks else None,
        trials=list(ask.trials) if ask.trials else None,
    )


def prefetch_growth(
    scopes: Sequence[RunScope],
    order: str,
    samples: str,
    method: str,
    slices: Sequence[tuple[Counts, Counts]] | None = None,
) -> None:
    """Start computing the runs' curves in the background, by the key ``_growth_slice`` caches
    them under, so that a change finds them made or under way: the whole grid under another task
    ``order`` (the worst order takes about 0.3-0.5 s per 60-profile run), or the random order's
    ``slices`` (tasks, trials) a slider may ask for next (0.17 s per run and k). Nothing is
    started twice; the oldest unused ones are forgotten."""
    for tasks, trials in slices or [(None, None)]:
        ask = _ask(order, samples, method, tasks, trials)
        for scope in scopes:
            key = ("growth", scope, ask)
            if prefetch.ahead(key) is None:  # (looking up the cube costs a little: not for nothing)
                prefetch.start(key, _curve, cube(scope), scope.opts, ask)
