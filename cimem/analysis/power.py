"""How large a difference a paired comparison can see, how many profiles a chosen difference
needs, and Holm's correction when several runs are compared with one: statsmodels' power of the
one-sample (paired) t test and its ``multipletests``, the test :mod:`cimem.analysis.intervals`
makes, so the power printed beside a comparison is the power of that comparison.

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


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values (nan stays nan), so that comparing several runs with one
    keeps the chance of any false "different" at 5%.

    >>> [round(p, 3) for p in holm([0.01, 0.04, float("nan"), 0.03])]
    [0.03, 0.06, nan, 0.06]
    """
    p = np.asarray(p_values, float)
    out = np.full(len(p), np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        from statsmodels.stats.multitest import multipletests

        out[ok] = multipletests(p[ok], alpha=ALPHA, method="holm")[1]
    return [float(x) for x in out]
