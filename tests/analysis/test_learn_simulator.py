"""The Learn simulator's curves: the table the chart reads (one row per task and curve, in
percent, simulated first) and the caption's two readings of it."""

import doctest
from dataclasses import dataclass

import pytest

from cimem.analysis.learn import simulator
from cimem.analysis.learn.simulator import CURVES, curve_table, one_p_gap, own_p_follows
from cimem.demo.teaching import attribute_chances, simulate_mixed


@dataclass
class Sim:
    observed: list[float]
    one_p: list[float]
    own_p: list[float]


def test_one_row_per_task_and_curve_in_percent():
    table = curve_table(Sim(observed=[0.1, 0.2], one_p=[0.15, 0.3], own_p=[0.1, 0.21]))
    assert list(table.columns) == ["tasks T", "curve", "Violation %"]
    assert list(table["tasks T"]) == [1, 2] * 3
    assert list(table["curve"]) == [c for c in CURVES for _ in range(2)]
    assert list(table["Violation %"]) == pytest.approx([10, 20, 15, 30, 10, 21])


def test_the_gap_is_the_one_p_formula_above_the_simulation_at_the_last_task():
    assert one_p_gap(Sim([0.1, 0.2], [0.5, 0.3], [0, 0])) == pytest.approx(0.1)
    assert one_p_gap(Sim([0.1, 0.4], [0.1, 0.3], [0, 0])) == pytest.approx(-0.1)


def test_the_own_p_formula_follows_only_if_close_at_every_task():
    assert own_p_follows(Sim([0.1, 0.2], [0, 0], [0.11, 0.19]))
    assert not own_p_follows(Sim([0.1, 0.2], [0, 0], [0.2, 0.2]))  # off at the first task


def test_uneven_chances_make_the_one_p_formula_over_state_a_real_simulation():
    p = attribute_chances(0.02, 0.9, 0.0, attributes=300, seed=1)
    sim = simulate_mixed(p, 10, 5, seed=1)
    assert len(curve_table(sim)) == 3 * 10
    assert one_p_gap(sim) > 0.05
    assert own_p_follows(sim)


def test_the_modules_examples_hold():
    assert doctest.testmod(simulator).failed == 0
