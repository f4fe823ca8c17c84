"""Several runs' growth curves read side by side (cimem.analysis.growth.runs), the composition
curve's rows, and growth() spanning every k whatever the options' own k."""

import pandas as pd
import pytest

from cimem.analysis.composition import CompositionCurve
from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.growth import Axis, GrowthCurve, Line, Order, SampleMode, growth
from cimem.analysis.growth.composition_rows import Measure, composition_rows
from cimem.analysis.growth.runs import (
    RunCurves,
    on_slice,
    runs_with_theory_hidden,
    slice_rows,
    slice_table,
)
from cimem.analysis.metrics import MetricOptions

from fixtures import small_profile, write_jsonl


def curve(
    run: str,
    violation: list[list[float | None]],
    theory: list[list[float | None]],
    *,
    bound: list[list[float | None]] | None = None,
    stderr: list[list[float]] | None = None,
    judge: str = "j",
) -> GrowthCurve:
    """A curve over tasks 1..T and samples 1..k, as growth() would return it."""
    tasks, trials = len(violation), len(violation[0])
    return GrowthCurve(
        mode="official",
        label_rule="unanimous",
        order=Order.RANDOM,
        samples=SampleMode.FIRST,
        method="expected-ratio",
        tasks=list(range(1, tasks + 1)),
        trials=list(range(1, trials + 1)),
        violation=violation,
        theory=theory,
        union_bound=bound or [],
        stderr=stderr,
        n_tasks=tasks,
        n_trials=trials,
        judge=judge,
        run=run,
    )


@pytest.fixture
def runs() -> RunCurves:
    a = curve("a", [[0.1, 0.2], [0.3, 0.4]], [[0.1, 0.15], [0.3, 0.35]], judge="ja")
    b = curve("b", [[0.5]], [[0.5]], judge="jb")  # one task, one sample: no curve at all
    c = curve("c", [[0.2, None], [0.3, 0.6]], [[0.2, 0.3], [0.3, None]])
    return RunCurves({1: a, 2: b, 3: c}, {1: "1: first", 2: "2: second"})


def test_each_run_by_its_name_else_its_curves(runs):
    assert [runs.name(r) for r in runs.curves] == ["1: first", "2: second", "c"]
    assert runs.name(9, curve("own", [[0.0]], [[0.0]])) == "own"
    assert (runs.max_tasks, runs.max_samples) == (2, 2)
    assert runs.judges() == {"1: first": "ja", "2: second": "jb", "c": "j"}
    assert runs.samples_per_task() == {"1: first": 2, "2: second": 1, "c": 2}


def test_a_slice_reaches_the_runs_that_have_that_k_or_that_t(runs):
    assert runs.reaching(Axis.TASKS, 2) == [1, 3]  # k = 2: run 2 has one sample per task
    assert runs.left_out(Axis.TASKS, 2) == ["2: second"]
    assert runs.reaching(Axis.SAMPLES, 1) == [1, 2, 3]
    assert runs.left_out(Axis.SAMPLES, 1) == []
    assert runs.with_one_task() == ["2: second"]


def test_end_points_skip_a_run_missing_either_line(runs):
    assert runs.end_points() == [("1: first", 0.4, 0.35), ("2: second", 0.5, 0.5)]


def test_slice_rows_in_percent_with_the_error_on_observed_only():
    g = curve(
        "a",
        [[0.1, 0.2], [0.3, 0.4]],
        [[0.1, 0.15], [0.3, 0.35]],
        bound=[[0.1, 0.2], [0.2, None]],
        stderr=[[0.0, 0.01], [0.0, 0.02]],
    )
    rows = slice_rows("A", g, Axis.TASKS, 2, with_bound=True)
    assert rows == [
        {"run": "A", "curve": "observed", "T": 1, "k": 2, "violation": 20.0, "se": 1.0},
        {"run": "A", "curve": str(Line.THEORY), "T": 1, "k": 2, "violation": 15.0, "se": None},
        {"run": "A", "curve": str(Line.BOUND), "T": 1, "k": 2, "violation": 20.0},
        {"run": "A", "curve": "observed", "T": 2, "k": 2, "violation": 40.0, "se": 2.0},
        {"run": "A", "curve": str(Line.THEORY), "T": 2, "k": 2, "violation": 35.0, "se": None},
    ]
    assert all(type(r["curve"]) is str for r in rows)  # plain text in the chart's rows
    assert [r["curve"] for r in slice_rows("A", g, Axis.SAMPLES, 1)] == [
        "observed",
        str(Line.THEORY),
    ] * 2
    assert slice_rows("A", g, Axis.TASKS, 3) == []  # no k = 3


