"""Metrics corrected for the judge's errors, validated by simulation on the demo's ground truth.

The demo generator knows which attributes each simulated message states. A synthetic judge flips
those truths at known rates; people are simulated by the truth itself on a stratified audit of 200
cells. Over many seeds, the corrected 95% interval must cover the true Violation@n, while the
judge's own (uncorrected) number is far off.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from cimem.analysis.audit.cells import AuditCells
from cimem.analysis.audit.correction import corrected_metrics
from cimem.analysis.audit.error_rates import MIN_AUDITED
from cimem.analysis.audit.sample import suggest_audit
from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.analysis.metrics import (
    MetricOptions,
    Prepared,
    completeness_per_profile,
    prepare,
    violation_per_profile,
)
from cimem.demo.simulate import build_demo_database
from cimem.store import Store

FALSE_NEGATIVE, FALSE_POSITIVE = 0.15, 0.03
AUDIT_SIZE = 200


@pytest.fixture(scope="module")
def truth_cubes(tmp_path_factory) -> dict[str, LeakCube]:
    """Each simulated assistant's run under the simulator's ground truth."""
    db = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    build_demo_database(db)
    cubes = {}
    with Store.open(db, read_only=True) as store:
        for run in store.list_runs():
            truth = next(j for j in store.judges(run.run_id) if j.kind == "simulator")
            cubes[run.name] = cube_from_store(store, run.run_id, truth.judge_id)
    return cubes


def noisy_judge(prep: Prepared, rng: np.random.Generator) -> Prepared:
    """The same run judged by a judge that misses FALSE_NEGATIVE of the true reveals and adds
    FALSE_POSITIVE of the others, independently per (message, attribute)."""
    cube = prep.cube
    trials = np.arange(cube.n_trials, dtype=np.uint64)
    truth = ((cube.pair_mask[:, None] >> trials) & np.uint64(1)).astype(bool)
    flip = rng.random(truth.shape) < np.where(truth, FALSE_NEGATIVE, FALSE_POSITIVE)
    judged = (truth ^ flip).astype(np.uint64) << trials
    return replace(prep, cube=replace(cube, pair_mask=np.bitwise_or.reduce(judged, axis=1)))


def audited_by_truth(truth: Prepared, judged: Prepared, seed: int) -> AuditCells:
    cells = suggest_audit(judged, AUDIT_SIZE, seed=seed)
    revealed = (truth.cube.pair_mask[cells.pair] >> cells.trial.astype(np.uint64)) & np.uint64(1)
    return AuditCells(cells.pair, cells.trial, revealed.astype(bool))


def mean(values: np.ndarray) -> float:
    return float(np.nanmean(values))


def test_suggested_audit_is_stratified(truth_cubes):
    prep = prepare(truth_cubes["demo: over-sharer (simulated)"], MetricOptions())
    judged = noisy_judge(prep, np.random.default_rng(0))
    cells = suggest_audit(judged, AUDIT_SIZE, seed=0)
    assert len(cells) == AUDIT_SIZE
    assert len({(int(p), int(t)) for p, t in zip(cells.pair, cells.trial)}) == AUDIT_SIZE
    private = np.isin(cells.pair, judged.priv_rows)
    said_yes = ((judged.cube.pair_mask[cells.pair] >> cells.trial.astype(np.uint64)) & 1) == 1
    for stratum in (
        private & said_yes,
        private & ~said_yes,
        ~private & said_yes,
        ~private & ~said_yes,
    ):
        assert stratum.sum() > 0


def violation_coverage(prep: Prepared, seeds: int) -> tuple[float, float, float, float]:
    """Share of seeds whose corrected interval covers the true Violation@n; the truth; the mean
    error of the judge's own number and of the corrected one."""
    true_v = mean(violation_per_profile(prep))
    covered, raw_error, corrected_error = 0, [], []
    for seed in range(seeds):
        judged = noisy_judge(prep, np.random.default_rng(seed))
        raw_v = mean(violation_per_profile(judged))
        result = corrected_metrics(
            judged,
            audited_by_truth(prep, judged, seed),
            raw_violation=raw_v,
            raw_completeness=float("nan"),
            resamples=100,
            seed=seed,
            completeness=False,
        )
        lo, hi = result.violation.ci95
        covered += lo <= true_v <= hi
        raw_error.append(raw_v - true_v)
        corrected_error.append(result.violation.mean - true_v)
    return covered / seeds, true_v, float(np.mean(raw_error)), float(np.mean(corrected_error))


@pytest.mark.parametrize(
    "assistant, seeds, least",
    [
        ("over-sharer", 200, 0.90),  # leaks repeat across the samples of a task
        ("erratic", 100, 0.85),  # leaks scattered at random over tasks and samples
    ],
)
def test_corrected_violation_covers_the_truth_where_the_judge_is_biased(
    truth_cubes, assistant, seeds, least
):
    prep = prepare(truth_cubes[f"demo: {assistant} (simulated)"], MetricOptions())
    coverage, true_v, raw_error, corrected_error = violation_coverage(prep, seeds)
    print(
        f"\n{assistant}: corrected Violation@5's 95% interval covers the truth ({true_v:.3f}) in"
        f" {coverage:.0%} of {seeds} seeds; mean error raw {raw_error:+.3f}, corrected"
        f" {corrected_error:+.3f}"
    )
    assert coverage >= least
    assert raw_error > 0.2  # the judge's false positives pile up under the maximum
    assert abs(corrected_error) < 0.07


