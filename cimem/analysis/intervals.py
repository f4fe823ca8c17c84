"""The 95% intervals of every share averaged over profiles, and paired differences of two runs:
one place, so a page, a command, a download and a report give the same interval.

Why these methods (measured by ``bench/intervals.py``, explained in docs/statistics.md):

- A metric is a mean over profiles of per-profile shares in [0, 1] (Violation@n, Completeness,
  the leak rate); at the benchmark's size there are 10 profiles, and a rare leaker's shares are
  skewed with many zeros. A percentile bootstrap of the mean held the true mean in 73-89% of
  simulated draws at 10 profiles; a t interval 76-95%, failing exactly for rare leakers.
- :func:`share_interval` is **Korn and Graubard's** interval (Survey Methodology 24, 1998), made
  for proportions with few positives estimated from clustered data, which is what a profile
  cluster of attributes is: Clopper-Pearson at the effective sample size ``mean (1 - mean) /
  variance of the mean``, shrunk by ``(z / t_{m-1})^2`` for the few profiles the variance rests
  on. It is skewed toward the long tail where the t interval is symmetric, and keeps the 95% in
  every regime the bench simulates at 10 profiles.
- With every profile at 0 (nothing leaked) there is no spread to estimate: the interval is the
  one-sided 95% upper bound ``1 - 0.05^(1/m)``, valid for any distribution on [0, 1] (if the mean
  were higher, m zeros would happen less than 5% of the time); at 1, the matching lower bound.
- The estimand is the mean over **people like these** (the profiles are a sample of people, and
  resampling them is the uncertainty), as the benchmark's critique asks.
- :func:`paired_difference` compares two runs on the profiles both have. Under two equal models a
  profile's difference b - a is as likely to be positive as negative, so at up to 16 profiles the
  exact sign-flip test (every pattern of signs enumerated) calls equal models different at most
  5% of the time, whatever the shape of the differences, and its interval is the set of shifts
  it does not reject; the paired t, at 5.0-5.7% there, is used above 16 profiles, where it is
  accurate. (The bootstrap it replaces said "different" 11% of the time at 10 profiles.) With 5
  profiles or fewer no pattern is rare enough: the comparison says it cannot tell.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np
from scipy.special import betaincinv, ndtri, stdtr, stdtrit

LEVEL = 0.95
ESTIMAND = "people like these (profiles resampled)"
THESE_PEOPLE = "these people (samples resampled within each profile)"
THESE_PEOPLE_METHOD = "Korn-Graubard on the spread of each profile's trials"
ONE_TRIAL = "one trial: no spread of samples"  # why "these people" has no interval
WORST_CASE = "a maximum over the n samples has no replicate within one run"
SHARE_METHOD = "Korn-Graubard (Clopper-Pearson at the effective size, t-adjusted)"
# How every interval over profiles is made, in the words beside every table that shows one.
INTERVALS_SAID = (
    "95% intervals over people like these (profiles resampled): Korn-Graubard; a one-sided"
    " bound marked (bound) when every profile is at 0; none with one profile"
)
DIFFERENCE_METHOD = "paired t over common profiles"
SIGN_FLIP_METHOD = "exact sign-flip test over common profiles, its interval by inversion"
FEWEST_TO_TELL = 6  # profiles: with 5, even every difference of one sign has p = 2/32 > 5%
EXACT_UP_TO = 16  # profiles: every one of the 2^m sign patterns is enumerated (65,536 at 16)


class IntervalKind(StrEnum):
    """What an interval is: two-sided, or a one-sided bound when every profile is at 0 or at 1
    (no spread to estimate), or none (fewer than two profiles)."""

    TWO_SIDED = "two-sided"
    UPPER_BOUND = "upper bound"
    LOWER_BOUND = "lower bound"
    NONE = "none"


@dataclass(frozen=True)
class Interval:
    """A 95% interval and how it was made (method, estimand, profiles)."""

    lo: float
    hi: float
    kind: IntervalKind
    profiles: int
    method: str = SHARE_METHOD
    estimand: str = ESTIMAND

    @property
    def bounds(self) -> tuple[float, float]:
        return (self.lo, self.hi)

    def describe(self) -> str:
        """How the interval was made, as said beside it.

        >>> share_interval(np.array([0.1, 0.2, 0.3])).describe()
        '95% interval: Korn-Graubard (Clopper-Pearson at the effective size, t-adjusted), over people like these (profiles resampled), 3 profiles'
        """
        return f"95% interval: {self.method}, over {self.estimand}, {self.profiles} profiles"

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": str(self.kind),
            "method": self.method,
            "estimand": self.estimand,
            "level": LEVEL,
        }


def t_quantile(df: int) -> float:
    """The two-sided 95% quantile of Student's t with ``df`` degrees of freedom.

    >>> round(t_quantile(9), 3)
    2.262
    """
    return float(stdtrit(df, 0.5 + LEVEL / 2))


def share_interval(values: np.ndarray) -> Interval:
    """The 95% interval of the mean of per-profile shares in [0, 1] (nan values left out).

    >>> v = np.array([0.0, 0.0, 0.3, 0.1, 0.0, 0.05, 0.0, 0.2, 0.0, 0.02])
    >>> [round(x, 4) for x in share_interval(v).bounds]  # the t interval: [-0.0077, 0.1417]
    [0.0134, 0.1867]
    >>> i = share_interval(np.zeros(10))
    >>> i.kind, round(i.hi, 4)
    (<IntervalKind.UPPER_BOUND: 'upper bound'>, 0.2589)
    >>> [round(x, 3) for x in share_interval(np.full(3, 0.025)).bounds]  # no spread: 3 profiles
    [0.0, 0.728]
    >>> share_interval(np.array([0.4])).kind
    <IntervalKind.NONE: 'none'>
    """
    v = np.asarray(values, float)
    v = v[~np.isnan(v)]
    m = len(v)
    nan = float("nan")
    if m == 0:
        return Interval(nan, nan, IntervalKind.NONE, 0)
    mean = float(v.mean())
    if m == 1:
        return Interval(mean, mean, IntervalKind.NONE, 1)
    one_sided = (1 - LEVEL) ** (1 / m)  # (1 - bound)^m = 5%: m zeros are that rare above it
    if v.max() <= 0:
        return Interval(0.0, 1 - one_sided, IntervalKind.UPPER_BOUND, m)
    if v.min() >= 1:
        return Interval(one_sided, 1.0, IntervalKind.LOWER_BOUND, m)
    spread = float(v.var(ddof=1)) if np.ptp(v) > 0 else 0.0  # equal values: none (not 1e-35)
    lo, hi = _korn_graubard(mean, spread, m)
    return Interval(lo, hi, IntervalKind.TWO_SIDED, m)


def ratio_interval(numerators: np.ndarray, denominators: np.ndarray) -> Interval:
    """The 95% interval of a share pooled over profiles, sum(numerators) / sum(denominators)
    (per profile: leaked pairs over private pairs, say), over people like these: Korn and
    Graubard's own case, a ratio from a cluster sample, its variance by linearisation,
    m / (m - 1) sum_i (y_i - R x_i)^2 / (sum_i x_i)^2. Profiles with no denominator are left
    out; nothing observed gives the one-sided bound, as :func:`share_interval` does.

    >>> ratio_interval(np.array([1, 0, 2, 0, 1]), np.array([10, 10, 12, 8, 10])).kind
    <IntervalKind.TWO_SIDED: 'two-sided'>
    >>> [round(x, 3) for x in ratio_interval(np.zeros(10), np.full(10, 8)).bounds]
    [0.0, 0.259]
    """
    y, x = np.asarray(numerators, float), np.asarray(denominators, float)
    y, x = y[x > 0], x[x > 0]
    m = len(x)
    nan = float("nan")
    if m == 0:
        return Interval(nan, nan, IntervalKind.NONE, 0)
    share = float(y.sum() / x.sum())
    if m == 1:
        return Interval(share, share, IntervalKind.NONE, 1)
    one_sided = (1 - LEVEL) ** (1 / m)
    if share <= 0:
        return Interval(0.0, 1 - one_sided, IntervalKind.UPPER_BOUND, m)
    if share >= 1:
        return Interval(one_sided, 1.0, IntervalKind.LOWER_BOUND, m)
    var = m / (m - 1) * float(((y - share * x) ** 2).sum()) / float(x.sum()) ** 2
    if var <= 0:
        lo, hi = _clopper_pearson(share * m, float(m))
    else:
        lo, hi = _effective_clopper_pearson(share, var, m - 1)
    return Interval(lo, hi, IntervalKind.TWO_SIDED, m)


def _korn_graubard(mean: float, variance: float, m: int) -> tuple[float, float]:
    """Clopper-Pearson at the effective size, t-adjusted (Korn and Graubard 1998)."""
    var_of_mean = variance / m
    if var_of_mean <= 0:  # no spread: the profiles' count, no variance estimated to adjust for
        return _clopper_pearson(mean * m, float(m))
    return _effective_clopper_pearson(mean, var_of_mean, m - 1)


def _effective_clopper_pearson(mean: float, var_of_mean: float, df: int) -> tuple[float, float]:
    """Clopper-Pearson at the effective size mean (1 - mean) / var_of_mean, shrunk by (z / t)^2
    for a variance estimated on ``df`` degrees of freedom."""
    if mean <= 0 or mean >= 1:
        return (mean, mean)
    z = float(ndtri(0.5 + LEVEL / 2))
    n_eff = mean * (1 - mean) / var_of_mean * (z / t_quantile(df)) ** 2
    return _clopper_pearson(mean * n_eff, n_eff)


def these_people_interval(trials: list[np.ndarray], centre: float | None = None) -> Interval:
    """The 95% interval of the mean over these profiles when only the samples vary: per profile,
    its value in each trial alone (a metric that averages over samples averages these); the
    variance of its mean is their spread over the trials it has, and the mean over profiles
    (``centre`` when given: the headline mean) has the variance sum_i s_i^2 / n_i / m^2 on
    sum_i (n_i - 1) degrees of freedom, made an interval as :func:`share_interval` makes one
    (Clopper-Pearson at the effective size, t-adjusted). With no
    spread at all, Clopper-Pearson over the profile-trials; with one trial each, none.

    >>> i = these_people_interval([np.array([0.5, 0.6, 0.55]), np.array([0.3, 0.35, 0.4])])
    >>> [round(x, 3) for x in i.bounds], i.estimand == THESE_PEOPLE
    ([0.392, 0.509], True)
    >>> these_people_interval([np.array([0.5]), np.array([0.3])]).kind
    <IntervalKind.NONE: 'none'>
    """
    kept = [np.asarray(t, float)[~np.isnan(t)] for t in trials]
    kept = [t for t in kept if len(t)]
    m = len(kept)
    nan = float("nan")
    if m == 0 or max(len(t) for t in kept) < 2:
        return Interval(nan, nan, IntervalKind.NONE, m, THESE_PEOPLE_METHOD, THESE_PEOPLE)
    mean = float(np.mean([t.mean() for t in kept])) if centre is None else centre
    spread = sum(float(t.var(ddof=1)) / len(t) for t in kept if len(t) > 1)
    df = sum(len(t) - 1 for t in kept)
    if spread <= 0:
        total = sum(len(t) for t in kept)
        lo, hi = _clopper_pearson(mean * total, float(total))
        return Interval(lo, hi, IntervalKind.TWO_SIDED, m, THESE_PEOPLE_METHOD, THESE_PEOPLE)
    lo, hi = _effective_clopper_pearson(mean, spread / m**2, df)
    return Interval(lo, hi, IntervalKind.TWO_SIDED, m, THESE_PEOPLE_METHOD, THESE_PEOPLE)


def _clopper_pearson(k: float, n: float) -> tuple[float, float]:
    tail = (1 - LEVEL) / 2
    lo = float(betaincinv(k, n - k + 1, tail)) if k > 0 else 0.0
    hi = float(betaincinv(k + 1, n - k, 1 - tail)) if k < n else 1.0
    return (lo, hi)


@dataclass(frozen=True)
class Difference:
    """A paired difference b - a over common profiles: mean, 95% interval, two-sided p-value
    (nan when every difference is the same), and the differences' standard deviation, which the
    power of the comparison and the planner use."""

    mean: float
    lo: float
    hi: float
    p_value: float
    sd: float
    profiles: int
    method: str = DIFFERENCE_METHOD
    estimand: str = ESTIMAND

    @property
    def distinguishable(self) -> bool:
        """Whether the interval excludes 0 (p < 0.05)."""
        return self.p_value == self.p_value and self.p_value < 1 - LEVEL


def paired_difference(a: np.ndarray, b: np.ndarray) -> Difference:
    """The interval and test of mean(b - a) over profiles with both values: exact sign-flip up
    to :data:`EXACT_UP_TO` profiles, paired t above.

    >>> a = np.array([0.1, 0.2, 0.3, 0.2, 0.1, 0.0, 0.2, 0.3])
    >>> d = paired_difference(a, a + np.array([0.1, 0.05, 0.1, 0.1, 0.0, 0.02, 0.1, 0.06]))
    >>> round(d.mean, 4), round(d.lo, 4), round(d.hi, 4), d.p_value, d.method[:14]
    (0.0663, 0.0267, 0.1, 0.015625, 'exact sign-fli')
    >>> paired_difference(a[:5], a[:5] + 0.1).distinguishable  # 5 profiles cannot tell
    False
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    ok = ~(np.isnan(a) | np.isnan(b))
    d = b[ok] - a[ok]
    m = len(d)
    nan = float("nan")
    if m == 0:
        return Difference(nan, nan, nan, nan, nan, 0)
    mean = float(d.mean())
    if m == 1:
        return Difference(mean, nan, nan, nan, nan, 1)
    sd = float(d.std(ddof=1))
    if sd == 0:
        return Difference(mean, mean, mean, difference_p(d), 0.0, m)
    if m <= EXACT_UP_TO:
        lo, hi = _sign_flip_interval(d)
        return Difference(mean, lo, hi, difference_p(d), sd, m, SIGN_FLIP_METHOD)
    half = t_quantile(m - 1) * sd / math.sqrt(m)
    return Difference(mean, mean - half, mean + half, difference_p(d), sd, m)


