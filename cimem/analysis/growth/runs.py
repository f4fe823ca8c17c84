"""Several runs' growth curves read side by side, as the Growth page compares them: each run by
the name it is shown by, how far a slice of each reaches, which runs a slice leaves out, where
each curve ends, and a slice's points as the rows a chart and its CSV draw (Violation in
percent). Pure: the app draws these rows, it does not compute them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from cimem.analysis.growth.curve import GrowthCurve
from cimem.analysis.growth.reading import theory_hidden
from cimem.analysis.growth.vocab import Axis, Line, Order

# A chart's columns as its CSV names them (the rows' own are short: the chart reads them).
TABLE_COLUMNS = {
    "curve": "line",
    "T": "tasks T",
    "k": "samples k",
    "violation": "violation %",
    "se": "Monte Carlo error (points)",
}


@dataclass(frozen=True)
class RunCurves:
    """Each run's growth curve by run id, with the names runs are shown by (a run without one
    goes by its curve's run name)."""

    curves: Mapping[int, GrowthCurve]
    names: Mapping[int, str]

    def name(self, run_id: int, curve: GrowthCurve | None = None) -> str:
        """The name run ``run_id`` is shown by (else that of ``curve``, or of its own curve)."""
        return self.names.get(run_id, (curve or self.curves[run_id]).run)

    @property
    def max_tasks(self) -> int:
        """The most tasks of any run: how far the task slider goes."""
        return max(g.n_tasks for g in self.curves.values())

    @property
    def max_samples(self) -> int:
        """The most samples per task of any run: how far the sample slider goes."""
        return max(g.n_trials for g in self.curves.values())

    def reaching(self, axis: Axis, at: int) -> list[int]:
        """The runs a slice along ``axis`` at ``at`` can be taken of, in order."""
        return [r for r, g in self.curves.items() if g.reach(axis) >= at]

    def left_out(self, axis: Axis, at: int) -> list[str]:
        """The names of the runs a slice along ``axis`` at ``at`` cannot be taken of (too few
        samples per task, or too few tasks)."""
        return [self.name(r) for r, g in self.curves.items() if g.reach(axis) < at]

    def with_one_task(self) -> list[str]:
        """The names of the runs with a single usable task (no curve over tasks)."""
        return [self.name(r) for r, g in self.curves.items() if g.n_tasks == 1]

    def end_points(self) -> list[tuple[str, float, float]]:
        """(name, observed, independence) at all tasks and all samples, for each run that has
        both."""
        out = []
        for r, g in self.curves.items():
            end = g.at_the_end()
            if end is not None:
                out.append((self.name(r), *end))
        return out

    def end_intervals(self) -> dict[str, tuple[float, float]]:
        """Each run's 95% interval of its observed end point, by the run's name (where it has
        one)."""
        return {self.name(r): ci for r, g in self.curves.items() if (ci := g.end_interval())}

    def judges(self) -> dict[str, str]:
        """Each run's judge, by the run's name."""
        return {self.name(r): g.judge for r, g in self.curves.items()}

    def samples_per_task(self) -> dict[str, int]:
        """Each run's samples per task n, by the run's name."""
        return {self.name(r): g.n_trials for r, g in self.curves.items()}


def slice_rows(
    name: str, curve: GrowthCurve, axis: Axis, at: int, with_bound: bool = False
) -> list[dict[str, Any]]:
    """A run's slice (:meth:`GrowthCurve.points`) as chart rows: run, curve, T, k, Violation in
    percent and, on an observed line, its Monte Carlo error in points (a union bound's row has
    no error)."""
    rows: list[dict[str, Any]] = []
    for pt in curve.points(axis, at, with_bound):
        row: dict[str, Any] = {
            "run": name,
            "curve": str(pt.line),
            "T": pt.tasks,
            "k": pt.samples,
            "violation": 100 * pt.violation,
        }
        if pt.line != Line.BOUND:
            row["se"] = None if pt.stderr is None else 100 * pt.stderr
        rows.append(row)
    return rows


def runs_with_theory_hidden(
    slices: Mapping[int, GrowthCurve], runs: RunCurves, axis: Axis, at: int, with_bound: bool
) -> list[str]:
    """The names, sorted, of the runs whose 1-(1-p)^k line equals their observed one at every
    point of the slice (so it lies hidden under it)."""
    return sorted(
        runs.name(r, g) for r, g in slices.items() if theory_hidden(g.points(axis, at, with_bound))
    )


def on_slice(
    points: Sequence[tuple[int, int, float]], axis: Axis, at: int, max_tasks: int, max_samples: int
) -> list[tuple[int, int, float]]:
    """The published (T, k, Violation %) points that lie on a slice along ``axis`` at ``at``,
    within the runs' tasks and samples (a point beyond them has nothing drawn to compare to)."""
    return [
        (t, k, v)
        for t, k, v in points
        if (k if axis == Axis.TASKS else t) == at and t <= max_tasks and k <= max_samples
    ]


def slice_table(
    data: pd.DataFrame,
    judges: Mapping[str, str],
    *,
    mode: str,
    label_rule: str,
    order: str,
    samples: str,
    method: str,
) -> pd.DataFrame:
    """A chart's rows as a table (its CSV), with how they were computed: each run's judge, the
    mode, label rule, task order, samples, and the random order's method ("-" for another
    order, which has none)."""
    out = data.rename(columns=TABLE_COLUMNS)
    return out.assign(
        judge=out["run"].map(judges),
        mode=mode,
        **{
            "label rule": label_rule,
            "task order": order,
            "samples": samples,
            "method": method if order == Order.RANDOM else "-",
        },
    )
