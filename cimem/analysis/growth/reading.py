"""What growth curves say, in words: how they were computed, when the independence line hides
under the observed one, what the gap at all samples means, and how large the Monte Carlo error
is. The app and the command line say the same things with these."""

from __future__ import annotations

from collections.abc import Iterable

from cimem.analysis.growth.curve import CurvePoint, GrowthCurve
from cimem.analysis.growth.random_order import ORDERS_PER_PROFILE, ORDERS_PER_RUN
from cimem.analysis.growth.vocab import Line, Method, Order


def how_computed(order: str, method: str) -> str:
    """The order's computation, as a caption says it (the expected ratio's budget of random task
    orders is :data:`ORDERS_PER_RUN`, as in ``cimem growth``)."""
    if order == Order.RANDOM:
        low, high = ORDERS_PER_PROFILE
        sampled = (
            f" ({ORDERS_PER_RUN:,} random task orders per run, {low} to {high} per profile, seed"
            " 0, where a task count has more subsets than that; enumerated otherwise)"
            if method == Method.EXPECTED_RATIO
            else ""
        )
        return f"method **{method}**" + sampled
    return "the listed task order" if order == Order.FIXED else "a greedy worst order per profile"


def theory_hidden(points: Iterable[CurvePoint]) -> bool:
    """Whether the 1-(1-p)^k line coincides with the observed one at every point drawn (in
    percent, to 1e-9), so it lies under it; False when one of the two is missing somewhere."""
    at: dict[tuple[int, int], dict[Line, float]] = {}
    for pt in points:
        at.setdefault((pt.tasks, pt.samples), {})[pt.line] = 100 * pt.violation
    if not any(Line.OBSERVED in v for v in at.values()) or not any(
        Line.THEORY in v for v in at.values()
    ):
        return False
    return all(
        Line.OBSERVED in v and Line.THEORY in v and abs(v[Line.OBSERVED] - v[Line.THEORY]) < 1e-9
        for v in at.values()
    )


def hidden_reason(samples_per_task: Iterable[int]) -> str:
    """Why the theory can equal the observed everywhere, when every run named has n = 1."""
    return " (with n = 1 each p is 0 or 1)" if all(n == 1 for n in samples_per_task) else ""


def end_gap_note(gaps: list[float]) -> str:
    """What the gap at k = n says, and what it does not. p = c/n comes from the same n samples,
    so for each pair 1-(1-c/n)^n is at most the observed 1 (c > 0) and equal to it when c is 0
    or n: the gap is never negative, and is no test of independence."""
    if all(abs(g) < 5e-7 for g in gaps):
        return (
            "Equal: every prompt's samples agree, all leaking an attribute or none (always so"
            " with n = 1), so each p = c/n is 0 or 1 and the formula gives the observed value."
        )
    return (
        "The formula's p = c/n comes from these same n samples, so at k = n it can only fall"
        " short of the observed worst case: the gap is 0 where a prompt's samples agree (all"
        " leak an attribute or none) and grows the more they disagree. Independent samples"
        " give a positive gap too, so it is no test of independence."
    )


def largest_stderr(curves: Iterable[GrowthCurve]) -> float | None:
    """The largest nonzero Monte Carlo standard error of the curves, None when none has one."""
    se = [x for g in curves for x in g.nonzero_stderrs()]
    return max(se) if se else None


def standard_error_note(largest: float) -> str:
    """What the Monte Carlo standard error of a chart's points is, and what it is not."""
    return (
        f"Monte Carlo standard error of these points: at most {100 * largest:.3f}"
        " percentage points (the tooltip gives each point's). It is the error of averaging"
        " over random task orders only (0 where every order gives the same value), not the"
        " uncertainty from having few profiles."
    )
