"""The leaderboard of every run: what each run records, its numbers from the one metrics function,
the filters, the sorting, and the default selection a visit opens with."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from datetime import datetime, timedelta

import numpy as np
import pandas as pd
import pytest

from cimem.analysis import leaderboard as lb
from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import NO_LABELS, MetricOptions, compute, summarize
from cimem.analysis.overview_table import interval_text
from cimem.analysis.versus_best import versus_best
from cimem.ingest import ingest_file
from cimem.store import RunSummary, Store

from conftest import shared_file
from fixtures import small_profile, write_jsonl

DAY = datetime(2025, 3, 1)


def summary(run_id: int, model: str | None, day: int = 0, messages: int = 10) -> RunSummary:
    return RunSummary(
        run_id, f"r{run_id}", "results", "official", model, None, None, 2, False,
        DAY + timedelta(days=day), 1, 2, messages, 40, 1,
    )  # fmt: skip


# ----------------------------------------------------------------------------- default selection
def test_default_is_the_newest_run_of_each_model_then_the_newest_others():
    runs = [
        summary(1, "a", 0),
        summary(2, "a", 5),
        summary(3, "b", 1),
        summary(4, "c", 2),
        summary(5, "c", 3),
        summary(6, None, 4),
    ]
    # newest per model: a -> 2, unknown -> 6, c -> 5, b -> 3 (four models: four runs)
    assert lb.default_selection(runs) == [2, 3, 5, 6]
    # two models only: their newest, then the newest of the rest
    two = [summary(1, "a", 0), summary(2, "a", 1), summary(3, "a", 2), summary(4, "b", 0)]
    assert lb.default_selection(two) == [1, 2, 3, 4]
    five = [*two, summary(5, "a", 3)]
    assert lb.default_selection(five) == [2, 3, 4, 5]


def test_default_ties_on_time_go_to_the_higher_run_id_and_small_databases_show_all():
    same_time = [summary(i, None, 0) for i in range(1, 11)]
    assert lb.default_selection(same_time) == [7, 8, 9, 10]
    assert lb.default_selection(same_time[:3]) == [1, 2, 3]
    assert lb.default_selection([]) == []


def test_default_leaves_out_runs_without_messages():
    runs = [summary(1, "a", 9, messages=0), summary(2, "b", 0), summary(3, None, 1, messages=0)]
    assert lb.default_selection(runs) == [2]


# ----------------------------------------------------------------------------- the entries
def labelled_file(tmp_path, name, people):
    """A results file of these people (each a small labelled profile)."""
    return write_jsonl(tmp_path / f"{name}.jsonl", [small_profile(p) for p in people])


@pytest.fixture
def board_db(tmp_path):
    """Three runs with messages (two over the same two people, one of one person) and one of
    profiles only; one records its model, one only a level in its name."""
    db = tmp_path / "board.duckdb"
    with Store.open(db) as store:
        ingest_file(store, labelled_file(tmp_path, "a", ["Ada", "Bo"]), model="llama-3.3")
        ingest_file(store, labelled_file(tmp_path, "b_level_2", ["Bo", "Ada"]))
        ingest_file(store, labelled_file(tmp_path, "c", ["Cy"]), name="one person")
        profiles = tmp_path / "profiles.json"
        plain = small_profile("Di")
        plain["contexts"] = [
            {"recipient": c["recipient"], "task": c["task"]} for c in plain["contexts"]
        ]
        profiles.write_text(json.dumps([plain]))
        ingest_file(store, profiles)
    return db


def test_entries_say_what_each_run_records_and_unknown_otherwise(board_db):
    with Store.open(board_db, read_only=True) as store:
        board = lb.entries(store.leaderboard_facts())
    a, b, c, d = board
    assert (a.model, a.level, a.memory_format, a.prompt_set) == (
        "llama-3.3",
        lb.UNKNOWN,
        "official",
        "official",
    )
    assert (b.model, b.level) == (lb.UNKNOWN, "2")  # the level from the file's name
    assert a.cohort == b.cohort == "A (2 profiles)"  # the same people, in any order
    assert c.cohort == "B (1 profile)" and c.profiles == 1
    assert a.judges == ("original verdicts",) and d.judges == ()
    assert [e.messages for e in board] == [8, 8, 4, 0]
    assert lb.summary(board) == "4 runs of 1 model (3 with no model recorded)"


def test_numbers_are_the_metrics_functions_and_runs_without_messages_have_none(board_db):
    opts = MetricOptions()
    with Store.open(board_db, read_only=True) as store:
        board = lb.entries(store.leaderboard_facts())
        metrics = lb.run_metrics(store, [e.run_id for e in board if e.messages], opts)
        direct = compute(cube_from_store(store, 1), opts)
    table = lb.table(board, metrics)
    assert list(table.columns) == ["run_id", *lb.COLUMNS]
    row = table.set_index("run_id").loc[1]
    assert row["Violation@n %"] == round(100 * direct.violation.mean, 2)
    lo, hi = direct.completeness.ci95
    assert row["Completeness 95% CI"] == interval_text(100 * lo, 100 * hi, profiles=2)
    one = table.set_index("run_id").loc[3]
    assert one["Violation 95% CI"] == "- (1 profile)"  # one profile: no interval
    none = table.set_index("run_id").loc[4]
    assert none["Violation 95% CI"] == "not computed" and pd.isna(none["Violation@n %"])


def test_a_run_without_labels_says_so(tmp_path):
    unlabelled = small_profile("Ed")
    for c in unlabelled["contexts"]:
        for k in [k for k in c if k.startswith("labels")]:
            c[k] = {}
    db = tmp_path / "u.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "u.jsonl", [unlabelled]))
        board = lb.entries(store.leaderboard_facts())
        metrics = lb.run_metrics(store, [1], MetricOptions())
    row = lb.table(board, metrics).iloc[0]
    assert row["Violation 95% CI"] == NO_LABELS and pd.isna(row["Violation@n %"])


def test_filters_narrow_by_each_field_and_a_judge_among_several(board_db):
    with Store.open(board_db, read_only=True) as store:
        board = lb.entries(store.leaderboard_facts())
    offered = lb.choices(board)
    assert offered["models"] == ["llama-3.3", lb.UNKNOWN]
    assert offered["judges"] == ["original verdicts"]
    only = lb.filtered(board, lb.Filters(models=frozenset({"llama-3.3"})))
    assert [e.run_id for e in only] == [1]
    level2 = lb.filtered(board, lb.Filters(levels=frozenset({"2"})))
    assert [e.run_id for e in level2] == [2]
    judged = lb.filtered(board, lb.Filters(judges=frozenset({"original verdicts", "x"})))
    assert [e.run_id for e in judged] == [1, 2, 3]
    both = lb.Filters(models=frozenset({lb.UNKNOWN}), memory_formats=frozenset({"official"}))
    assert [e.run_id for e in lb.filtered(board, both)] == [2, 3]


def test_sorting_groups_by_model_then_level_and_puts_missing_numbers_last(board_db):
    with Store.open(board_db, read_only=True) as store:
        board = lb.entries(store.leaderboard_facts())
        metrics = lb.run_metrics(store, [1, 2], MetricOptions())
    table = lb.table(board, metrics)
    assert list(table["model"]) == ["llama-3.3", lb.UNKNOWN, lb.UNKNOWN, lb.UNKNOWN]
    assert list(table["run_id"]) == [1, 2, 3, 4]  # unknown: level "2" before "unknown"
    by_v = lb.sort_table(table, lb.SortKey.VIOLATION)
    assert list(by_v["run_id"])[-2:] == [3, 4]  # not computed: last
    ties = by_v[by_v["Violation@n %"].notna()]
    assert list(ties["Violation@n %"]) == sorted(ties["Violation@n %"])
    records = lb.as_records(table)
    assert records[3]["Violation@n %"] is None and json.dumps(records, default=str)


# ----------------------------------------------------------------------------- real data
@pytest.mark.parametrize(
    ("name", "profiles", "n"),
    [("results_sample.jsonl", 2, 3), ("persistbench_llama33_jeffery_day.json", 1, 1)],
)
def test_the_benchmarks_files_through_the_leaderboard(tmp_path, name, profiles, n):
    path = shared_file(name)
    with Store.open(tmp_path / "real.duckdb") as store:
        ingest_file(store, path)
        board = lb.entries(store.leaderboard_facts())
        metrics = lb.run_metrics(store, [board[0].run_id], MetricOptions())
    row = lb.table(board, metrics).iloc[0]
    assert (row["profiles"], row["n"]) == (profiles, n)
    assert row["Violation@n %"] == round(100 * metrics[1].violation.mean, 2)
    if profiles == 1:
        assert row["Violation 95% CI"] == "- (1 profile)"
        assert "llama" in row["model"].lower()  # the file names its model
        assert row["level"] == "1"
    else:
        assert row["model"] == lb.UNKNOWN and row["Violation 95% CI"].startswith("[")


def test_shared_columns_are_said_once_and_only_when_shared():
    import pandas as pd

    from cimem.analysis.leaderboard import shared_columns

    two = pd.DataFrame({"run": ["1: a", "2: b"], "n": [5, 5], "judges": ["x", "y"]})
    assert shared_columns(two) == {"n": "5"}
    assert shared_columns(two.head(1)) == {}  # one run: its row says it all


def test_the_profiles_column_says_how_many_were_scored(tmp_path):
    """A profile with nothing withheld in any task is no part of Violation@n: the leaderboard
    says the numbers are over 1 of the run's 2 profiles, not beside "2"."""
    from fixtures import SHARE

    open_book = small_profile("Ed")
    for c in open_book["contexts"]:
        for k in [k for k in c if k.startswith("labels")]:
            c[k] = {s: SHARE for s in c[k]}
    db = tmp_path / "p.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "p.jsonl", [small_profile("Ann"), open_book]))
        board = lb.entries(store.leaderboard_facts())
        metrics = lb.run_metrics(store, [1], MetricOptions())
    row = lb.table(board, metrics).iloc[0]
    assert row["profiles"] == "1 of 2 scored" and str(row["n"]) == "2"


