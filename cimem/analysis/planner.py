"""How many profiles a study needs, from pilot runs: to tell two runs apart at a chosen
difference with 80% power (the spread of their per-profile differences), or to give one run's
metric a chosen margin (the spread between profiles), with what the design costs in calls.

Following E. Miller, "Adding Error Bars to Evals" (arXiv 2411.00640): the profile is the cluster,
two models are compared on the same profiles (paired), and the number of clusters for a
difference d at power 1 - beta is about (z_a/2 + z_b)^2 sd_d^2 / d^2. With two pilots cimem
resamples their own per-profile differences, moved to the chosen difference, instead
(:func:`cimem.analysis.power.resampled_power`): a rare leaker's differences are mostly exactly 0
with a long tail, where the normal formula asked for 8-9 points more power than it delivered.
With one pilot there are no differences to resample, and the paired t test's power answers.
``bench/intervals.py`` checks by simulation that the planned profiles achieve the planned
power.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd

from cimem.analysis.cube import LeakCube
from cimem.analysis.intervals import t_quantile
from cimem.analysis.metrics import RunMetrics, Summary, common_values
from cimem.analysis.power import (
    MAX_PROFILES,
    POWER,
    power_at,
    profiles_needed,
    resampled_profiles_needed,
)

METRICS = (("violation", "Violation@n"), ("completeness", "Completeness"))
ASSUMED_CORRELATION = 0.5  # of two runs on the same profiles, when only one pilot run is given


@dataclass(frozen=True)
class MetricPlan:
    """One metric's plan: the spread it rests on and the profiles it needs."""

    metric: str
    pilot_profiles: int
    spread: float  # sd between profiles (one run) or of the paired differences (two runs)
    correlation: float | None  # of the two runs over common profiles (None: one run)
    observed_difference: float | None
    power_now: float | None  # of the pilot's own profiles at the chosen difference
    profiles_for_difference: int
    profiles_for_margin: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def profiles_for_margin(sd: float, margin: float) -> int:
    """Profiles for a 95% interval of about +/- ``margin`` when profiles spread by ``sd``.

    >>> profiles_for_margin(0.1, 0.05), profiles_for_margin(0.0, 0.05)
    (18, 2)
    """
    if sd == 0:
        return 2
    if sd != sd or margin <= 0:
        return MAX_PROFILES
    m = 2
    while m < MAX_PROFILES and t_quantile(m - 1) * sd / math.sqrt(m) > margin:
        m = m + 1 if m < 64 else math.ceil(m * 1.05)
    return m


def plan_metric(
    metric: str, a: Summary, b: Summary | None, difference: float, margin: float
) -> MetricPlan:
    """The plan of one metric from one pilot run (``b`` None) or two."""
    sd_a = a.std if a.n_profiles > 1 else float("nan")
    if b is None:
        # a second run's differences spread by sd * sqrt(2 (1 - rho)): sd itself at rho = 0.5
        spread = sd_a * math.sqrt(2 * (1 - ASSUMED_CORRELATION))
        corr, observed, pilot = None, None, a.n_profiles
        needed = profiles_needed(difference, spread, POWER)
    else:
        common, va, vb = common_values(a, b)
        pilot = len(common)
        d = vb - va
        spread = float(d.std(ddof=1)) if pilot > 1 else float("nan")
        corr = _correlation(va, vb)
        observed = float(d.mean()) if pilot else None
        needed = resampled_profiles_needed(d, difference, POWER)
    return MetricPlan(
        metric=metric,
        pilot_profiles=pilot,
        spread=spread,
        correlation=corr,
        observed_difference=observed,
        power_now=power_at(difference, spread, pilot) if pilot > 1 else None,
        profiles_for_difference=needed,
        profiles_for_margin=profiles_for_margin(sd_a, margin),
    )


def _correlation(va: np.ndarray, vb: np.ndarray) -> float | None:
    if len(va) < 3 or np.ptp(va) == 0 or np.ptp(vb) == 0:
        return None
    return float(np.corrcoef(va, vb)[0, 1])


def plan(a: RunMetrics, b: RunMetrics | None, difference: float, margin: float) -> list[MetricPlan]:
    """Violation@n's and Completeness's plans."""
    return [
        plan_metric(
            name, getattr(a, name), None if b is None else getattr(b, name), difference, margin
        )
        for name, _ in METRICS
    ]


def tasks_of(cube: LeakCube) -> int:
    """The run's tasks (recipient and task pairs), what a design's calls are counted over."""
    return len(set(zip(cube.ctx_recipient, cube.ctx_task)))


def plan_frame(
    plans: list[MetricPlan], difference: float, margin: float, tasks: int, trials: int
) -> pd.DataFrame:
    """The plan as the command line and the Overview show it (``difference`` and ``margin`` in
    points): one row per metric."""
    rows = []
    for p, (_, title) in zip(plans, METRICS):
        need = p.profiles_for_difference
        rows.append(
            {
                "metric": title,
                "sd, points": f"{100 * p.spread:.2f}",
                "corr": "-" if p.correlation is None else f"{p.correlation:.2f}",
                "pilot profiles": str(p.pilot_profiles),
                f"power at {difference:g} pts now": "-"
                if p.power_now is None or p.power_now != p.power_now
                else f"{p.power_now:.2f}",
                f"profiles for {difference:g} pts (80% power)": _count(need),
                f"profiles for ±{margin:g} pts": _count(p.profiles_for_margin),
                "calls": "-" if need >= MAX_PROFILES else f"{calls(need, tasks, trials):,}",
            }
        )
    return pd.DataFrame(rows)


def _count(n: int) -> str:
    return "out of reach" if n >= MAX_PROFILES else f"{n:,}"


def plan_note(two_pilots: bool, trials: int) -> str:
    """What the plan rests on, said beside it."""
    spread = (
        "sd: of the paired differences between the runs over their common profiles; profiles"
        " for a difference from resampling those differences"
        if two_pilots
        else "sd: of the run's profiles; a second run assumed to correlate 0.5 with it on the"
        " same people, profiles for a difference from the paired t test's power"
    )
    return (
        f"{spread}; at least 6 profiles, fewer cannot tell two runs apart. Violation@n is defined"
        f" at n: keep n = {trials} to compare at it. Calls: a message and a judge call per"
        " profile, task and trial. Audited cells for the judge's correction: `cimem audit-plan`."
    )


def calls(profiles: int, contexts: int, trials: int) -> int:
    """Model calls a run of this design makes: one message and one judge call per (profile,
    task, trial).

    >>> calls(10, 49, 5)
    4900
    """
    return 2 * profiles * contexts * trials
