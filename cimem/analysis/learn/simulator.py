"""The Learn page simulator's curves as a table, and what its caption says about them: how far
the one-p formula misses the simulated worst case, and whether the own-p formula follows it. A
simulation is anything with ``observed``, ``one_p`` and ``own_p`` per number of tasks, as
:class:`cimem.demo.teaching.MixedSimulation` has."""

from __future__ import annotations

from typing import Protocol

import pandas as pd

CURVES = ("simulated", "formula, one p for all", "formula, each its own p")


class Curves(Protocol):
    """A simulation's three curves, one value per number of tasks 1..T."""

    observed: list[float]
    one_p: list[float]
    own_p: list[float]


def curve_table(sim: Curves) -> pd.DataFrame:
    """The three curves as rows (tasks T, curve, Violation %), simulated first, as the chart
    reads them.

    >>> from types import SimpleNamespace as S
    >>> curve_table(S(observed=[0.1, 0.2], one_p=[0.1, 0.3], own_p=[0.1, 0.2])).shape
    (6, 3)
    """
    tasks = len(sim.observed)
    return pd.DataFrame(
        {
            "tasks T": list(range(1, tasks + 1)) * len(CURVES),
            "curve": [name for name in CURVES for _ in range(tasks)],
            "Violation %": [100 * x for x in sim.observed + sim.one_p + sim.own_p],
        }
    )


def one_p_gap(sim: Curves) -> float:
    """How far the one-p formula lies above the simulated worst case at the last task
    (negative: below it)."""
    return sim.one_p[-1] - sim.observed[-1]


def own_p_follows(sim: Curves, within: float = 0.02) -> bool:
    """Whether the formula with each attribute's own p stays within ``within`` of the
    simulation at every number of tasks."""
    return max(abs(a - b) for a, b in zip(sim.own_p, sim.observed, strict=True)) < within
