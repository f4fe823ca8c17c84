"""People against people: how often reviewers agree on the cells they both decided (Cohen's kappa
per pair of reviewers, Krippendorff's alpha over all of them, each with a bootstrap 95% interval
over cells), which cells they disagree on (the adjudication queue), and which cells of the audit
sample a second reviewer decides (every fifth draw: a fifth of the sample)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from cimem.analysis.agreement import cohen_kappa
from cimem.store import HumanVerdictRow

ANONYMOUS = "(no name)"
SECOND_REVIEW_EVERY = 5  # every fifth draw of the sample goes to two reviewers
BOOTSTRAP = 1000


def second_review(draw: int) -> bool:
    """Whether a draw of the audit sample is decided by two reviewers.

    >>> [d for d in range(1, 12) if second_review(d)]
    [5, 10]
    """
    return draw % SECOND_REVIEW_EVERY == 0


def by_cell(rows: list[HumanVerdictRow]) -> dict[tuple[int, int], dict[str, bool]]:
    """Each cell's current verdict per reviewer (adjudications apart)."""
    out: dict[tuple[int, int], dict[str, bool]] = {}
    for r in rows:
        if r.current and not r.adjudication:
            out.setdefault((r.message_id, r.attr_id), {})[r.reviewer or ANONYMOUS] = r.revealed
    return out


def adjudicated_cells(rows: list[HumanVerdictRow]) -> set[tuple[int, int]]:
    return {(r.message_id, r.attr_id) for r in rows if r.current and r.adjudication}


def disputed(rows: list[HumanVerdictRow]) -> list[tuple[int, int]]:
    """The cells whose reviewers' current verdicts differ, not adjudicated yet, in order."""
    settled = adjudicated_cells(rows)
    return sorted(
        key for key, c in by_cell(rows).items() if len(set(c.values())) > 1 and key not in settled
    )


def krippendorff_alpha(cells: list[dict[str, bool]]) -> float:
    """Krippendorff's alpha for a binary value, from the cells two or more reviewers decided
    (nan when there is nothing to compare or every verdict is the same).

    >>> krippendorff_alpha([{"a": True, "b": True}, {"a": False, "b": False}])
    1.0
    >>> round(krippendorff_alpha([{"a": True, "b": False}, {"a": False, "b": False}]), 3)
    0.0
    """
    o = np.zeros((2, 2))  # coincidences of values within a cell
    for cell in cells:
        values = [int(v) for v in cell.values()]
        m = len(values)
        if m < 2:
            continue
        for i, j in itertools.permutations(range(m), 2):
            o[values[i], values[j]] += 1 / (m - 1)
    n = o.sum()
    totals = o.sum(axis=1)
    expected = totals[0] * totals[1] * 2 / (n - 1) if n > 1 else 0.0
    if n == 0 or expected == 0:
        return float("nan")
    observed = o[0, 1] + o[1, 0]
    return float(1 - observed / expected)


def _interval(
    stat: Callable[[list[Any]], float], cells: list[Any], seed: int = 0
) -> tuple[float, float]:
    """Bootstrap 95% interval of ``stat`` over the cells (nan when fewer than two)."""
    if len(cells) < 2:
        return (float("nan"), float("nan"))
    rng = np.random.default_rng(seed)
    draws = [
        stat([cells[i] for i in rng.integers(0, len(cells), len(cells))]) for _ in range(BOOTSTRAP)
    ]
    values = np.array([d for d in draws if d == d])
    if not len(values):
        return (float("nan"), float("nan"))
    lo, hi = np.percentile(values, [2.5, 97.5])
    return (float(lo), float(hi))


@dataclass(frozen=True)
class PairAgreement:
    """Two reviewers on the cells both decided."""

    a: str
    b: str
    cells: int
    agree: int
    kappa: float
    kappa_ci95: tuple[float, float]


@dataclass(frozen=True)
class PeopleAgreement:
    """Reviewers against each other, and the cells they disagree on, not settled yet."""

    reviewers: list[str]
    pairs: list[PairAgreement]
    shared_cells: int  # cells two or more reviewers decided
    alpha: float
    alpha_ci95: tuple[float, float]
    disagreements: list[tuple[int, int]]  # (message_id, attr_id) to adjudicate
    adjudicated: int

    def as_dict(self) -> dict[str, object]:
        return {
            "reviewers": self.reviewers,
            "pairs": [p.__dict__ for p in self.pairs],
            "shared_cells": self.shared_cells,
            "krippendorff_alpha": self.alpha,
            "alpha_ci95": list(self.alpha_ci95),
            "disagreements": [list(d) for d in self.disagreements],
            "adjudicated": self.adjudicated,
        }


def _kappa(pairs: list[tuple[bool, bool]]) -> float:
    a = np.array([x for x, _ in pairs], bool)
    b = np.array([y for _, y in pairs], bool)
    return cohen_kappa(a, b)


def people_agreement(rows: list[HumanVerdictRow], intervals: bool = True) -> PeopleAgreement:
    """Agreement of the reviewers of one run from its current verdicts (store.human_verdicts);
    without ``intervals`` (only the counts wanted), no bootstrap."""
    nan = (float("nan"), float("nan"))
    cells = by_cell(rows)
    reviewers = sorted({name for cell in cells.values() for name in cell})
    pairs = []
    for a, b in itertools.combinations(reviewers, 2):
        both = [(c[a], c[b]) for c in cells.values() if a in c and b in c]
        if both:
            pairs.append(
                PairAgreement(
                    a,
                    b,
                    len(both),
                    sum(x == y for x, y in both),
                    _kappa(both),
                    _interval(_kappa, both) if intervals else nan,
                )
            )
    shared = [c for c in cells.values() if len(c) >= 2]
    return PeopleAgreement(
        reviewers,
        pairs,
        len(shared),
        krippendorff_alpha(shared),
        _interval(krippendorff_alpha, shared) if intervals else nan,
        disputed(rows),
        len(adjudicated_cells(rows)),
    )
