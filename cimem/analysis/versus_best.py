"""Which runs of a leaderboard are distinguishable from the best one shown: the paired comparison
of :mod:`cimem.analysis.intervals` against the best run, Holm's correction over the runs
compared (:mod:`cimem.analysis.power`), Violation only among runs of one n."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from cimem.analysis.intervals import difference_p
from cimem.analysis.metrics import NO_LABELS_HELP, RunMetrics, common_values
from cimem.analysis.power import ALPHA, holm


def versus_best(metrics: Mapping[int, RunMetrics]) -> dict[int, str]:
    """Per run, whether it is distinguishable from the best run shown, in Violation (lowest is
    best) and Completeness (highest): the paired comparison over their common profiles
    (:func:`cimem.analysis.intervals.paired_difference`), Holm's correction over the runs
    compared, so a table of 20 runs does not call noise a difference. Violation@n grows with n,
    so runs are compared only with the best of their own n ("V best at n=5"); Completeness, an
    average over samples, across all runs. "V tied": not distinguishable from the best; "V
    higher" / "C lower": distinguishable; "V apart": fewer than two profiles in common.
    """
    runs = {
        r: m
        for r, m in metrics.items()
        if m.discarded.note != NO_LABELS_HELP and m.violation.n_profiles > 1
    }
    words: dict[int, list[str]] = {r: [] for r in runs}
    several_n = len({m.k for m in runs.values()}) > 1
    for metric, letter, lower_is_better in (("violation", "V", True), ("completeness", "C", False)):
        groups: dict[int, list[int]] = {}
        for r in sorted(runs):
            key = runs[r].k if metric == "violation" else 0
            groups.setdefault(key, []).append(r)
        for k, members in sorted(groups.items()):
            at = f" at n={k}" if metric == "violation" and several_n else ""
            _mark(runs, members, metric, letter + "{}" + at, lower_is_better, words)
    return {r: ", ".join(w) for r, w in words.items() if w}


def _mark(
    runs: Mapping[int, RunMetrics],
    members: Sequence[int],
    metric: str,
    pattern: str,
    lower_is_better: bool,
    words: dict[int, list[str]],
) -> None:
    """Mark ``members`` against the best of them (``pattern``: "V{} at n=5", the word inside)."""
    means = {r: getattr(runs[r], metric).mean for r in members}
    means = {r: x for r, x in means.items() if x == x}
    if not means:
        return
    best = (min if lower_is_better else max)(sorted(means), key=lambda r: means[r])
    others = [r for r in sorted(means) if r != best]
    p_values = [_p_against(runs[best], runs[r], metric) for r in others]
    worse = "higher" if lower_is_better else "lower"
    words[best].append(pattern.format(" best").rstrip())
    for r, p, adjusted in zip(others, p_values, holm(p_values)):
        said = "apart" if p != p else worse if adjusted < ALPHA else "tied"
        words[r].append(pattern.format(" " + said).rstrip())


def _p_against(best: RunMetrics, other: RunMetrics, metric: str) -> float:
    """The paired p-value of ``other`` against ``best`` (nan with fewer than two common
    profiles): :func:`compare`'s, without the interval it also works out (by bisection, about
    sixty passes over every sign pattern), which the marks never show."""
    common, va, vb = common_values(getattr(best, metric), getattr(other, metric))
    ok = ~(np.isnan(va) | np.isnan(vb))
    return difference_p(vb[ok] - va[ok]) if len(common) > 1 and ok.sum() > 1 else float("nan")