def _shaped(base, k: int, violation: list[float], completeness: list[float]):
    """``base``'s metrics with these per-profile values and n."""
    names = [f"P{i}" for i in range(len(violation))]
    return replace(
        base,
        k=k,
        violation=summarize(np.array(violation), names),
        completeness=summarize(np.array(completeness), names),
    )


def test_vs_best_compares_violation_only_at_one_n_and_corrects_for_the_runs_shown(board_db):
    with Store.open(board_db, read_only=True) as store:
        base = compute(cube_from_store(store, 1))
    low = [0.02, 0.03, 0.01, 0.02, 0.04, 0.03, 0.02, 0.01, 0.03, 0.02]
    high = [x + 0.2 for x in low]
    same = [x + 0.001 * (-1) ** i for i, x in enumerate(low)]
    comp = [0.5] * 10
    marks = versus_best(
        {
            1: _shaped(base, 5, low, comp),
            2: _shaped(base, 5, high, [x - 0.1 for x in comp]),
            3: _shaped(base, 5, same, comp),
            4: _shaped(base, 1, [0.0] * 10, comp),  # n = 1: lower, but not comparable at n = 5
        }
    )
    assert marks[1].startswith("V best at n=5") and marks[4].startswith("V best at n=1")
    assert marks[2] == "V higher at n=5, C lower"  # ten profiles, every one 20 points apart
    assert marks[3].startswith("V tied at n=5")  # differences of ±0.1 point are noise


def test_vs_bests_p_value_is_the_paired_comparisons(board_db):
    """The marks take the p-value alone (no interval by bisection): the same as `compare`'s."""
    from cimem.analysis.metrics import compare
    from cimem.analysis.versus_best import _p_against

    with Store.open(board_db, read_only=True) as store:
        base = compute(cube_from_store(store, 1))
    rng = np.random.default_rng(3)
    for profiles in (2, 3, 10, 16, 40):
        for _ in range(5):
            a = _shaped(base, 5, list(rng.random(profiles) * 0.3), [0.5] * profiles)
            b = _shaped(base, 5, list(rng.random(profiles) * 0.3 + 0.05), [0.5] * profiles)
            assert _p_against(a, b, "violation") == compare(a, b, "violation").p_value
    one = _shaped(base, 5, [0.1], [0.5])
    assert math.isnan(_p_against(one, one, "violation"))
