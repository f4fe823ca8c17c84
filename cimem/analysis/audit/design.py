"""The audit design behind the corrected metrics: which of a judge's decisions people check, so
that Violation@n and Completeness under people's verdicts are estimated without a model of how
the judge errs.

Each metric is a weighted sum over units that count 0 or 1:

- **Violation@n**: a unit is an eligible (profile, withheld attribute); it counts 1 when some of
  its cells (a task where the attribute is withheld, x a sample) truly reveals the attribute.
  Deciding that a unit does *not* leak would mean reading every cell (about 70 in the demo), so
  the design audits what is cheap to read: whether one of the cells the judge called revealed
  truly is (``A``; its cells are the judge's "yes" only, and a unit without one counts 0). The
  leaks the judge missed in every cell are bounded by its miss rate (:mod:`.estimate`).
- **Completeness**: a unit is one needed cell (needed attribute x sample), counting 1 when the
  message states it.

The judge's verdict splits each metric's units into two strata (judge yes: it found the unit
revealed; judge no; Violation's "no" units count 0 and need no reading). A unit's weight is its share in the metric, so the metric is
``sum_h W_h p_h``, ``W_h`` the stratum's total weight (known from the judge) and ``p_h`` the
weighted share of its units that truly count 1. Within a stratum, units are drawn with replacement
with probability proportional to their weight: every draw is then an independent Bernoulli(p_h),
whatever the judge's errors, and an exact binomial interval holds (:mod:`.estimate`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from cimem.analysis.audit.cells import AuditCells
from cimem.analysis.metrics import Prepared, attribute_groups

DRAWS = 4096  # draws listed per stratum: more than any audit reaches
UNDECIDED, PEOPLE_NO, PEOPLE_YES = -1, 0, 1


class Metric(StrEnum):
    VIOLATION = "violation"
    COMPLETENESS = "completeness"


@dataclass(frozen=True)
class Population:
    """One metric's units: their weights (summing to 1 over the units that count), the judge's
    verdict on each, and the cells people read to decide it (unit u's are
    ``cell_*[start[u]:start[u + 1]]``)."""

    metric: Metric
    weight: np.ndarray  # float [U]
    judge_yes: np.ndarray  # bool [U]
    start: np.ndarray  # int64 [U + 1]
    cell_pair: np.ndarray  # int64 [C]: pair row of the cube
    cell_trial: np.ndarray  # int64 [C]
    cell_judge: np.ndarray  # bool [C]: the judge's verdict on the cell

    @property
    def units(self) -> int:
        return len(self.weight)

    def cells_of(self, unit: int) -> slice:
        return slice(int(self.start[unit]), int(self.start[unit + 1]))

    def size(self) -> np.ndarray:
        """Cells per unit."""
        return np.diff(self.start)

    def stratum(self, judge_yes: bool) -> np.ndarray:
        """The units of one stratum."""
        return np.flatnonzero(self.judge_yes == judge_yes)


def _cells(prep: Prepared, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every usable (row position, trial) of ``rows`` and the judge's verdict on it."""
    cube = prep.cube
    samples = prep.samples[cube.pair_ctx[rows]]
    trials = np.arange(cube.n_slots, dtype=np.uint64)
    usable = ((samples[:, None] >> trials) & np.uint64(1)).astype(bool)
    pos, trial = np.nonzero(usable)
    said = ((cube.pair_mask[rows[pos]] >> trial.astype(np.uint64)) & np.uint64(1)).astype(bool)
    return pos, trial.astype(np.int64), said


def violation_population(prep: Prepared) -> Population:
    """Eligible (profile, withheld attribute) groups, weighted as Violation@n weighs them (the
    mean over a profile's eligible attributes, then over profiles), each with the cells the judge
    called revealed."""
    rows = prep.priv_rows
    groups, group_profile, _ = attribute_groups(prep)
    pos, trial, said = _cells(prep, rows)
    eligible, unit_of_cell = np.unique(groups[pos], return_inverse=True)
    weight = _mean_weights(group_profile[eligible], np.ones(len(eligible)))
    keep = np.flatnonzero(said)
    keep = keep[np.lexsort((trial[keep], pos[keep], unit_of_cell[keep]))]
    per_unit = np.bincount(unit_of_cell[keep], minlength=len(eligible))
    return Population(
        Metric.VIOLATION,
        weight,
        per_unit > 0,
        np.concatenate([[0], np.cumsum(per_unit)]).astype(np.int64),
        rows[pos[keep]].astype(np.int64),
        trial[keep],
        said[keep],
    )


