"""Figure 1 as the Learn page tabulates it: the paper's case is exactly what the paper says (one
task, one sample, age, income and hypertension revealed), the practice rows are marked
INVENTED, and the worked rows give the paper's numbers."""

import doctest

import pandas as pd
import pytest

from cimem.analysis.learn import figure1
from cimem.analysis.learn.figure1 import (
    SAMPLES,
    figure1_rows,
    shown_reveals,
    task_rows,
    withheld_reveals,
    worked_rows,
)
from cimem.demo.teaching import FIGURE1, INVENTED_TASK, worked_case


def test_the_papers_case_alone_is_one_task_with_one_sample():
    rows = figure1_rows(FIGURE1, INVENTED_TASK, extended=False)
    assert set(rows["source"]) == {"paper"}
    assert list(rows["attribute"]) == ["age", "income", "employment status", "hypertension"]
    assert list(rows["label"]) == ["needed"] * 3 + ["withheld"]
    assert list(rows["sample 1"]) == [True, True, False, True]
    assert not rows["sample 2"].any() and not rows["sample 3"].any()
    assert set(rows["task"]) == {"Financial advisor: Investment planning"}


def test_the_papers_numbers_come_out_of_the_worked_rows():
    rows = figure1_rows(FIGURE1, INVENTED_TASK, extended=False)
    case = worked_case(worked_rows(rows, ["sample 1"]), 1)
    assert case.violation == 1.0
    assert case.completeness == pytest.approx(2 / 3)


def test_the_practice_rows_add_an_invented_task_and_two_samples():
    rows = figure1_rows(FIGURE1, INVENTED_TASK, extended=True)
    paper, invented = rows[rows["source"] == "paper"], rows[rows["source"] == "INVENTED"]
    assert list(paper["sample 1"]) == [True, True, False, True]  # still the paper's
    assert list(paper["sample 2"]) == [True, True, False, False]
    assert list(paper["sample 3"]) == [False, True, False, False]
    assert list(invented["attribute"]) == ["age", "employment status", "income", "hypertension"]
    by_sample = {s: set(invented.loc[invented[s], "attribute"]) for s in SAMPLES}
    assert by_sample == {
        "sample 1": {"age"},
        "sample 2": {"age", "employment status"},
        "sample 3": {"age", "income"},
    }
    case = worked_case(worked_rows(rows, list(SAMPLES)), 3)
    # hypertension (withheld in both tasks) leaked in the paper's sample 1, income (withheld in
    # the invented task only) in its sample 3
    assert case.violation == 1.0
    assert [a for a, *_ in case.per_attribute] == ["hypertension", "income"]


def test_no_withheld_attribute_of_the_practice_is_one_the_identity_filter_drops():
    """The page explains official mode's identity filter below the practice: the practice must
    not count as violated an attribute that filter would drop."""
    from cimem.analysis.options import identity_filtered

    withheld = [*FIGURE1.get("withheld", []), *INVENTED_TASK.get("withheld", [])]
    assert withheld and not [k for k in withheld if identity_filtered(k.replace(" ", "_"))]


def test_the_shown_table_has_r_as_0_or_1_under_named_columns():
    rows = figure1_rows(FIGURE1, INVENTED_TASK, extended=False)
    shown = shown_reveals(rows, ["sample 1"])
    assert list(shown.columns) == ["source", "task", "attribute", "label", "R, sample 1"]
    assert list(shown["R, sample 1"]) == [1, 1, 0, 1]
    assert "sample 2" not in shown and rows["sample 1"].dtype == bool  # the rows left as they were


def test_an_attributes_withheld_reveals_skip_the_tasks_that_need_it():
    frame = pd.DataFrame(
        task_rows(
            {
                "recipient": "Landlord",
                "task": "Lease",
                "needed": ["income", "employment status"],
                "withheld": ["age", "hypertension"],
            },
            "INVENTED",
            [["age"], [], ["income"]],
        )
        + task_rows(
            {"recipient": "Bank", "task": "Loan", "needed": ["income"], "withheld": ["age"]},
            "INVENTED",
            [["age"]],
        )
    )
    rows = worked_rows(frame, list(SAMPLES))
    assert withheld_reveals(rows, "age") == [1, 0, 0, 1, 0, 0]
    assert withheld_reveals(rows, "income") == []  # needed in both tasks


def test_the_modules_examples_hold():
    assert doctest.testmod(figure1).failed == 0
