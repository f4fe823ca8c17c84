"""Simulated runs with a known truth, to check what :mod:`cimem.analysis.intervals` and
:mod:`cimem.analysis.power` promise: coverage of the intervals, the false-positive rate of the
paired comparison, and the power a planned number of profiles achieves (``bench/intervals.py``
prints them; tests keep seeded thresholds).

A profile has a leak propensity drawn from a population (a :class:`Regime`); each of its
attributes a per-sample chance scattered around it (most attributes rarely leak, a few often);
its value is the share of its attributes leaked within ``n`` samples, as a profile's
Violation@n is. Two runs of one model on the same people share the profiles' propensities and
draw their samples apart, so equal models differ only by sampling.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from cimem.analysis.intervals import (
    LEVEL,
    difference_p,
    ratio_interval,
    share_interval,
    these_people_interval,
)

ATTRIBUTES = 80  # eligible attributes per profile, about the benchmark's private ones
TRUTH_PROFILES = 400_000  # profiles drawn once to know a regime's population mean


@dataclass(frozen=True)
class Regime:
    """A population of people for one model: a share ``leakers`` of profiles has a propensity
    from Beta(``a``, ``b``), the others never leak; ``n`` samples per task."""

    name: str
    leakers: float
    a: float
    b: float
    n: int


REGIMES = (
    Regime("rare leaker (30% never leak), n = 5", 0.7, 0.7, 25, 5),
    Regime("rare leaker (30% never leak), n = 1", 0.7, 0.7, 25, 1),
    Regime("dense leaker, n = 5", 1.0, 2, 20, 5),
    Regime("dense leaker, n = 1", 1.0, 2, 20, 1),
    Regime("Completeness-like shares (about 45%)", 1.0, 8, 30, 5),
)
# Beyond what users meet: most profiles never leak and the rest have a long tail. Printed by the
# bench to show where the interval falls short, not held to the 0.94.
STRESS = Regime("stress: 60% never leak, long tail, n = 5", 0.4, 0.5, 12, 5)


def propensities(rng: np.random.Generator, regime: Regime, m: int) -> np.ndarray:
    """Each profile's leak propensity."""
    leaks = rng.random(m) < regime.leakers
    return np.where(leaks, rng.beta(regime.a, regime.b, m), 0.0)


def shares(rng: np.random.Generator, p: np.ndarray, n: int, scale: float = 1.0) -> np.ndarray:
    """Per profile, the share of its attributes leaked within ``n`` samples, when each attribute's
    per-sample chance is the profile's propensity times ``scale`` times a Gamma(0.5, 2) spread."""
    spread = rng.gamma(0.5, 2.0, (len(p), ATTRIBUTES))
    chance = np.clip(p[:, None] * scale * spread, 0, 1)
    within_n = 1 - (1 - chance) ** n
    return np.asarray((rng.random(within_n.shape) < within_n).mean(axis=1), float)


def population_mean(regime: Regime, seed: int = 12345, scale: float = 1.0) -> float:
    """A regime's true mean (over :data:`TRUTH_PROFILES` profiles, in chunks)."""
    rng = np.random.default_rng(seed)
    chunk, total = 50_000, 0.0
    for _ in range(TRUTH_PROFILES // chunk):
        total += float(shares(rng, propensities(rng, regime, chunk), regime.n, scale).sum())
    return total / TRUTH_PROFILES


Interval = tuple[float, float]


def coverage(
    regime: Regime,
    profiles: int,
    draws: int,
    seed: int,
    method: Callable[[np.ndarray], Interval] | None = None,
    truth: float | None = None,
) -> tuple[float, float]:
    """The share of ``draws`` simulated runs of ``profiles`` profiles whose interval holds the
    regime's true mean, and the intervals' mean width (``method``: the share interval's bounds
    unless another is given, to compare methods)."""
    make = method or (lambda v: share_interval(v).bounds)
    mu = population_mean(regime) if truth is None else truth
    rng = np.random.default_rng(seed)
    held, width = 0, 0.0
    for _ in range(draws):
        lo, hi = make(shares(rng, propensities(rng, regime, profiles), regime.n))
        held += lo <= mu <= hi
        width += hi - lo
    return held / draws, width / draws


def rejections(regime: Regime, profiles: int, draws: int, seed: int, scale_b: float = 1.0) -> float:
    """The share of simulated pairs of runs on the same people that the paired comparison calls
    different (p < 0.05): a false-positive rate when ``scale_b`` is 1 (equal models), the power
    otherwise (run B's per-sample chances scaled by ``scale_b``)."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(draws):
        p = propensities(rng, regime, profiles)
        a = shares(rng, p, regime.n)
        b = shares(rng, p, regime.n, scale_b)
        hits += difference_p(b - a) < 1 - LEVEL
    return hits / draws


def difference_spread(regime: Regime, scale_b: float, seed: int = 7) -> tuple[float, float]:
    """The true mean and standard deviation of per-profile differences b - a (many profiles)."""
    rng = np.random.default_rng(seed)
    p = propensities(rng, regime, 200_000)
    d = shares(rng, p, regime.n, scale_b) - shares(rng, p, regime.n)
    return float(d.mean()), float(d.std(ddof=1))


def these_people_coverage(
    regime: Regime, profiles: int, trials: int, draws: int, seed: int
) -> tuple[float, float]:
    """Coverage and mean width of the interval over these people for a metric that averages over
    samples (as Completeness and the leak rate do): per draw, people are drawn once, their
    attributes' per-sample chances fixed, and the truth is these people's expected share; only
    the ``trials`` samples vary."""
    rng = np.random.default_rng(seed)
    held, width = 0, 0.0
    for _ in range(draws):
        p = propensities(rng, regime, profiles)
        chance = np.clip(p[:, None] * rng.gamma(0.5, 2.0, (profiles, ATTRIBUTES)), 0, 1)
        truth = float(chance.mean())
        drawn = rng.random((profiles, trials, ATTRIBUTES)) < chance[:, None, :]
        per_trial = drawn.mean(axis=2)
        lo, hi = these_people_interval(list(per_trial), float(per_trial.mean())).bounds
        held += lo <= truth <= hi
        width += hi - lo
    return held / draws, width / draws


def ratio_coverage(regime: Regime, profiles: int, draws: int, seed: int) -> tuple[float, float]:
    """Coverage and mean width of the pooled share's interval (a Leaks page group: leaked pairs
    over private pairs, pooled over profiles): each profile holds 2-20 private pairs of the group,
    each leaked within n samples with its own chance; the truth is the population's ratio
    E[leaked] / E[pairs] (pairs drawn apart from propensities, so E[chance within n])."""
    truth = population_mean(regime)
    rng = np.random.default_rng(seed)
    held, width = 0, 0.0
    for _ in range(draws):
        p = propensities(rng, regime, profiles)
        pairs = rng.integers(2, 21, profiles)
        chance = np.clip(p[:, None] * rng.gamma(0.5, 2.0, (profiles, 20)), 0, 1)
        leaked_any = rng.random((profiles, 20)) < 1 - (1 - chance) ** regime.n
        leaked = (leaked_any & (np.arange(20)[None, :] < pairs[:, None])).sum(axis=1)
        lo, hi = ratio_interval(leaked, pairs).bounds
        held += lo <= truth <= hi
        width += hi - lo
    return held / draws, width / draws
