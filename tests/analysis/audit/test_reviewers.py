"""People against people: kappa per pair of reviewers, Krippendorff's alpha, the cells to
adjudicate, and the draws that go to two reviewers."""

from __future__ import annotations

from datetime import datetime

import pytest

from cimem.analysis.audit.reviewers import (
    ANONYMOUS,
    krippendorff_alpha,
    people_agreement,
    second_review,
)
from cimem.store import HumanVerdictRow

WHEN = datetime(2026, 1, 1)


def row(message: int, attr: int, revealed: bool, reviewer: str | None, *, current=True, adj=False):
    return HumanVerdictRow(
        message, "P", 0, "R", "T", 0, attr, f"k{attr}", revealed, reviewer, None, WHEN, current, adj
    )


def test_two_reviewers_kappa_alpha_and_what_to_adjudicate():
    ana = [True, True, False, False, True, False]
    ben = [True, False, False, False, True, True]
    rows = [row(1, i, a, "ana") for i, a in enumerate(ana)]
    rows += [row(1, i, b, "ben") for i, b in enumerate(ben)]
    rows += [row(2, 0, True, "ana")]  # one reviewer only: no pair
    rows += [row(1, 5, False, "cy", adj=True)]  # cell 5 settled by an adjudication
    ag = people_agreement(rows)
    (pair,) = ag.pairs
    assert (pair.a, pair.b, pair.cells, pair.agree) == ("ana", "ben", 6, 4)
    assert pair.kappa == pytest.approx(1 / 3)  # po 4/6, pe 1/2
    lo, hi = pair.kappa_ci95
    assert lo <= pair.kappa <= hi and hi - lo > 0.3  # six cells: a wide interval
    assert ag.shared_cells == 6 and ag.adjudicated == 1
    assert ag.disagreements == [(1, 1)]  # cell 5 differs too, but it is adjudicated
    assert ag.alpha == pytest.approx(
        krippendorff_alpha([{"a": x, "b": y} for x, y in zip(ana, ben)])
    )
    assert ag.as_dict()["reviewers"] == ["ana", "ben"]


def test_alpha_matches_its_definition_and_is_undefined_without_variation():
    # one value everywhere: nothing to tell apart
    assert krippendorff_alpha([{"a": True, "b": True}] * 3) != krippendorff_alpha(
        [{"a": True, "b": True}] * 3
    )
    # 3 reviewers on 2 cells, one disagreeing: coincidences by hand
    cells = [{"a": True, "b": True, "c": False}, {"a": False, "b": False, "c": False}]
    # pairable values: n = 6; o[1,1] = 1, o[1,0] = o[0,1] = 1, o[0,0] = 1 + 2 = 3
    # n1 = 2, n0 = 4; alpha = 1 - (n - 1) * (o01 + o10) / (2 * n0 * n1) = 1 - 5 * 2 / 16
    assert krippendorff_alpha(cells) == pytest.approx(1 - 10 / 16)


def test_an_unnamed_reviewer_is_one_reviewer_and_old_verdicts_do_not_count():
    rows = [row(1, 0, True, None), row(1, 0, False, None, current=False), row(1, 0, True, "ana")]
    ag = people_agreement(rows, intervals=False)
    assert ag.reviewers == sorted([ANONYMOUS, "ana"]) and ag.disagreements == []
    assert ag.pairs[0].cells == 1 and ag.pairs[0].kappa_ci95[0] != ag.pairs[0].kappa_ci95[0]


def test_every_fifth_draw_goes_to_two_reviewers():
    assert [d for d in range(1, 21) if second_review(d)] == [5, 10, 15, 20]
