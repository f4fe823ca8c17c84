"""The correction checked by simulation: runs with a known truth, judges that err at known rates,
and reviewers who follow the audit's order; shared by ``bench/correction.py`` and the tests.

A run's structure (profiles, tasks, labels, samples) comes from a real prepared run; its truth is
either that run's own verdicts (the demo's simulator knows what each message states) or drawn:

- *dense* (:func:`drawn_truth`): a withheld attribute leaks with chance ``leak_share`` and then
  shows in each of its cells with chance ``LEAK_CELL``, so a leak shows in many cells;
- *sparse* (:func:`sparse_truth`): each cell of a withheld attribute leaks on its own, with the
  chance that makes ``leak_share`` of attributes leak somewhere, so most leaks show in one cell
  (as in the benchmark's fabricated runs): a judge that misses that cell hides the leak.

Either way a needed cell is stated with chance ``NEEDED_STATED``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import islice

import numpy as np

from cimem.analysis.audit.cells import AuditCells
from cimem.analysis.audit.correction import CorrectedMetrics, corrected_metrics, populations
from cimem.analysis.audit.design import Metric, people_on_cells
from cimem.analysis.audit.estimate import WITHHELD_MISS_RATIO
from cimem.analysis.audit.plan import review_order
from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import (
    MetricOptions,
    Prepared,
    attribute_groups,
    completeness_per_profile,
    prepare,
    violation_per_profile,
)
from cimem.store import Store

LEAK_CELL = 0.3
NEEDED_STATED = 0.8


def _with_mask(prep: Prepared, mask: np.ndarray) -> Prepared:
    return replace(prep, cube=replace(prep.cube, pair_mask=mask))


def _bits(prep: Prepared) -> np.ndarray:
    """[pairs, trials] booleans of the prepared run's verdicts."""
    trials = np.arange(prep.cube.n_slots, dtype=np.uint64)
    return ((prep.cube.pair_mask[:, None] >> trials) & np.uint64(1)).astype(bool)


def _mask(bits: np.ndarray) -> np.ndarray:
    trials = np.arange(bits.shape[1], dtype=np.uint64)
    masks: np.ndarray = np.bitwise_or.reduce(bits.astype(np.uint64) << trials, axis=1)
    return masks


def simulator_truths(store: Store) -> dict[str, Prepared]:
    """Each run of the demo's database under its simulator's ground truth, by the assistant's
    name ("cautious", "erratic", "over-sharer")."""
    out = {}
    for run in store.list_runs():
        truth = next(j for j in store.judges(run.run_id) if j.kind == "simulator")
        name = run.name.split(":")[1].split("(")[0].strip()
        out[name] = prepare(cube_from_store(store, run.run_id, truth.judge_id), MetricOptions())
    return out


def drawn_truth(prep: Prepared, leak_share: float, rng: np.random.Generator) -> Prepared:
    """The run with a drawn truth: each withheld attribute leaks with chance ``leak_share``."""
    shape = _bits(prep).shape
    truth = np.zeros(shape, bool)
    groups, _, n_groups = attribute_groups(prep)
    leaks = rng.random(n_groups) < leak_share
    rows = prep.priv_rows[leaks[groups]]
    truth[rows] = rng.random((len(rows), shape[1])) < LEAK_CELL
    truth[prep.need_rows] = rng.random((len(prep.need_rows), shape[1])) < NEEDED_STATED
    return _with_mask(prep, _mask(truth))


def sparse_truth(prep: Prepared, leak_share: float, rng: np.random.Generator) -> Prepared:
    """The run with a sparse truth: each cell of a withheld attribute leaks on its own, with the
    chance ``1 - (1 - leak_share) ** (1 / cells)`` that makes the attribute leak somewhere with
    chance ``leak_share``."""
    shape = _bits(prep).shape
    truth = np.zeros(shape, bool)
    groups, _, n_groups = attribute_groups(prep)
    usable = _usable(prep, prep.priv_rows)
    cells = np.bincount(groups, weights=usable.sum(axis=1), minlength=n_groups)
    chance = 1 - (1 - leak_share) ** (1 / np.maximum(cells, 1))
    truth[prep.priv_rows] = rng.random((len(groups), shape[1])) < chance[groups][:, None]
    truth[prep.need_rows] = rng.random((len(prep.need_rows), shape[1])) < NEEDED_STATED
    return _with_mask(prep, _mask(truth))