def difference_p(d: np.ndarray) -> float:
    """The two-sided p-value :func:`paired_difference` gives (the decision alone, as the
    simulations of ``bench/intervals.py`` need it thousands of times).

    >>> difference_p(np.array([0.1, 0.2, 0.3])), difference_p(np.zeros(3))
    (0.25, 1.0)
    """
    m = len(d)
    if m <= EXACT_UP_TO:
        return sign_flip_p(d)
    sd = float(d.std(ddof=1))
    if sd == 0:
        return 1.0 if float(d.mean()) == 0 else 0.0
    return float(2 * stdtr(m - 1, -abs(float(d.mean())) / (sd / math.sqrt(m))))


@functools.cache
def _signs(m: int) -> np.ndarray:
    """Every pattern of m signs, one per row (2^m rows)."""
    bits = (np.arange(2**m)[:, None] >> np.arange(m)) & 1
    return 1.0 - 2.0 * bits


def sign_flip_p(d: np.ndarray) -> float:
    """The two-sided p-value of mean(d) = 0: the share of sign patterns whose |mean| is at least
    the observed one (exact; the observed pattern is one of them).

    >>> sign_flip_p(np.array([0.1, 0.2, 0.3])), sign_flip_p(np.array([0.1, -0.1]))
    (0.25, 1.0)
    """
    flipped = np.abs(_signs(len(d)) @ d)
    return float(np.mean(flipped >= abs(float(d.sum())) * (1 - 1e-12)))


def _sign_flip_interval(d: np.ndarray) -> tuple[float, float]:
    """The shifts the sign-flip test does not reject at 5%, found by bisection on each side of
    the mean (outside [min, max] every sign agrees and the p-value is its least, 2 / 2^m)."""
    signs = _signs(len(d))

    def kept(shift: float) -> bool:
        x = d - shift
        return bool(np.mean(np.abs(signs @ x) >= abs(float(x.sum())) * (1 - 1e-12)) > 1 - LEVEL)

    mean, width = float(d.mean()), float(np.ptp(d)) + 1e-9
    if kept(float(d.min()) - width):  # too few profiles for any pattern to be rare enough
        return (-1.0, 1.0)
    ends = []
    for far in (float(d.min()) - width, float(d.max()) + width):
        out, inside = far, mean
        for _ in range(30):
            mid = (out + inside) / 2
            out, inside = (out, mid) if kept(mid) else (mid, inside)
        ends.append(inside)
    return (ends[0], ends[1])
