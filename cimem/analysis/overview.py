"""The Overview table: one Table-1-style row per run, and a fair comparison across runs.

Violation@n depends on n and on the task set. When runs differ in either and still share contexts,
rows are also given at a common k (the unbiased Violation@k, k = the smallest n) over the contexts
all runs share, and the result says so; when they share none there is nothing to compare on, and
the note says why instead of printing empty columns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from cimem.analysis.cube import LeakCube, context_keys, restrict_contexts
from cimem.analysis.joint import joint_outcomes
from cimem.analysis.label_diff import Fingerprints, RunPair, context_fingerprints, pairs_of
from cimem.analysis.metrics import NO_LABELS, MetricOptions, RunMetrics, compute
from cimem.text import plural

COMPLETENESS_COMMON = "completeness_common"


@dataclass(frozen=True)
class CommonColumns:
    """The table's columns that compare runs at one k over the contexts they all share: there
    only when the runs differ in n or contexts and still share some."""

    k: int
    contexts: int

    @property
    def violation(self) -> str:
        return f"violation_at_{self.k}_common"

    @property
    def completeness(self) -> str:
        return COMPLETENESS_COMMON

    def titles(self) -> dict[str, str]:
        """Each column's name -> its title for a reader, in table order."""
        return {
            self.violation: f"Violation@{self.k} % (shared contexts)",
            self.completeness: "Completeness % (shared contexts)",
        }


@dataclass
class Overview:
    table: pd.DataFrame
    metrics: list[RunMetrics]
    comparable: bool  # same n and same contexts everywhere
    common_k: int
    common_contexts: int
    note: str
    common: CommonColumns | None = None  # the common-k columns of ``table``, when it has them
    pairs: list[RunPair] = field(default_factory=list)  # every two runs: shared contexts, labels

    @property
    def sentence(self) -> str:
        """The note as a sentence: capitalised, without the full stop."""
        return self.note[:1].upper() + self.note[1:]

    @property
    def note_apart(self) -> bool:
        """Whether the note stands apart from the table: runs differ and share nothing, so no
        column of the table carries it."""
        return not self.comparable and self.common is None


def _row(cube: LeakCube, m: RunMetrics) -> dict[str, Any]:
    """One run's Table-1-style row, in percentage points."""
    return {
        "run": m.run,
        "model": cube.info.model or "",
        "level": cube.info.level,
        "judge": m.judge,
        "profiles": m.violation.n_profiles,
        "n": m.n_trials,
        "violation_mean": 100 * m.violation.mean,
        "violation_std": 100 * m.violation.std,
        "violation_lo": 100 * m.violation.ci95[0],
        "violation_hi": 100 * m.violation.ci95[1],
        "completeness_mean": 100 * m.completeness.mean,
        "completeness_std": 100 * m.completeness.std,
        "completeness_lo": 100 * m.completeness.ci95[0],
        "completeness_hi": 100 * m.completeness.ci95[1],
        "leak_rate_per_message": 100 * m.leak_rate.mean,
        "completeness_these_people": m.completeness.these_people_bounds(),
        "simulated": cube.info.simulated,
        "labels": "yes" if cube.has_labels else NO_LABELS,
    }


def _joint_cells(cube: LeakCube, opts: MetricOptions) -> dict[str, float | None]:
    """The run's joint outcomes (:mod:`cimem.analysis.joint`) in points."""
    j = joint_outcomes(cube, opts)

    def points(x: float | None) -> float | None:
        return None if x is None else 100 * x

    return {
        "complete_clean": points(j.complete_clean),
        "leak_among_complete": points(j.leak_among_complete),
        "completeness_among_clean": points(j.completeness_among_clean),
    }


def common_cells(
    cube: LeakCube, opts: MetricOptions, shared: set, columns: CommonColumns
) -> dict[str, float]:
    """The run's unbiased Violation@k and Completeness over the shared contexts only."""
    fair = compute(restrict_contexts(cube, shared), replace(opts, k=columns.k))
    return {
        columns.violation: 100 * fair.violation_unbiased.mean,
        columns.completeness: 100 * fair.completeness.mean,
    }


