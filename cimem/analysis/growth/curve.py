"""The growth curve of one run: Violation over task counts T and samples per task k, observed and
under independence, averaged over profiles, with the union bound of a random order."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from cimem.analysis.cube import LeakCube
from cimem.analysis.growth.matrices import (
    ProfileMatrix,
    elementary_symmetric,
    profile_matrices,
    q_matrix,
)
from cimem.analysis.growth.ordered import greedy_worst_orders, prefix_violation
from cimem.analysis.growth.random_order import (
    RandomSubsets,
    expected_ratio,
    one_task_ratio,
    orders_per_profile,
    ratio_of_expectations,
)
from cimem.analysis.growth.vocab import (
    EXPECTED_RATIO,
    ORDERS,
    SAMPLE_MODES,
    Axis,
    Line,
    Method,
    Order,
    SampleMode,
    method_name,
)
from cimem.analysis.intervals import IntervalKind, share_interval
from cimem.analysis.metrics import MetricOptions, Mode, Prepared, prepare

DEFAULT_OPTIONS = MetricOptions()
Grid = list[list[float | None]]


@dataclass(frozen=True)
class CurvePoint:
    """One point of one line of a growth chart: Violation (a share) at T tasks and k samples,
    with the Monte Carlo standard error of an observed point of the expected ratio."""

    line: Line
    tasks: int
    samples: int
    violation: float
    stderr: float | None = None


@dataclass
class GrowthCurve:
    mode: str
    label_rule: str
    order: Order
    samples: SampleMode
    method: str  # expected-ratio[:<draws>:<seed>] | ratio-of-expectations | fixed | greedy
    tasks: list[int]
    trials: list[int]
    # None where a point has no eligible attribute
    violation: Grid  # [T_i][k_j], mean over profiles
    theory: Grid  # independence prediction 1-(1-p)^k per task
    union_bound: Grid  # min(1, T x V(1)) at each k (random order; else [])
    stderr: list[list[float]] | None = None  # Monte Carlo standard error (expected ratio)
    per_profile: dict[str, Grid] = field(default_factory=dict)
    # the 95% interval over people like these of each observed point (None: no interval)
    violation_ci95: list[list[tuple[float, float] | None]] = field(default_factory=list)
    n_tasks: int = 0
    n_trials: int = 0
    n_said: str = ""  # what n counts (partial-memory trials beside the full-memory ones)
    judge: str = ""
    run: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}

    def reach(self, axis: Axis) -> int:
        """How far a slice along ``axis`` can be taken at: a slice along T is taken at one k
        (up to n), a slice along k at one T (up to the number of tasks)."""
        return self.n_trials if axis == Axis.TASKS else self.n_tasks

    def points(self, axis: Axis, at: int, with_bound: bool = False) -> list[CurvePoint]:
        """The points of a slice: along T at k = ``at``, or along k at T = ``at`` (none when
        the curve has no such k or T); observed then theory (then the union bound) at each."""
        if axis == Axis.TASKS:
            if at not in self.trials:
                return []
            j = self.trials.index(at)
            cells = [(i, j, t, at) for i, t in enumerate(self.tasks)]
        else:
            if at not in self.tasks:
                return []
            i = self.tasks.index(at)
            cells = [(i, j, at, k) for j, k in enumerate(self.trials)]
        out: list[CurvePoint] = []
        for i, j, t, k in cells:
            se = self.stderr[i][j] if self.stderr else None
            for line, grid in ((Line.OBSERVED, self.violation), (Line.THEORY, self.theory)):
                value = grid[i][j]
                if value is not None:
                    out.append(CurvePoint(line, t, k, value, se if line == Line.OBSERVED else None))
            bound = self.union_bound[i][j] if with_bound and self.union_bound else None
            if bound is not None:
                out.append(CurvePoint(Line.BOUND, t, k, bound))
        return out

    def at_the_end(self) -> tuple[float, float] | None:
        """(observed, theory) at all tasks and all samples, when both are defined."""
        if not self.violation:
            return None
        observed, theory = self.violation[-1][-1], self.theory[-1][-1]
        if observed is None or theory is None:
            return None
        return observed, theory

    def end_interval(self) -> tuple[float, float] | None:
        """The 95% interval of the observed point at all tasks and all samples."""
        if not self.violation_ci95 or not self.violation_ci95[-1]:
            return None
        return self.violation_ci95[-1][-1]

    def nonzero_stderrs(self) -> list[float]:
        """The Monte Carlo standard errors that are not 0 (0: every order gives one value)."""
        return [x for row in (self.stderr or []) for x in row if x]


@dataclass(frozen=True)
class _Plan:
    """What to compute: the order, samples and method, and the grid's task and sample counts."""

    order: Order
    samples: SampleMode
    method: Method
    tasks: list[int]
    trials: list[int]
    draws: int
    fixed_order: list[int] | None


@dataclass
class _Grids:
    """[profile, T, k] grids: observed, theory and the Monte Carlo error of the observed."""

    observed: np.ndarray
    theory: np.ndarray
    error: np.ndarray

    @classmethod
    def empty(cls, profiles: int, tasks: int, trials: int) -> _Grids:
        obs = np.full((profiles, tasks, trials), np.nan)
        return cls(obs, np.full_like(obs, np.nan), np.full_like(obs, np.nan))


