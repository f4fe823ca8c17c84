"""Metrics corrected for the judge's errors, validated by simulation with known truth.

The demo's simulator knows which attributes each message states; a synthetic judge flips those
truths at known rates; people (the truth) decide the audit's draws in order. Over seeds, the 95%
interval must hold the true value, including for an assistant that almost never leaks, where
the former model-based correction held it about 10% of the time.
"""

from __future__ import annotations

import numpy as np
import pytest

from cimem.analysis.audit.cells import AuditCells
from cimem.analysis.audit.correction import corrected_metrics, populations
from cimem.analysis.audit.design import draw_sequence, people_on_cells, unit_values
from cimem.analysis.audit.estimate import estimate
from cimem.analysis.audit.plan import review_order
from cimem.analysis.audit.sample import suggest_audit
from cimem.analysis.audit.simulation import (
    drawn_truth,
    noisy_judge,
    reviewed,
    simulate,
    simulator_truths,
    sparse_truth,
)
from cimem.analysis.metrics import (
    Prepared,
    completeness_per_profile,
    violation_per_profile,
)
from cimem.demo.simulate import build_demo_database
from cimem.store import Store

INTERVAL_DRAWS = 4000
NOBODY = AuditCells.empty()


@pytest.fixture(scope="module")
def truths(tmp_path_factory) -> dict[str, Prepared]:
    """Each simulated assistant's run under the simulator's ground truth."""
    db = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    build_demo_database(db)
    with Store.open(db, read_only=True) as store:
        return simulator_truths(store)


def test_units_weigh_as_the_metrics_do(truths):
    """Sum of weight x the judge's verdict is the judge's own Violation@n and Completeness: the
    design's strata add up to exactly the number it corrects."""
    for prep in truths.values():
        judged = noisy_judge(prep, 0.2, 0.03, np.random.default_rng(0))
        viol, comp = populations(judged)
        assert viol.weight.sum() == pytest.approx(1) and comp.weight.sum() == pytest.approx(1)
        assert viol.weight @ viol.judge_yes == pytest.approx(
            np.nanmean(violation_per_profile(judged))
        )
        assert comp.weight @ comp.judge_yes == pytest.approx(
            np.nanmean(completeness_per_profile(judged))
        )
        assert (viol.size()[~viol.judge_yes] == 0).all()  # a unit the judge never saw: no reading
        assert viol.cell_judge.all()


def test_draws_are_a_stable_sequence_proportional_to_weight(truths):
    pop = populations(truths["erratic"])[1]
    short, long = draw_sequence(pop, True, 3, 100), draw_sequence(pop, True, 3, 20_000)
    assert (long[:100] == short).all()
    units = pop.stratum(True)
    w = pop.weight[units]
    levels, level_of = np.unique(w, return_inverse=True)  # cells of equal weight, one group
    drawn = np.bincount(level_of[np.searchsorted(units, long)], minlength=len(levels)) / 20_000
    share = np.bincount(level_of, weights=w, minlength=len(levels)) / w.sum()
    assert len(levels) > 5 and np.abs(drawn - share).max() < 0.02
    assert not (draw_sequence(pop, True, 4, 100) == short).all()


def _coverage(
    truth_of, miss: float, fp: float, budget: int, seeds: int, **bent: float
) -> dict[str, float]:
    hits = {"violation": 0, "completeness": 0}
    for seed in range(seeds):
        trial = simulate(truth_of(seed), miss, fp, budget, seed, INTERVAL_DRAWS, **bent)
        for name, truth in (
            ("violation", trial.true_violation),
            ("completeness", trial.true_completeness),
        ):
            value = getattr(trial.result, name)
            assert value.not_estimated is None, value.not_estimated
            hits[name] += value.ci95[0] <= truth <= value.ci95[1]
    return {k: v / seeds for k, v in hits.items()}


@pytest.mark.parametrize(
    "assistant, miss, fp",
    [
        ("cautious", 0.15, 0.03),  # true Violation 3.5%: false positives swamp the few leaks
        ("erratic", 0.30, 0.05),  # leaks scattered one cell at a time: most hidden by misses
        ("over-sharer", 0.05, 0.005),
    ],
)
def test_the_interval_holds_the_truth(truths, assistant, miss, fp):
    coverage = _coverage(lambda seed: truths[assistant], miss, fp, 400, 60)
    print(f"\n{assistant} (miss {miss:.0%}, false positives {fp:.1%}): coverage {coverage}")
    assert coverage["violation"] >= 0.9 and coverage["completeness"] >= 0.9


def test_a_sparse_truth_leaks_in_one_cell_as_often_as_asked(truths):
    """The sparse truth: about the asked share of withheld attributes leak, most in one cell."""
    prep = sparse_truth(truths["cautious"], 0.26, np.random.default_rng(1))
    assert np.nanmean(violation_per_profile(prep)) == pytest.approx(0.26, abs=0.04)
    viol = populations(prep)[0]
    leaking = viol.size()[viol.judge_yes]  # the truth as its own judge: cells that reveal
    assert (leaking == 1).mean() > 0.7


