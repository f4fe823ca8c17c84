"""One attribute of one profile up close: its leak frequency in each task where it is private,
where it first leaks in the listed order, and its hazards over tasks and over samples."""

from __future__ import annotations

import math
from dataclasses import dataclass
from math import comb

import numpy as np

from cimem.analysis.cube import LeakCube
from cimem.analysis.growth.matrices import (
    ProfileMatrix,
    elementary_symmetric,
    profile_matrices,
    q_matrix,
)
from cimem.analysis.growth.vocab import SampleMode
from cimem.analysis.metrics import MetricOptions, prepare

DEFAULT_OPTIONS = MetricOptions()
NEXT_TASK = "next task (random order, all samples)"
NEXT_SAMPLE = "next sample (all tasks)"


@dataclass(frozen=True)
class HazardPoint:
    """The chance that step ``step`` is the first to leak, given none before it."""

    over: str  # NEXT_TASK or NEXT_SAMPLE
    step: int
    hazard: float


@dataclass
class AttributeView:
    """One attribute of one profile: its leak frequency per task, where it first leaks, hazards."""

    profile: str
    key: str
    tasks: list[str]
    p: list[float]  # c / n per private task
    samples: list[int]
    first_leak: tuple[int, int] | None  # (task position in the listed order, sample) or None
    hazard_tasks: list[float]  # random order: P(first leak at task T | none before)
    hazard_samples: list[float]  # all tasks: P(first leak at sample k | none before)

    def first_leak_text(self) -> str:
        """Where it first leaks in the listed order, in words."""
        if self.first_leak is None:
            return "never"
        return f"task {self.first_leak[0]}, sample {self.first_leak[1]}"

    def hazards(self) -> list[HazardPoint]:
        """Both hazard curves, over tasks then over samples, without their undefined steps
        (after a sure leak)."""
        return [
            HazardPoint(over, step, h)
            for over, curve in ((NEXT_TASK, self.hazard_tasks), (NEXT_SAMPLE, self.hazard_samples))
            for step, h in enumerate(curve, start=1)
            if not math.isnan(h)
        ]


def attribute_view(
    cube: LeakCube, profile: str, key: str, opts: MetricOptions = DEFAULT_OPTIONS
) -> AttributeView:
    """The view of ``key`` of ``profile``; LookupError when it is private in no eligible task."""
    prep = prepare(cube, opts)
    for pm in profile_matrices(prep):
        if pm.name != profile or key not in pm.attr_keys:
            continue
        i = pm.attr_keys.index(key)
        cols = np.flatnonzero(pm.eligible[i])
        n = pm.samples
        single = pm.row(i, key)
        return AttributeView(
            profile,
            key,
            [pm.task_labels[t] for t in cols],
            [float(pm.counts[i, t] / n[t]) if n[t] else float("nan") for t in cols],
            [int(n[t]) for t in cols],
            _first_leak(single, cube.n_trials),
            _task_hazards(single, cube.n_trials),
            _sample_hazards(single, cols, cube.n_trials),
        )
    raise LookupError(f"{key!r} of {profile!r} is private in no eligible task here")


def _first_leak(single: ProfileMatrix, n_trials: int) -> tuple[int, int] | None:
    """(task position, sample), both from 1, of the first leak in the listed order."""
    for t in range(single.eligible.shape[1]):
        if single.eligible[0, t] and single.first_leak[0, t] < n_trials:
            return (t + 1, int(single.first_leak[0, t]) + 1)
    return None


def _task_hazards(single: ProfileMatrix, n_trials: int) -> list[float]:
    """P(first leak at task T | none before) over random task orders, all samples."""
    q = q_matrix(single, n_trials, SampleMode.FIRST, theory=False)
    n_tasks = single.eligible.shape[1]
    e = elementary_symmetric(q)
    cum = [0.0] + [float(1.0 - e[0, T] / comb(n_tasks, T)) for T in range(1, n_tasks + 1)]
    return [
        (cum[T] - cum[T - 1]) / (1 - cum[T - 1]) if cum[T - 1] < 1 else float("nan")
        for T in range(1, n_tasks + 1)
    ]


def _sample_hazards(single: ProfileMatrix, cols: np.ndarray, n_trials: int) -> list[float]:
    """P(first leak at sample k | none before) over all its private tasks."""
    by_k = [float(np.any(single.first_leak[0, cols] < k)) for k in range(n_trials + 1)]
    return [
        (by_k[k] - by_k[k - 1]) / (1 - by_k[k - 1]) if by_k[k - 1] < 1 else float("nan")
        for k in range(1, n_trials + 1)
    ]