def growth(
    cube: LeakCube,
    opts: MetricOptions = DEFAULT_OPTIONS,
    order: str = "random",
    tasks: list[int] | None = None,
    trials: list[int] | None = None,
    samples: str = "first",
    method: str = EXPECTED_RATIO,
    draws: int | None = None,
    seed: int = 0,
    fixed_order: list[int] | None = None,
) -> GrowthCurve:
    """Violation over task counts and samples per task, observed and under independence.
    ``draws``: random task orders per profile of a sampled expected ratio (default: the run's
    share of :data:`ORDERS_PER_RUN`, what every caller without a reason to differ takes)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}")
    if samples not in SAMPLE_MODES:
        raise ValueError("samples must be 'first' or 'unbiased'")
    chosen = method_name(method)
    prep, mats = _profiles(cube, opts)
    n_tasks = max((pm.eligible.shape[1] for pm in mats), default=0)
    plan = _Plan(
        Order(order),
        SampleMode(samples),
        chosen,
        _counts(tasks, n_tasks),
        _counts(trials, max(cube.n_trials, 1)),
        orders_per_profile(len(mats)) if draws is None else draws,
        fixed_order,
    )
    grids = _Grids.empty(len(mats), len(plan.tasks), len(plan.trials))
    all_exact = True
    if plan.order == Order.RANDOM:
        all_exact = _random_grids(mats, plan, grids, np.random.default_rng(seed))
    else:
        _ordered_grids(mats, plan, grids)
    with np.errstate(invalid="ignore"):
        mean_obs = np.nanmean(grids.observed, axis=0) if len(mats) else grids.observed[0]
        mean_theo = np.nanmean(grids.theory, axis=0) if len(mats) else grids.theory[0]
    return GrowthCurve(
        mode=opts.mode,
        label_rule=prep.discarded.label_rule,
        order=plan.order,
        samples=plan.samples,
        method=_method_label(plan, all_exact, seed),
        tasks=plan.tasks,
        trials=plan.trials,
        violation=_clean(mean_obs),
        theory=_clean(mean_theo),
        union_bound=_clean(_union_bound(mats, plan, grids)),
        stderr=_stderr(plan, grids, len(mats)),
        per_profile={pm.name: _clean(grids.observed[i]) for i, pm in enumerate(mats)},
        violation_ci95=_intervals(grids.observed),
        n_tasks=n_tasks,
        n_trials=cube.n_trials,
        n_said=prep.discarded.trials.n_said(cube.n_trials, opts.mode == Mode.OFFICIAL),
        judge=cube.judge,
        run=cube.run,
    )


def _profiles(cube: LeakCube, opts: MetricOptions) -> tuple[Prepared, list[ProfileMatrix]]:
    """The preparation of the options' mode and rules, and its profiles' matrices."""
    # every k at once: the options' own k (first k trials) would cut the samples the grid spans
    prep = prepare(cube, replace(opts, k=None))
    return prep, profile_matrices(prep)


def _counts(asked: list[int] | None, top: int) -> list[int]:
    """The task (or sample) counts of the grid: those asked for (default: every count from 1),
    clamped to 1..top, sorted, each once; none when there is nothing to count."""
    if not top:
        return []
    return sorted({min(max(1, x), top) for x in (asked or range(1, top + 1))})


def _stderr(plan: _Plan, grids: _Grids, profiles: int) -> list[list[float]] | None:
    """The Monte Carlo standard error of the mean over profiles (a sampled expected ratio)."""
    if plan.order != Order.RANDOM or plan.method != Method.EXPECTED_RATIO:
        return None
    errors: list[list[float]] = (
        np.sqrt(np.nansum(grids.error**2, axis=0)) / max(profiles, 1)
    ).tolist()
    return errors


def _random_grids(
    mats: list[ProfileMatrix], plan: _Plan, grids: _Grids, rng: np.random.Generator
) -> bool:
    """Fill the grids for a random order; True when every T was enumerated (nothing sampled).
    The expected ratio draws one set of random task orders per profile, shared by every k and
    by the theory."""
    all_exact = True
    tasks, samples = plan.tasks, plan.samples
    for p, pm in enumerate(mats):
        if plan.method == Method.RATIO_OF_EXPECTATIONS:
            _ratio_grids(pm, p, plan, grids)
            continue
        n_p = pm.eligible.shape[1]
        subsets = (
            RandomSubsets(pm, tasks, plan.draws, np.argsort(rng.random((plan.draws, n_p)), axis=1))
            if pm.eligible.size
            else None
        )
        q1 = q_matrix(pm, 1, samples, theory=True)  # 1 - p; the theory is its k-th power
        for j, k in enumerate(plan.trials):
            q = q_matrix(pm, k, samples, theory=False)
            obs, err, exact = expected_ratio(pm, q, tasks, subsets)
            grids.observed[p, :, j], grids.error[p, :, j] = obs, err
            grids.theory[p, :, j] = expected_ratio(pm, q1, tasks, subsets, k)[0]
            all_exact &= exact
    return all_exact


def _ratio_grids(pm: ProfileMatrix, p: int, plan: _Plan, grids: _Grids) -> None:
    """Fill profile ``p``'s grids with the ratio of expectations at every k, observed and in
    theory. Every polynomial the profile needs (its eligibility, and each k's q, observed and
    theory) comes from one pass of the recursion over its rows stacked: a pass per matrix was
    most of the method's time (a Python step per task, eleven passes per profile)."""
    a = pm.eligible.shape[0]
    if a == 0 or pm.eligible.shape[1] == 0:
        grids.observed[p], grids.theory[p] = np.nan, np.nan
        return
    qs = [q_matrix(pm, k, plan.samples, theory=t) for t in (False, True) for k in plan.trials]
    e = elementary_symmetric(np.concatenate([np.where(pm.eligible, 0.0, 1.0), *qs]))
    e_d, ks = e[:a], len(plan.trials)
    for i, q in enumerate(qs):
        grid = grids.observed if i < ks else grids.theory
        e_q = e[a * (i + 1) : a * (i + 2)]
        grid[p, :, i % ks] = ratio_of_expectations(pm, q, plan.tasks, e_d, e_q)


