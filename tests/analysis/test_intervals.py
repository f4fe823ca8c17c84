"""The intervals keep their promise at the benchmark's size: seeded simulations with a known truth
(the thresholds of bench/intervals.py, at fewer draws), and the edges every run can show."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cimem.analysis.interval_sim import (
    REGIMES,
    Regime,
    coverage,
    difference_spread,
    population_mean,
    propensities,
    ratio_coverage,
    rejections,
    shares,
    these_people_coverage,
)
from cimem.analysis.intervals import IntervalKind, paired_difference, share_interval
from cimem.analysis.power import POWER, holm, profiles_needed, resampled_profiles_needed

DRAWS = 1500
ERROR = 2 * math.sqrt(0.95 * 0.05 / DRAWS)  # two simulation standard errors of a coverage


@pytest.fixture(scope="module")
def truths() -> dict[str, float]:
    return {r.name: population_mean(r) for r in REGIMES}


@pytest.mark.parametrize("regime", REGIMES, ids=lambda r: r.name)
def test_the_interval_covers_at_ten_profiles(regime: Regime, truths):
    held, width = coverage(regime, 10, DRAWS, seed=2026, truth=truths[regime.name])
    assert held >= 0.94 - ERROR, f"{regime.name}: coverage {held:.3f}"
    assert width < 0.25  # not a bound so wide that it says nothing


@pytest.mark.parametrize("regime", [REGIMES[0], REGIMES[2], REGIMES[4]], ids=lambda r: r.name)
def test_the_interval_over_these_people_covers_at_the_benchmarks_size(regime: Regime):
    held, _ = these_people_coverage(regime, 10, 5, DRAWS, seed=2026)
    assert held >= 0.94 - ERROR, f"{regime.name}: coverage {held:.3f}"


@pytest.mark.parametrize("regime", [REGIMES[0], REGIMES[2]], ids=lambda r: r.name)
def test_a_pooled_shares_interval_covers_at_ten_profiles(regime: Regime):
    held, _ = ratio_coverage(regime, 10, DRAWS, seed=2026)
    assert held >= 0.94 - ERROR, f"{regime.name}: coverage {held:.3f}"


def test_the_bootstrap_it_replaced_fails_the_same_check(truths):
    """The check can fail: the percentile bootstrap of the mean undercovers a rare leaker."""
    regime = REGIMES[0]

    def percentile(v: np.ndarray) -> tuple[float, float]:
        rng = np.random.default_rng(0)
        means = v[rng.integers(0, len(v), size=(2000, len(v)))].mean(axis=1)
        lo, hi = np.percentile(means, [2.5, 97.5])
        return float(lo), float(hi)

    held, _ = coverage(regime, 10, DRAWS, seed=2026, method=percentile, truth=truths[regime.name])
    assert held < 0.92


@pytest.mark.parametrize("regime", [REGIMES[0], REGIMES[2], REGIMES[4]], ids=lambda r: r.name)
def test_equal_models_are_rarely_called_different(regime: Regime):
    rate = rejections(regime, 10, 4000, seed=2026)
    assert rate <= 0.05 + 2 * math.sqrt(0.05 * 0.95 / 4000), f"false positives {rate:.3f}"


@pytest.mark.parametrize("regime", [REGIMES[0], REGIMES[2]], ids=lambda r: r.name)
def test_a_planned_number_of_profiles_achieves_the_planned_power(regime: Regime):
    rng = np.random.default_rng(8)
    p = propensities(rng, regime, 20_000)
    pilot = shares(rng, p, regime.n, 1.5) - shares(rng, p, regime.n)
    d, _ = difference_spread(regime, 1.5)
    planned = resampled_profiles_needed(pilot, d)
    achieved = rejections(regime, planned, 1500, seed=77, scale_b=1.5)
    assert abs(achieved - POWER) <= 0.05, f"planned {planned} profiles, power {achieved:.3f}"


def test_the_normal_formula_overplans_a_rare_leaker():
    """Why the planner resamples: the normal formula's profiles give a rare leaker 0.88."""
    regime = REGIMES[0]
    d, sd = difference_spread(regime, 1.5)
    achieved = rejections(regime, profiles_needed(d, sd), 1500, seed=77, scale_b=1.5)
    assert achieved > POWER + 0.05


def test_equal_values_give_a_finite_interval():
    i = share_interval(np.full(3, 0.025))
    assert i.kind == IntervalKind.TWO_SIDED and 0 <= i.lo <= 0.025 <= i.hi < 1


def test_nothing_leaked_gives_a_one_sided_upper_bound():
    i = share_interval(np.zeros(10))
    assert i.kind == IntervalKind.UPPER_BOUND and i.lo == 0.0
    assert (1 - i.hi) ** 10 == pytest.approx(0.05)  # ten zeros happen 5% of the time at the bound


def test_everything_shared_gives_a_lower_bound_and_few_profiles_none():
    i = share_interval(np.ones(5))
    assert i.kind == IntervalKind.LOWER_BOUND and i.hi == 1.0 and i.lo == pytest.approx(0.05**0.2)
    assert share_interval(np.array([0.3, np.nan])).kind == IntervalKind.NONE
    assert math.isnan(share_interval(np.array([])).lo)


def test_the_interval_leans_toward_the_long_tail_and_stays_in_bounds():
    v = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.3])
    lo, hi = share_interval(v).bounds
    assert 0.0 <= lo < v.mean() < hi <= 1.0
    assert hi - v.mean() > v.mean() - lo  # skewed up, where a rare leaker's mean can hide


def test_paired_difference_on_edges():
    same = paired_difference(np.array([0.1, 0.2]), np.array([0.1, 0.2]))
    assert same.mean == 0 and same.p_value == 1.0 and not same.distinguishable
    one = paired_difference(np.array([0.1]), np.array([0.3]))
    assert one.profiles == 1 and math.isnan(one.p_value)
    nan = paired_difference(np.array([0.1, np.nan, 0.2]), np.array([0.2, 0.5, np.nan]))
    assert nan.profiles == 1


def test_holm_gives_statsmodels_values_without_its_garbage_collection(monkeypatch):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(5)
    for size in (1, 2, 3, 7, 20, 100):
        for _ in range(20):
            raw = rng.choice([0.001, 0.01, 0.02, 0.04, 0.3, 0.9], size) * rng.random(size) ** 0.1
            expected = multipletests(raw, alpha=0.05, method="holm")[1]
            assert np.allclose(holm(list(raw)), expected, rtol=0, atol=1e-12)
    collected = []
    monkeypatch.setattr("gc.collect", lambda *a: collected.append(1) or 0)
    holm([0.01, 0.02])
    assert not collected  # statsmodels' holm collects on every call


def test_holm_keeps_order_and_never_lowers_a_p_value():
    raw = [0.001, 0.02, 0.03, 0.5]
    adjusted = holm(raw)
    assert all(a >= r for a, r in zip(adjusted, raw))
    assert adjusted == sorted(adjusted)
