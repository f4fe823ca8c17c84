"""Intervals benchmark: do the 95% intervals and the paired comparison keep their promise at the
benchmark's own size? Simulated runs with a known truth (:mod:`cimem.analysis.interval_sim`).

Prints, per regime (rare leakers with many zeros, dense leakers, Completeness-like shares;
n = 1 and 5) and number of profiles (2, 3, 5, 10, 60):
- coverage and mean width of the interval cimem shows (Korn-Graubard), beside the percentile
  bootstrap it replaced and a plain t interval;
- coverage of a pooled share's interval (the Leaks page's recipients and domains);
- coverage of the interval over these people (only the samples vary) for a metric averaging
  over samples (Completeness, the leak rate), at 2 and 5 trials;
- the paired comparison's false-positive rate (two equal models on the same people) and its power
  at a planned number of profiles against the planned 80% (the planner's promise).
Goals: coverage >= 0.94 at 10 profiles in every regime, false positives <= 5% (within simulation
error), achieved power within 5 points of the plan. The stress regime (60% of profiles never
leak) is printed to show where the interval falls short.

    python bench/intervals.py [--draws 2000]      # about 3 minutes on two cores
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cimem.analysis.interval_sim import (  # noqa: E402
    REGIMES,
    STRESS,
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
from cimem.analysis.intervals import t_quantile  # noqa: E402
from cimem.analysis.power import POWER, profiles_needed, resampled_profiles_needed  # noqa: E402

PROFILES = (2, 3, 5, 10, 60)


def percentile_bootstrap(v: np.ndarray) -> tuple[float, float]:
    """The method cimem used before (2000 resamples of profiles, seed 0)."""
    if len(v) < 2:
        return (float(v[0]), float(v[0]))
    rng = np.random.default_rng(0)
    means = v[rng.integers(0, len(v), size=(2000, len(v)))].mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return (float(lo), float(hi))


def t_interval(v: np.ndarray) -> tuple[float, float]:
    half = t_quantile(len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v))
    return (float(v.mean()) - half, float(v.mean()) + half)


def coverage_table(draws: int) -> list[tuple[str, int, float]]:
    """Print coverage per regime and size; return (regime, profiles, cimem's coverage)."""
    print("coverage of the 95% interval of the mean over profiles (width in points)")
    print(f"{'regime':44} {'m':>3} {'truth':>6}  {'cimem':>13}  {'bootstrap':>13}  {'t':>13}")
    out = []
    for i, regime in enumerate((*REGIMES, STRESS)):
        mu = population_mean(regime)
        for m in PROFILES:
            seed = 1000 * i + m
            ours = coverage(regime, m, draws, seed, truth=mu)
            old = coverage(regime, m, draws, seed, percentile_bootstrap, truth=mu)
            t = coverage(regime, m, draws, seed, t_interval, truth=mu)
            cells = "  ".join(f"{c:.3f} ({100 * w:5.1f})" for c, w in (ours, old, t))
            print(f"{regime.name:44} {m:3} {100 * mu:6.2f}  {cells}", flush=True)
            if regime is not STRESS:
                out.append((regime.name, m, ours[0]))
    return out


def these_people_table(draws: int) -> float:
    """Print the interval over these people (only samples vary) for a metric averaging over
    samples; return its least coverage at the benchmark's size (10 profiles, 5 trials)."""
    print("\ncoverage over these people (samples resampled within each profile; width in points)")
    print(f"{'regime':44} {'m':>3} {'trials':>6}  coverage")
    least = 1.0
    for i, regime in enumerate((REGIMES[0], REGIMES[2], REGIMES[4])):
        for m in (2, 10, 60):
            for trials in (2, 5):
                held, width = these_people_coverage(regime, m, trials, draws, 300 + 10 * i + m)
                if (m, trials) == (10, 5):
                    least = min(least, held)
                print(f"{regime.name:44} {m:3} {trials:6}  {held:.3f} ({100 * width:5.2f})")
    return least


def ratio_table(draws: int) -> float:
    """Print the pooled share's interval (the Leaks page's groups); return its least coverage at
    10 profiles."""
    print(
        "\ncoverage of a pooled share (a Leaks page group: 2-20 pairs per profile; width in points)"
    )
    least = 1.0
    for i, regime in enumerate(REGIMES):
        for m in (10, 60):
            held, width = ratio_coverage(regime, m, draws, 700 + 10 * i + m)
            least = min(least, held) if m == 10 else least
            print(f"{regime.name:44} {m:3}  {held:.3f} ({100 * width:5.2f})")
    return least


def comparison_table(draws: int) -> tuple[float, float]:
    """Print false positives and planned against achieved power; return the worst of each."""
    print("\npaired comparison (exact sign-flip up to 16 profiles, paired t above)")
    print(
        f"{'regime':44} {'m':>3}  {'false +':>7}  {'d, pts':>6} {'sd, pts':>7} {'planned m':>9}  achieved power"
    )
    worst_fp, worst_gap = 0.0, 0.0
    for i, regime in enumerate(REGIMES):
        for m in (5, 10, 60):
            fp = rejections(regime, m, draws, 5000 + 100 * i + m)
            worst_fp = max(worst_fp, fp)
            print(f"{regime.name:44} {m:3}  {fp:7.3f}", flush=True)
        d, sd = difference_spread(regime, 1.5)
        normal = profiles_needed(d, sd)
        planned = resampled_profiles_needed(pilot_differences(regime), d)
        achieved = rejections(regime, planned, draws, 9000 + i, 1.5) if planned < 400 else math.nan
        if achieved == achieved:
            worst_gap = max(worst_gap, abs(achieved - POWER))
        print(
            f"{'  B leaks 1.5x as often as A':44} {'':3}  {'':7}  {100 * d:6.2f} {100 * sd:7.2f}"
            f" {planned:9}  {achieved:.3f}  (normal formula: {normal} profiles)",
            flush=True,
        )
    return worst_fp, worst_gap


def pilot_differences(regime: Regime, profiles: int = 20_000) -> np.ndarray:
    """Per-profile differences (B leaking 1.5x as often as A) of a large pilot: the planner's
    input, so the check is of the planning method, not of a small pilot's luck."""
    rng = np.random.default_rng(8)
    p = propensities(rng, regime, profiles)
    return shares(rng, p, regime.n, 1.5) - shares(rng, p, regime.n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=2000, help="simulated runs per cell")
    args = ap.parse_args()
    rows = coverage_table(args.draws)
    these = these_people_table(args.draws)
    pooled = ratio_table(args.draws)
    worst_fp, worst_gap = comparison_table(args.draws)
    at10 = [c for _, m, c in rows if m == 10]
    se = math.sqrt(0.95 * 0.05 / args.draws)
    print(
        f"\ncoverage at 10 profiles: min {min(at10):.3f} over {len(at10)} regimes (goal >= 0.94;"
        f" simulation error ±{2 * se:.3f})"
    )
    print(f"pooled shares at 10 profiles: min {pooled:.3f} (goal >= 0.94)")
    print(f"over these people at 10 profiles x 5 trials: min {these:.3f} (goal >= 0.94)")
    fp_error = 2 * math.sqrt(0.05 * 0.95 / args.draws)
    print(
        f"false positives of equal models: max {worst_fp:.3f} (goal <= 0.05; simulation error"
        f" ±{fp_error:.3f})"
    )
    print(f"planned 80% power, achieved: max gap {worst_gap:.3f} (goal <= 0.05)")


if __name__ == "__main__":
    main()