def test_the_runs_whose_theory_hides_under_observed_sorted_by_name(runs):
    same = curve("z", [[0.0, 1.0]], [[0.0, 1.0]])
    slices = {1: runs.curves[1], 2: runs.curves[2], 4: same}
    names = RunCurves({**runs.curves, 4: same}, {**runs.names, 4: "0: zero"})
    # along k at T = 1: run 2 (one point, equal) and run 4 (equal everywhere); run 1 differs at k = 2
    assert runs_with_theory_hidden(slices, names, Axis.SAMPLES, 1, False) == [
        "0: zero",
        "2: second",
    ]
    # a line missing at a point is not hidden there
    assert runs_with_theory_hidden({3: runs.curves[3]}, runs, Axis.TASKS, 2, False) == []


def test_the_papers_points_on_a_slice_within_the_runs():
    figure = [(1, 1, 0.1), (40, 1, 9.6), (40, 5, 25.1)]
    assert on_slice(figure, Axis.TASKS, 1, 40, 5) == [(1, 1, 0.1), (40, 1, 9.6)]
    assert on_slice(figure, Axis.TASKS, 1, 22, 5) == [(1, 1, 0.1)]  # T = 40 beyond 22 tasks
    assert on_slice(figure, Axis.SAMPLES, 40, 40, 5) == [(40, 1, 9.6), (40, 5, 25.1)]
    assert on_slice(figure, Axis.SAMPLES, 40, 40, 3) == [(40, 1, 9.6)]


def test_slice_table_names_its_columns_and_how_it_was_computed():
    data = pd.DataFrame(
        [{"run": "A", "curve": "observed", "T": 1, "k": 2, "violation": 20.0, "se": 1.0}]
    )
    out = slice_table(
        data,
        {"A": "judge-a"},
        mode="official",
        label_rule="unanimous",
        order="random",
        samples="first",
        method="expected-ratio",
    )
    assert list(out.columns) == [
        "run",
        "line",
        "tasks T",
        "samples k",
        "violation %",
        "Monte Carlo error (points)",
        "judge",
        "mode",
        "label rule",
        "task order",
        "samples",
        "method",
    ]
    assert out.iloc[0]["judge"] == "judge-a" and out.iloc[0]["method"] == "expected-ratio"
    fixed = slice_table(
        data, {}, mode="definition", label_rule="r", order="fixed", samples="first", method="x"
    )
    assert fixed.iloc[0]["method"] == "-"  # a fixed order has no random-order method


def test_composition_rows_skip_a_measure_without_a_value():
    comp = CompositionCurve(
        run=1,
        judge=2,
        steps=[0, 2],
        messages=[4, 3],
        leak_rate=[None, 0.5],
        any_leak=[None, 2 / 3],
        completeness=[1.0, 0.75],
    )
    rows = composition_rows(comp)
    assert [(r["withheld"], r["measure"]) for r in rows] == [
        (0, Measure.COMPLETENESS),
        (2, Measure.LEAK_RATE),
        (2, Measure.ANY_LEAK),
        (2, Measure.COMPLETENESS),
    ]
    assert rows[0] == {"withheld": 0, "measure": "completeness", "value": 100.0, "messages": 4}
    assert rows[1]["value"] == 50.0 and rows[3]["messages"] == 3


def test_growth_spans_every_k_whatever_the_options_k(tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [small_profile("A"), small_profile("B")])
    cube = cube_from_official(path)
    full = growth(cube, MetricOptions(mode="definition"), order="fixed")
    cut = growth(cube, MetricOptions(mode="definition", k=1), order="fixed")
    assert cut.trials == full.trials == [1, 2]
    assert cut.violation == full.violation
    assert full.violation[-1][0] != full.violation[-1][1]  # the second sample leaks more
    # the other options still apply: excluding the attribute leaked changes the curve
    without = growth(cube, MetricOptions(mode="definition", exclude=("diagnosis",), k=1))
    assert without.violation != growth(cube, MetricOptions(mode="definition")).violation