def completeness_population(prep: Prepared) -> Population:
    """Usable needed cells, weighted as Completeness weighs them (the share of a task's needed
    cells, averaged over a profile's tasks, then over profiles)."""
    cube, rows = prep.cube, prep.need_rows
    pos, trial, said = _cells(prep, rows)
    task = prep.ctx_group[cube.pair_ctx[rows[pos]]]
    tasks, task_of_cell = np.unique(task, return_inverse=True)
    cells_per_task = np.bincount(task_of_cell, minlength=len(tasks))
    task_profile = np.zeros(int(prep.ctx_group.max()) + 1 if len(prep.ctx_group) else 0, np.int64)
    task_profile[prep.ctx_group] = prep.profile_group[cube.ctx_profile]
    task_weight = _mean_weights(task_profile[tasks], np.ones(len(tasks)))
    weight = task_weight[task_of_cell] / cells_per_task[task_of_cell]
    return Population(
        Metric.COMPLETENESS,
        weight,
        said,
        np.arange(len(pos) + 1, dtype=np.int64),
        rows[pos].astype(np.int64),
        trial,
        said,
    )


def _mean_weights(profile: np.ndarray, ones: np.ndarray) -> np.ndarray:
    """Weights of items whose metric is the mean over each profile's items, then over profiles.

    >>> _mean_weights(np.array([0, 0, 3]), np.ones(3)).tolist()
    [0.25, 0.25, 0.5]
    """
    if not len(profile):
        return ones
    _, which, count = np.unique(profile, return_inverse=True, return_counts=True)
    return ones / (len(count) * count[which])


def draw_sequence(pop: Population, judge_yes: bool, seed: int, count: int = DRAWS) -> np.ndarray:
    """The stratum's units in the order people are to decide them: ``count`` draws with
    replacement, each unit with probability proportional to its weight. A longer sequence starts
    with a shorter one's draws (the same seed gives the same prefix)."""
    units = pop.stratum(judge_yes)
    if not len(units):
        return units
    cdf = np.cumsum(pop.weight[units])
    rng = np.random.default_rng([seed, list(Metric).index(pop.metric), int(judge_yes)])
    picks = np.searchsorted(cdf, rng.random(count) * cdf[-1], side="right")
    drawn: np.ndarray = units[np.minimum(picks, len(units) - 1)]
    return drawn


def people_on_cells(pop: Population, audit: AuditCells) -> np.ndarray:
    """Per cell of the population: people's verdict (PEOPLE_YES, PEOPLE_NO) or UNDECIDED."""
    key = pop.cell_pair * 64 + pop.cell_trial
    order = np.argsort(key, kind="stable")
    out = np.full(len(key), UNDECIDED, np.int8)
    if not len(audit) or not len(key):
        return out
    asked = audit.pair * 64 + audit.trial
    at = np.minimum(np.searchsorted(key[order], asked), len(key) - 1)
    hit = key[order][at] == asked
    out[order[at[hit]]] = audit.revealed[hit].astype(np.int8)
    return out


def unit_values(pop: Population, people: np.ndarray) -> np.ndarray:
    """Per unit: 1 when people found some cell revealed, 0 when they found none of its cells
    revealed, nan while a cell is still undecided and none is revealed."""
    if not pop.units:
        return np.zeros(0)
    unit = np.repeat(np.arange(pop.units), pop.size())
    yes = np.bincount(unit, weights=people == PEOPLE_YES, minlength=pop.units) > 0
    decided = np.bincount(unit, weights=people != UNDECIDED, minlength=pop.units)
    return np.where(yes, 1.0, np.where(decided == pop.size(), 0.0, np.nan))