def _ordered_grids(mats: list[ProfileMatrix], plan: _Plan, grids: _Grids) -> None:
    """Fill the grids for a fixed order (the listed one, or ``fixed_order`` then the rest) or
    the greedy worst order (every profile and k at once, in one batch)."""
    worst: list[tuple[int, int, np.ndarray, np.ndarray]] = []  # (profile, k index, q, theory q)
    for p, pm in enumerate(mats):
        n_p = pm.eligible.shape[1]
        for j, k in enumerate(plan.trials):
            q = q_matrix(pm, k, plan.samples, theory=False)
            qt = q_matrix(pm, k, plan.samples, theory=True)
            if plan.order == Order.WORST:
                worst.append((p, j, q, qt))
                continue
            seq = np.array([t for t in (plan.fixed_order or range(n_p)) if t < n_p], np.int64)
            seq = np.concatenate([seq, np.setdiff1d(np.arange(n_p), seq)])
            grids.observed[p, :, j] = prefix_violation(pm, q, seq, plan.tasks)
            grids.theory[p, :, j] = prefix_violation(pm, qt, seq, plan.tasks)
    seqs = greedy_worst_orders([mats[p].eligible for p, _, _, _ in worst], [w[2] for w in worst])
    for (p, j, q, qt), seq in zip(worst, seqs):
        grids.observed[p, :, j] = prefix_violation(mats[p], q, seq, plan.tasks)
        grids.theory[p, :, j] = prefix_violation(mats[p], qt, seq, plan.tasks)


def _union_bound(mats: list[ProfileMatrix], plan: _Plan, grids: _Grids) -> np.ndarray:
    """V(T) <= T x V(1) at each k, from the curve's own V(1) when it has T = 1 (it holds for
    the ratio of expectations; for the expected ratio it is a reference line). Random order
    only: else an empty grid."""
    tasks, trials = plan.tasks, plan.trials
    if plan.order != Order.RANDOM:
        return np.zeros((0, 0))
    v1 = np.full(len(trials), np.nan)
    if mats:
        per = (
            grids.observed[:, 0, :]
            if tasks[0] == 1
            else np.array(
                [
                    [one_task_ratio(pm, q_matrix(pm, k, plan.samples, False)) for k in trials]
                    for pm in mats
                ]
            )
        )
        with np.errstate(invalid="ignore"):
            v1 = np.nanmean(per, axis=0)
    if not tasks:
        return np.zeros((0, 0))
    bound: np.ndarray = np.minimum(1.0, np.array(tasks)[:, None] * v1[None, :])
    return bound


def _method_label(plan: _Plan, all_exact: bool, seed: int) -> str:
    """How the curve was computed, as its output names it: a sampled expected ratio says its
    draws and seed."""
    if plan.order != Order.RANDOM:
        return "fixed" if plan.order == Order.FIXED else "greedy"
    if plan.method == Method.RATIO_OF_EXPECTATIONS or all_exact:
        return str(plan.method)
    return f"{plan.method}:{plan.draws}:{seed}"


def _intervals(observed: np.ndarray) -> list[list[tuple[float, float] | None]]:
    """Each point's 95% interval over profiles (:func:`cimem.analysis.intervals.share_interval`,
    as every interval over profiles is made); None where there is none (one profile)."""
    out: list[list[tuple[float, float] | None]] = []
    for i in range(observed.shape[1] if observed.ndim == 3 else 0):
        row: list[tuple[float, float] | None] = []
        for j in range(observed.shape[2]):
            ci = share_interval(observed[:, i, j])
            row.append(None if ci.kind == IntervalKind.NONE else ci.bounds)
        out.append(row)
    return out


def _clean(a: np.ndarray) -> Grid:
    return [[None if np.isnan(x) else float(x) for x in row] for row in np.asarray(a)]
