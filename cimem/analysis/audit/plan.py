"""The order people audit in, and how much more audit a margin needs.

Draws are shared out among the four strata (Violation and Completeness, judge yes and no) as the
cost-weighted Neyman allocation says: stratum h gets draws in proportion to
``W_h sqrt(p_h (1 - p_h) / c_h)``, ``c_h`` the cells a draw costs there (a Violation unit's cells;
one for Completeness) and ``p_h`` the share found revealed so far (Jeffreys; 1/2 before any
verdict). That minimises the two metrics' summed variance for the cells read. Every stratum with
weight gets its first draw first, since none can be estimated without one.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from cimem.analysis.audit.cells import AuditCells
from cimem.analysis.audit.correction import populations
from cimem.analysis.audit.design import (
    Metric,
    Population,
    draw_sequence,
    people_on_cells,
    unit_values,
)
from cimem.analysis.audit.estimate import Estimate, StratumEstimate, estimate, stratum_estimate
from cimem.analysis.audit.human import audit_cells
from cimem.analysis.metrics import Prepared
from cimem.store import Store

Z95 = 1.959964


@dataclass(frozen=True)
class Planned:
    """One draw of the review order: a unit of one metric's stratum, and its place in the
    stratum's draw sequence."""

    metric: Metric
    judge_yes: bool
    unit: int
    draw: int


def _guess(s: StratumEstimate) -> float:
    """p_h for planning: the Jeffreys estimate from the decided draws, kept off 0 and 1."""
    return min(0.95, max(0.05, (s.found + 0.5) / (s.draws + 1)))


def draw_cost(pop: Population, judge_yes: bool, p: float) -> float:
    """Cells people read per draw of a stratum: a Violation unit found revealed is decided at
    its first revealed cell (its judge's "yes" come first), otherwise at its last."""
    units = pop.stratum(judge_yes)
    if pop.metric == Metric.COMPLETENESS or not len(units):
        return 1.0
    w = pop.weight[units]
    cells = float(np.dot(w, pop.size()[units]) / w.sum())
    return p + (1 - p) * cells if judge_yes else cells


@dataclass
class _Stream:
    """One stratum's draw sequence as the review order consumes it."""

    pop: Population
    judge_yes: bool
    values: np.ndarray  # per unit of pop: 1, 0, nan (undecided)
    seq: np.ndarray
    at: int  # the next draw to consider
    rate: float  # its share of the draws: W_h sqrt(p_h (1 - p_h) / c_h)


def _streams(
    pops: tuple[Population, ...], people: tuple[np.ndarray, ...], seed: int
) -> list[_Stream]:
    out = []
    for pop, cells in zip(pops, people):
        values = unit_values(pop, cells)
        for yes in (True, False):
            s = stratum_estimate(pop, values, yes, seed)
            if not s.units or s.census:
                continue
            p = _guess(s)
            rate = s.weight * math.sqrt(p * (1 - p) / draw_cost(pop, yes, p))
            out.append(_Stream(pop, yes, values, draw_sequence(pop, yes, seed), s.draws, rate))
    return out


def review_order(
    pops: tuple[Population, ...], people: tuple[np.ndarray, ...], seed: int
) -> Iterator[Planned]:
    """The draws still to decide, in the order to decide them (until the strata's sequences run
    out); a draw of a unit already listed or decided is passed over (it counts once decided)."""
    streams = _streams(pops, people, seed)
    listed: set[tuple[str, int]] = set()
    while streams:
        s = min(streams, key=lambda s: (s.at > 0, (s.at + 1) / max(s.rate, 1e-12)))
        if s.at >= len(s.seq):
            streams.remove(s)
            continue
        unit, s.at = int(s.seq[s.at]), s.at + 1
        if (s.pop.metric, unit) in listed or not np.isnan(s.values[unit]):
            continue
        listed.add((s.pop.metric, unit))
        yield Planned(s.pop.metric, s.judge_yes, unit, s.at - 1)


@dataclass(frozen=True)
class StratumPlan:
    """How many more draws (and about how many cells) a stratum needs for the margin."""

    metric: Metric
    judge_yes: bool
    weight: float
    decided: int
    needed: int
    more_draws: int
    more_cells: int


def plan_to_margin(pop: Population, est: Estimate, margin: float) -> list[StratumPlan]:
    """Draws per stratum for a 95% interval of about +/- ``margin`` (a share, e.g. 0.03): the
    cost-weighted Neyman allocation with the normal approximation, p_h as found so far. The exact
    interval is somewhat wider where p_h is near 0 or 1; audit, then plan again."""
    target = (margin / Z95) ** 2
    strata = [s for s in est.strata if s.units and not s.census]
    costs = {s.judge_yes: draw_cost(pop, s.judge_yes, _guess(s)) for s in strata}
    total = sum(
        s.weight * math.sqrt(_guess(s) * (1 - _guess(s)) * costs[s.judge_yes]) for s in strata
    )
    out = []
    for s in strata:
        p, c = _guess(s), costs[s.judge_yes]
        need = math.ceil(s.weight * math.sqrt(p * (1 - p) / c) * total / target) if target else 0
        need = max(need, 1)
        more = max(0, need - s.draws)
        out.append(
            StratumPlan(pop.metric, s.judge_yes, s.weight, s.draws, need, more, math.ceil(more * c))
        )
    return out


def run_plan(store: Store, prep: Prepared, margin: float, seed: int = 0) -> list[StratumPlan]:
    """The plan of a stored run under its judge (``prep``) from people's verdicts so far."""
    human = store.find_human_judge(prep.cube.info.run_id) if prep.cube.info.run_id else None
    audit = audit_cells(store, prep, human)[0] if human is not None else AuditCells.empty()
    plans = []
    for pop in populations(prep):
        plans += plan_to_margin(pop, estimate(pop, people_on_cells(pop, audit), seed), margin)
    return plans


def plan_sentence(plans: list[StratumPlan], margin_points: float) -> str:
    """The plan in one line, as the Audit page and the command line say it.

    >>> p = StratumPlan(Metric.VIOLATION, True, 0.5, 3, 20, 17, 40)
    >>> plan_sentence([p], 3)
    'For +/- 3 points: about 40 more cells (violation, judge yes: 17 more draws). A draw is one needed cell, or a withheld attribute with the cells the judge called revealed'
    """
    more = [p for p in plans if p.more_draws]
    if not more:
        return f"For +/- {margin_points:g} points: the audit so far is enough"
    parts = ", ".join(
        f"{p.metric}, judge {'yes' if p.judge_yes else 'no'}: {p.more_draws:,} more draws"
        for p in more
    )
    total = sum(p.more_cells for p in more)
    return (
        f"For +/- {margin_points:g} points: about {total:,} more cells ({parts}). A draw is one"
        " needed cell, or a withheld attribute with the cells the judge called revealed"
    )
