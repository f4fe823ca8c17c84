"""How many profiles a study needs, from pilot runs: to tell two runs apart at a chosen
difference with 80% power (the spread of their per-profile differences), or to give one run's
metric a chosen margin (the spread between profiles), with what the design costs in calls.

Following E. Miller, "Adding Error Bars to Evals" (arXiv 2411.00640): the profile is the cluster,
two models are compared on the same profiles (paired), and the number of clusters for a
difference d at power 1 - beta is about (z_a/2 + z_b)^2 sd_d^2 / d^2, here found exactly with the
paired t test's power (:mod:`cimem.analysis.power`); ``bench/intervals.py`` checks by simulation
that the planned profiles achieve the planned power.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from cimem.analysis.intervals import t_quantile
from cimem.analysis.metrics import RunMetrics, Summary, common_values
from cimem.analysis.power import MAX_PROFILES, POWER, power_at, profiles_needed

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
    else:
        common, va, vb = common_values(a, b)
        pilot = len(common)
        d = vb - va
        spread = float(d.std(ddof=1)) if pilot > 1 else float("nan")
        corr = _correlation(va, vb)
        observed = float(d.mean()) if pilot else None
    return MetricPlan(
        metric=metric,
        pilot_profiles=pilot,
        spread=spread,
        correlation=corr,
        observed_difference=observed,
        power_now=power_at(difference, spread, pilot) if pilot > 1 else None,
        profiles_for_difference=profiles_needed(difference, spread, POWER),
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


def calls(profiles: int, contexts: int, trials: int) -> int:
    """Model calls a run of this design makes: one message and one judge call per (profile,
    task, trial).

    >>> calls(10, 49, 5)
    4900
    """
    return 2 * profiles * contexts * trials