def _usable(prep: Prepared, rows: np.ndarray) -> np.ndarray:
    """[rows, trials] booleans: the samples the metrics count."""
    trials = np.arange(prep.cube.n_slots, dtype=np.uint64)
    samples = prep.samples[prep.cube.pair_ctx[rows]]
    counted: np.ndarray = ((samples[:, None] >> trials) & np.uint64(1)).astype(bool)
    return counted


def noisy_judge(
    truth: Prepared,
    miss: float,
    false_positive: float,
    rng: np.random.Generator,
    withheld_miss: float | None = None,
) -> Prepared:
    """The run as a judge sees it that misses ``miss`` of the true reveals (``withheld_miss`` of
    those of withheld attributes, when given) and adds ``false_positive`` of the others,
    independently per cell."""
    bits = _bits(truth)
    missed = np.full(bits.shape, miss)
    if withheld_miss is not None:
        missed[truth.priv_rows] = withheld_miss
    flip = rng.random(bits.shape) < np.where(bits, missed, false_positive)
    return _with_mask(truth, _mask(bits ^ flip))


def reviewed(truth: Prepared, judged: Prepared, budget: int, seed: int) -> AuditCells:
    """People's verdicts after reading ``budget`` cells in the audit's order, people being the
    truth: a Violation unit is read until its first revealed cell."""
    pops = populations(judged)
    people = tuple(people_on_cells(p, AuditCells.empty()) for p in pops)
    by_metric = {p.metric: p for p in pops}
    bits = _bits(truth)
    pair: list[int] = []
    trial: list[int] = []
    for planned in islice(review_order(pops, people, seed), budget):
        pop = by_metric[planned.metric]
        cells = pop.cells_of(planned.unit)
        for r, t in zip(pop.cell_pair[cells].tolist(), pop.cell_trial[cells].tolist()):
            if len(pair) >= budget:
                break
            pair.append(r)
            trial.append(t)
            if planned.metric == Metric.VIOLATION and bits[r, t]:
                break
        if len(pair) >= budget:
            break
    p, t = np.array(pair, np.int64), np.array(trial, np.int64)
    return AuditCells(p, t, bits[p, t] if len(p) else np.zeros(0, bool))


@dataclass(frozen=True)
class Trial:
    """One simulated audit: the truth, the judge's raw numbers, and the correction."""

    true_violation: float
    true_completeness: float
    raw_violation: float
    raw_completeness: float
    result: CorrectedMetrics


def simulate(
    truth: Prepared,
    miss: float,
    false_positive: float,
    budget: int,
    seed: int,
    interval_draws: int,
    withheld_ratio: float = 1.0,
    allowed_ratio: float = WITHHELD_MISS_RATIO,
) -> Trial:
    """One seed: judge the truth with errors (missing ``withheld_ratio`` times as many withheld
    facts as needed ones, at most all), audit ``budget`` cells, correct (allowing the judge
    ``allowed_ratio`` times as many misses of withheld facts)."""
    rng = np.random.default_rng([seed, 1])
    judged = noisy_judge(truth, miss, false_positive, rng, min(1.0, withheld_ratio * miss))
    audit = reviewed(truth, judged, budget, seed)
    raw_v = float(np.nanmean(violation_per_profile(judged)))
    raw_c = float(np.nanmean(completeness_per_profile(judged)))
    result = corrected_metrics(
        judged,
        audit,
        raw_violation=raw_v,
        raw_completeness=raw_c,
        seed=seed,
        interval_draws=interval_draws,
        withheld_ratio=allowed_ratio,
    )
    return Trial(
        float(np.nanmean(violation_per_profile(truth))),
        float(np.nanmean(completeness_per_profile(truth))),
        raw_v,
        raw_c,
        result,
    )