def test_corrected_completeness_removes_the_judges_misses(truth_cubes):
    prep = prepare(truth_cubes["demo: erratic (simulated)"], MetricOptions())
    true_c = mean(completeness_per_profile(prep))
    seeds, covered, raw_error, corrected_error = 30, 0, [], []
    for seed in range(seeds):
        judged = noisy_judge(prep, np.random.default_rng(seed))
        raw_c = mean(completeness_per_profile(judged))
        result = corrected_metrics(
            judged,
            audited_by_truth(prep, judged, seed),
            raw_violation=float("nan"),
            raw_completeness=raw_c,
            resamples=100,
            seed=seed,
        )
        lo, hi = result.completeness.ci95
        covered += lo <= true_c <= hi
        raw_error.append(raw_c - true_c)
        corrected_error.append(result.completeness.mean - true_c)
    print(
        f"\ncorrected Completeness: covers the truth ({true_c:.3f}) in {covered / seeds:.0%} of"
        f" {seeds} seeds; mean error raw {np.mean(raw_error):+.3f}, corrected"
        f" {np.mean(corrected_error):+.3f}"
    )
    assert covered / seeds >= 0.85
    assert np.mean(raw_error) < -0.08  # missed statements lower the judge's completeness
    assert abs(np.mean(corrected_error)) < abs(np.mean(raw_error)) / 2


def test_error_rates_are_estimated_near_the_simulated_ones(truth_cubes):
    prep = prepare(truth_cubes["demo: over-sharer (simulated)"], MetricOptions())
    judged = noisy_judge(prep, np.random.default_rng(7))
    result = corrected_metrics(
        judged,
        audited_by_truth(prep, judged, 7),
        raw_violation=0.0,
        raw_completeness=0.0,
        resamples=20,
    )
    private, share = result.error_rates
    assert private.stratum == "private" and share.stratum == "share"
    assert abs(private.sensitivity - (1 - FALSE_NEGATIVE)) < 0.08
    assert abs(private.false_positive_rate - FALSE_POSITIVE) < 0.01
    assert private.audited + share.audited == AUDIT_SIZE
    assert result.violation.method == result.completeness.method


def test_a_thin_audit_corrects_nothing_and_says_what_is_missing(truth_cubes):
    """Without audited cells in a group of label and judge verdict, its error rates would come
    from the prior alone: nothing resting on that group is estimated, and the reason names it."""
    truth = prepare(truth_cubes["demo: erratic (simulated)"], MetricOptions())
    judged = noisy_judge(truth, np.random.default_rng(1))
    empty = AuditCells(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, bool))
    result = corrected_metrics(judged, empty, raw_violation=0.3, raw_completeness=0.6, resamples=20)
    for v in (result.violation, result.completeness):
        assert v.mean != v.mean and v.audited_pairs == 0 and v.resamples == 0
        assert v.not_estimated is not None and "share, judge yes: 0" in v.not_estimated
        assert v.as_dict()["mean"] is None and v.as_dict()["not_estimated"] == v.not_estimated
    assert "private, judge no: 0" in (result.violation.not_estimated or "")
    assert "private" not in (result.completeness.not_estimated or "")  # it rests on needed only
    assert result.violation.raw == 0.3 and result.completeness.raw == 0.6

    full = audited_by_truth(truth, judged, 1)
    private = np.isin(full.pair, judged.priv_rows)
    said = ((judged.cube.pair_mask[full.pair] >> full.trial.astype(np.uint64)) & 1) == 1
    # keep MIN_AUDITED - 1 cells of "private, judge yes": Completeness only
    group = np.flatnonzero(private & said)
    keep = np.ones(len(full), bool)
    keep[group[MIN_AUDITED - 1 :]] = False
    thin = AuditCells(full.pair[keep], full.trial[keep], full.revealed[keep])
    result = corrected_metrics(judged, thin, raw_violation=0.3, raw_completeness=0.6, resamples=20)
    assert result.violation.not_estimated is not None
    assert f"private, judge yes: {MIN_AUDITED - 1}" in result.violation.not_estimated
    assert result.completeness.not_estimated is None
    lo, hi = result.completeness.ci95
    assert lo <= result.completeness.mean <= hi
    keep[group[MIN_AUDITED - 1]] = True  # exactly MIN_AUDITED: Violation too
    enough = AuditCells(full.pair[keep], full.trial[keep], full.revealed[keep])
    result = corrected_metrics(
        judged, enough, raw_violation=0.3, raw_completeness=0.6, resamples=20
    )
    assert result.violation.not_estimated is None and result.violation.mean == result.violation.mean