def test_a_judge_that_misses_withheld_facts_twice_as_often(truths):
    """Leaks in one cell each, a judge missing 20% of needed facts and 40% of withheld ones:
    the interval allows for it (and would not, were the two rates assumed equal)."""
    base = truths["cautious"]

    def truth_of(seed: int) -> Prepared:
        return sparse_truth(base, 0.26, np.random.default_rng([seed, 2]))

    bent = _coverage(truth_of, 0.2, 0.02, 800, 60, withheld_ratio=2.0)
    assert bent["violation"] >= 0.9 and bent["completeness"] >= 0.9
    assumed_equal = _coverage(truth_of, 0.2, 0.02, 800, 60, withheld_ratio=2.0, allowed_ratio=1.0)
    assert assumed_equal["violation"] < 0.7


def test_an_assistant_that_almost_never_leaks(truths):
    """True Violation about 1%, a judge adding 5% false reveals (its own number near 95%)."""
    base = truths["cautious"]
    coverage = _coverage(
        lambda seed: drawn_truth(base, 0.01, np.random.default_rng([seed, 2])), 0.1, 0.05, 400, 60
    )
    assert coverage["violation"] >= 0.9
    trial = simulate(drawn_truth(base, 0.01, np.random.default_rng(5)), 0.1, 0.05, 800, 5, 4000)
    v = trial.result.violation
    assert trial.raw_violation > 0.8  # the judge alone is useless here
    assert v.ci95[1] - v.ci95[0] < 0.1 and abs(v.mean - trial.true_violation) < 0.03


def test_nothing_decided_corrects_nothing_and_says_what_is_missing(truths):
    judged = noisy_judge(truths["erratic"], 0.15, 0.03, np.random.default_rng(1))
    result = corrected_metrics(judged, NOBODY, raw_violation=0.3, raw_completeness=0.6)
    for v in (result.violation, result.completeness):
        assert v.mean != v.mean and v.audited_pairs == 0
        assert v.not_estimated and "judge yes has been decided" in v.not_estimated
        assert v.as_dict()["mean"] is None and v.raw in (0.3, 0.6)


def test_violation_waits_for_the_miss_rate(truths):
    """Confirmed leaks alone give no upper end: without the needed cells' audit (the judge's miss
    rate), Violation@n is not corrected, and says why."""
    truth = truths["erratic"]
    judged = noisy_judge(truth, 0.15, 0.03, np.random.default_rng(2))
    audit = reviewed(truth, judged, 300, 0)
    viol_pop = populations(judged)[0]
    private = np.isin(audit.pair, viol_pop.cell_pair)
    only = AuditCells(audit.pair[private], audit.trial[private], audit.revealed[private])
    result = corrected_metrics(judged, only, raw_violation=0.3, raw_completeness=0.6)
    assert result.violation.not_estimated and "miss rate" in result.violation.not_estimated
    full = corrected_metrics(judged, audit, raw_violation=0.3, raw_completeness=0.6)
    assert full.violation.not_estimated is None and full.violation.miss_rate is not None


def test_only_the_decided_prefix_counts(truths):
    """A later draw decided out of order does not count until the draws before it are: leaks
    decide sooner than non-leaks, so counting whatever is decided would favour leaks."""
    pop = populations(noisy_judge(truths["cautious"], 0.1, 0.03, np.random.default_rng(3)))[1]
    seq = draw_sequence(pop, False, 0)
    first, later = int(seq[0]), int(seq[5])
    assert first != later
    cells = pop.cells_of(later)
    audit = AuditCells(pop.cell_pair[cells], pop.cell_trial[cells], np.ones(1, bool))
    s = estimate(pop, people_on_cells(pop, audit), 0).strata[1]
    assert s.draws == 0 and first in s.next_units


def test_a_census_is_exact(truths):
    truth = truths["over-sharer"]
    judged = noisy_judge(truth, 0.1, 0.03, np.random.default_rng(4))
    pop = populations(judged)[1]
    bits = (truth.cube.pair_mask[pop.cell_pair] >> pop.cell_trial.astype(np.uint64)) & np.uint64(1)
    audit = AuditCells(pop.cell_pair, pop.cell_trial, bits.astype(bool))
    est = estimate(pop, people_on_cells(pop, audit), 0)
    assert est.ci95[0] == est.ci95[1] == pytest.approx(np.nanmean(completeness_per_profile(truth)))


def test_the_sample_follows_the_review_order(truths):
    judged = noisy_judge(truths["erratic"], 0.15, 0.03, np.random.default_rng(5))
    sampled = suggest_audit(judged, 120, seed=0)
    assert len(sampled.cells) >= 120 and (np.diff(sampled.draw) >= 0).all()
    first = {sampled.stratum[i] for i in np.flatnonzero(sampled.draw <= 3)}
    assert first == {"private, judge yes", "share, judge yes", "share, judge no"}
    pops = populations(judged)
    people = tuple(people_on_cells(p, NOBODY) for p in pops)
    order = list(review_order(pops, people, 0))
    assert len({(p.metric, p.unit) for p in order}) == len(order)  # each unit listed once
    values = unit_values(pops[0], people[0])
    assert np.isnan(values[pops[0].judge_yes]).all() and (values[~pops[0].judge_yes] == 0).all()
