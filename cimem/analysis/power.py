"""How large a difference a paired comparison can see, how many profiles a chosen difference
needs, and Holm's correction when several runs are compared with one: statsmodels' power of the
one-sample (paired) t test, the test :mod:`cimem.analysis.intervals` makes, so the power printed
beside a comparison is the power of that comparison; Holm's values equal statsmodels'
``multipletests`` (see :func:`holm` for why they are written out).

statsmodels costs about a second to import: it is imported here when a power or a correction is
first computed, not when a command or page that might compare runs starts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from cimem.analysis.intervals import FEWEST_TO_TELL, LEVEL

POWER = 0.8  # the power a planned comparison aims at
ALPHA = 1 - LEVEL
MAX_PROFILES = 100_000  # past this a difference is too small to plan for


def detectable_difference(sd: float, profiles: int, power: float = POWER) -> float:
    """The smallest |mean difference| the paired t test finds with ``power`` over ``profiles``
    profiles whose differences spread by ``sd`` (nan below two profiles).

    >>> round(detectable_difference(0.1, 10), 4)
    0.0996
    """
    if profiles < 2 or sd != sd:
        return float("nan")
    if sd == 0:
        return 0.0
    from statsmodels.stats.power import TTestPower

    effect = TTestPower().solve_power(
        nobs=profiles, alpha=ALPHA, power=power, alternative="two-sided"
    )
    return float(effect) * sd


def power_at(difference: float, sd: float, profiles: int) -> float:
    """The chance the paired t test over ``profiles`` calls a true ``difference`` real.

    >>> round(power_at(0.1, 0.1, 10), 2)
    0.8
    """
    if profiles < 2 or sd != sd:
        return float("nan")
    if sd == 0:
        return 1.0 if difference else ALPHA
    from statsmodels.stats.power import TTestPower

    power = float(
        TTestPower().power(
            effect_size=abs(difference) / sd, nobs=profiles, alpha=ALPHA, alternative="two-sided"
        )
    )
    return 1.0 if power != power and abs(difference) > sd else power  # nan: beyond its range


def profiles_needed(difference: float, sd: float, power: float = POWER) -> int:
    """Profiles for the paired t test to find ``difference`` with ``power`` when the per-profile
    differences spread by ``sd`` (at least :data:`FEWEST_TO_TELL`, below which the exact test
    cannot call any difference; :data:`MAX_PROFILES` when out of reach).

    >>> profiles_needed(0.1, 0.1), profiles_needed(0.05, 0.1), profiles_needed(0.5, 0.1)
    (10, 34, 6)
    """
    if difference == 0 or sd != sd:
        return MAX_PROFILES
    if sd == 0:
        return FEWEST_TO_TELL
    n = FEWEST_TO_TELL
    while n < MAX_PROFILES and power_at(difference, sd, n) < power:
        n = n + 1 if n < 64 else math.ceil(n * 1.05)
    return n


RESAMPLES = 4000  # resampled studies per number of profiles tried
RESAMPLE_SEED = 0


def resampled_power(differences: np.ndarray, difference: float, profiles: int) -> float:
    """The power at ``profiles`` profiles of a study whose per-profile differences look like
    ``differences`` moved to mean ``difference``: the share of :data:`RESAMPLES` studies, each
    drawing its profiles from them with replacement, whose paired t test says p < 0.05 (the
    t test's decisions, which the exact test's match closely from 8 profiles on). Unlike the
    normal formula it keeps the differences' shape: many exactly 0, a long tail.

    >>> d = np.array([0.0, 0.0, 0.0, 0.1, 0.3, 0.0, 0.05, 0.0, 0.2, 0.0])
    >>> round(resampled_power(d, 0.05, 30), 2)
    0.83
    """
    from scipy.special import stdtr

    rng = np.random.default_rng(RESAMPLE_SEED)
    moved = differences - differences.mean() + difference
    drawn = moved[rng.integers(0, len(moved), (RESAMPLES, profiles))]
    mean, sd = drawn.mean(axis=1), drawn.std(axis=1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = 2 * stdtr(profiles - 1, -np.abs(mean) / (sd / np.sqrt(profiles)))
    p = np.where(sd > 0, p, np.where(mean != 0, 0.0, 1.0))
    return float(np.mean(p < ALPHA))


def resampled_profiles_needed(
    differences: np.ndarray, difference: float, power: float = POWER
) -> int:
    """The fewest profiles whose :func:`resampled_power` reaches ``power``, searched from the
    normal formula's answer (at least :data:`FEWEST_TO_TELL`)."""
    d = np.asarray(differences, float)
    if len(d) < 2 or difference == 0:
        return MAX_PROFILES
    start = profiles_needed(difference, float(d.std(ddof=1)), power)
    if start >= MAX_PROFILES:
        return MAX_PROFILES
    n = max(FEWEST_TO_TELL, start // 2)
    while n < MAX_PROFILES and resampled_power(d, difference, n) < power:
        n = n + 1 if n < 64 else math.ceil(n * 1.03)
    return n


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (nan stays nan), so that comparing several runs with one
    keeps the chance of any false "different" at 5%. Written out (five lines) rather than
    statsmodels' ``multipletests(method="holm")``, which gives the same values
    (``tests/analysis/test_intervals.py`` checks it) but runs a full garbage collection on every
    call: 0.1-0.3 s in an app server holding runs, twice on every rerun of Overview.

    >>> [round(p, 3) for p in holm([0.01, 0.04, float("nan"), 0.03])]
    [0.03, 0.06, nan, 0.06]
    """
    p = np.asarray(p_values, float)
    out = np.full(len(p), np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    order = ok[np.argsort(p[ok], kind="stable")]  # smallest first
    steps = np.arange(len(order), 0, -1)  # the smallest is multiplied by m, the next by m - 1
    out[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * steps))
    return [float(x) for x in out]