def _note(
    runs: int, comparable: bool, ns: set[int], common: CommonColumns | None, alike: bool = True
) -> str:
    """What the rows say against each other."""
    if runs == 1:
        return "one run"
    if comparable:
        return "all runs have the same n and contexts" + (
            ": rows compare directly" if alike else ""
        )
    differ = (
        f"runs differ in n ({', '.join(map(str, sorted(ns)))})"
        if len(ns) > 1
        else f"runs differ in contexts (n = {min(ns)} for all)"
    )
    if common is not None:
        return (
            f"{differ}: the common columns compare them at k = {common.k} (unbiased"
            f" Violation@k) over the {plural(common.contexts, 'context')} they share (the"
            " same person, recipient and task)"
        )
    return (
        f"{differ} and share no context (no person with the same recipient and task), so"
        " there is no common ground to compare them at one k: each row stands for its own"
        " profiles and tasks"
    )


@dataclass
class RunPart:
    """What the Overview keeps of one run once its cube is dropped (a report of tens of runs
    reads one at a time): its row, its metrics, its contexts, n and labels' fingerprints."""

    row: dict[str, Any]
    metrics: RunMetrics
    contexts: frozenset[tuple[str, str, str]]
    n: int
    fingerprints: Fingerprints
    run: str


def run_part(
    cube: LeakCube, opts: MetricOptions, m: RunMetrics | None = None, compared: bool = True
) -> RunPart:
    """One run's part of the Overview; ``m``: its metrics under ``opts`` when known;
    ``compared``: other runs are shown beside it (only then are its labels fingerprinted)."""
    m = m if m is not None else compute(cube, opts)
    return RunPart(
        row=_row(cube, m) | _joint_cells(cube, opts),
        metrics=m,
        contexts=frozenset(context_keys(cube)),
        n=cube.n_trials,
        fingerprints=context_fingerprints(cube, opts.rule) if compared else {},
        run=cube.run,
    )


CommonCells = Callable[[int, set, CommonColumns], dict[str, float]]


def overview(
    cubes: list[LeakCube], opts: MetricOptions, results: list[RunMetrics] | None = None
) -> Overview:
    """``results``: each cube's metrics under ``opts`` when the caller already has them."""
    parts = [
        run_part(c, opts, results[i] if results else None, compared=len(cubes) > 1)
        for i, c in enumerate(cubes)
    ]
    return overview_of(parts, lambda i, shared, cols: common_cells(cubes[i], opts, shared, cols))


def overview_of(parts: list[RunPart], common_of: CommonCells) -> Overview:
    """The Overview from each run's part; ``common_of(i, shared, columns)``: run i's common
    cells, asked for only when the runs differ in n or contexts and still share some."""
    ns = {p.n for p in parts}
    shared = set(frozenset.intersection(*(p.contexts for p in parts))) if parts else set()
    comparable = len(ns) <= 1 and all(p.contexts == shared for p in parts)
    common_k = min(ns) if ns else 0
    common = None if comparable or not shared else CommonColumns(common_k, len(shared))
    rows = [
        p.row | (common_of(i, shared, common) if common is not None else {})
        for i, p in enumerate(parts)
    ]
    pairs = pairs_of([(p.run, p.fingerprints) for p in parts]) if len(parts) > 1 else []
    alike = all(pair.labels_agree for pair in pairs)
    note = _note(len(rows), comparable, ns, common, alike) + _labels_note(pairs, common)
    metrics = [p.metrics for p in parts]
    return Overview(
        pd.DataFrame(rows), metrics, comparable, common_k, len(shared), note, common, pairs
    )


def _labels_note(pairs: list[RunPair], common: CommonColumns | None) -> str:
    """What the runs' labels say about the shared contexts: nothing when no two runs share a
    context; else whether every two runs label them alike, or which do not."""
    sharing = [p for p in pairs if p.shared_contexts]
    if not sharing:
        return ""
    differ = [p for p in sharing if not p.labels_agree]
    if not differ:
        return "; every two runs label the contexts they share alike"
    named = "; ".join(f"{p.run_a} and {p.run_b}: {p.describe()}" for p in differ[:3])
    more = f" (and {len(differ) - 3} more pairs)" if len(differ) > 3 else ""
    where = " the common columns compare different labels there;" if common is not None else ""
    return (
        f"; runs label some shared contexts differently ({named}{more}):{where} see"
        " `cimem labels diff`"
    )
