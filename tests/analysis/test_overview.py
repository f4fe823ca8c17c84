"""The Overview table: one row per run, and a fair comparison when runs differ in n or tasks."""

import pytest

from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.metrics import MetricOptions, compute
from cimem.analysis.overview import overview

from fixtures import PRIVATE, SHARE, attribute, profile, write_jsonl


def attrs():
    return {
        "need": attribute("x", "general", "Need."),
        "secret": attribute("y", "health", "Secret."),
    }


def context(i, n, leak_trials):
    return {
        "recipient": f"R{i}",
        "task": f"T{i}",
        "labels": {"need": SHARE, "secret": PRIVATE},
        "trials": [
            ({"need": 1, "secret": int(t in leak_trials)}, {"need": "s"}, f"m{t}") for t in range(n)
        ],
    }


def cube(tmp_path, name, contexts):
    path = write_jsonl(tmp_path / f"{name}.jsonl", [profile("P", attrs(), contexts)])
    return cube_from_official(path)


def test_runs_with_the_same_n_and_tasks_compare_directly(tmp_path):
    a = cube(tmp_path, "a", [context(0, 2, {1}), context(1, 2, set())])
    b = cube(tmp_path, "b", [context(0, 2, set()), context(1, 2, set())])
    opts = MetricOptions(mode="definition")
    ov = overview([a, b], opts)
    assert ov.comparable and ov.common_k == 2 and ov.common_contexts == 2
    assert "compare directly" in ov.note
    assert list(ov.table["run"]) == [compute(a, opts).run, compute(b, opts).run]
    assert list(ov.table["violation_mean"]) == [100.0, 0.0]
    assert list(ov.table["n"]) == [2, 2]
    assert not any(c.endswith("_common") for c in ov.table.columns)
    assert [m.violation.mean for m in ov.metrics] == [1.0, 0.0]


def test_runs_that_differ_are_also_compared_at_a_common_k_over_shared_tasks(tmp_path):
    # a: 4 samples in T0 (leaks once, in the last) and an extra task T9 that always leaks
    a = cube(tmp_path, "a", [context(0, 4, {3}), context(9, 4, {0, 1, 2, 3})])
    b = cube(tmp_path, "b", [context(0, 2, set())])
    ov = overview([a, b], MetricOptions(mode="definition"))
    assert not ov.comparable and ov.common_k == 2 and ov.common_contexts == 1
    assert "k = 2" in ov.note and "1 context they share" in ov.note
    row_a = ov.table.iloc[0]
    assert row_a["violation_mean"] == 100.0  # all samples, all tasks
    # over T0 only, unbiased @2 from 4 samples with one leak: 1 - C(3,2)/C(4,2) = 1/2
    assert row_a["violation_at_2_common"] == pytest.approx(50.0)
    assert ov.table.iloc[1]["violation_at_2_common"] == 0.0
    assert row_a["completeness_common"] == 100.0


def test_overview_says_which_runs_are_simulated_and_their_model(tmp_path):
    a = cube(tmp_path, "a", [context(0, 1, set())])
    ov = overview([a], MetricOptions())
    assert not ov.table.iloc[0]["simulated"]
    assert ov.table.iloc[0]["model"] == ""


def test_the_same_task_of_another_person_is_not_a_shared_context(tmp_path):
    """Two runs of n = 1 over different people with the same recipient and task (their memories
    and labels differ): nothing is shared, and the note does not say they differ in n."""
    a = cube_from_official(
        write_jsonl(tmp_path / "a.jsonl", [profile("Ann", attrs(), [context(0, 1, {0})])])
    )
    b = cube_from_official(
        write_jsonl(tmp_path / "b.jsonl", [profile("Bo", attrs(), [context(0, 1, set())])])
    )
    ov = overview([a, b], MetricOptions(mode="definition"))
    assert not ov.comparable and ov.common is None and ov.common_contexts == 0
    assert "differ in contexts (n = 1 for all)" in ov.note and "differ in n" not in ov.note
    assert "share no context" in ov.note
    same = cube_from_official(
        write_jsonl(
            tmp_path / "c.jsonl",
            [profile("Ann", attrs(), [context(0, 1, set()), context(1, 1, set())])],
        )
    )
    ov = overview([a, same], MetricOptions(mode="definition"))
    assert ov.common_contexts == 1 and "over the 1 context they share" in ov.note
