"""Figure 1 of the paper as a table of reveals, one row per (task, attribute) and one R column per
sample, and the rows :func:`cimem.demo.teaching.worked_case` works through. A teaching case is a
mapping with ``recipient``, ``task``, ``needed``, ``withheld`` (and, for the paper's, ``revealed``),
as :data:`cimem.demo.teaching.FIGURE1` is."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

import pandas as pd

SAMPLES = ("sample 1", "sample 2", "sample 3")

# INVENTED for practice (not from the paper): what samples 2 and 3 of the paper's task reveal,
# and what the three samples of the invented second task reveal.
INVENTED_PAPER_SAMPLES: tuple[tuple[str, ...], ...] = (("age", "income"), ("income",))
INVENTED_TASK_SAMPLES: tuple[tuple[str, ...], ...] = (
    ("age",),
    ("age", "employment status"),
    ("age", "income"),
)


def task_rows(
    case: Mapping[str, Any], source: str, reveals: Sequence[Collection[str]]
) -> list[dict[str, object]]:
    """One row per attribute of ``case``, needed first, then withheld: where it comes from
    (``source``), its task, its label, and per sample whether it was revealed (``reveals``: the
    attributes each sample revealed; samples past them reveal nothing).

    >>> case = {"recipient": "Bank", "task": "Loan", "needed": ["income"], "withheld": ["age"]}
    >>> [(r["attribute"], r["label"], r["sample 1"], r["sample 2"])
    ...  for r in task_rows(case, "paper", [["age"]])]
    [('income', 'needed', False, False), ('age', 'withheld', True, False)]
    """
    needed = list(case["needed"])
    return [
        {
            "source": source,
            "task": f"{case['recipient']}: {case['task']}",
            "attribute": a,
            "label": "needed" if a in needed else "withheld",
            **{s: i < len(reveals) and a in reveals[i] for i, s in enumerate(SAMPLES)},
        }
        for a in [*needed, *case["withheld"]]
    ]


def figure1_rows(
    paper: Mapping[str, Any], invented: Mapping[str, Any], extended: bool
) -> pd.DataFrame:
    """The paper's case (one task, one sample: what its judge found) and, when ``extended``,
    INVENTED practice: two more samples of the paper's task and a second task, so the maximum
    over tasks and samples has something to do."""
    paper_samples = [paper["revealed"], *(INVENTED_PAPER_SAMPLES if extended else ())]
    rows = task_rows(paper, "paper", paper_samples)
    if extended:
        rows += task_rows(invented, "INVENTED", INVENTED_TASK_SAMPLES)
    return pd.DataFrame(rows)


def shown_reveals(rows: pd.DataFrame, samples: Sequence[str]) -> pd.DataFrame:
    """The reveal table as the page shows it: each sample's R as 0 or 1, headed "R, <sample>"."""
    shown = rows[["source", "task", "attribute", "label", *samples]]
    return shown.astype({s: int for s in samples}).rename(columns={s: f"R, {s}" for s in samples})


def worked_rows(rows: pd.DataFrame, samples: Sequence[str]) -> list[dict[str, Any]]:
    """The table's rows as :func:`cimem.demo.teaching.worked_case` reads them: attribute, task,
    label and R, one 0/1 per sample."""
    return [
        {
            "attribute": r["attribute"],
            "task": r["task"],
            "label": "needed" if "needed" in r["label"] else "withheld",
            "R": [int(r[s]) for s in samples],
        }
        for r in rows.to_dict("records")
    ]


def withheld_reveals(rows: Sequence[Mapping[str, Any]], attribute: str) -> list[int]:
    """Every R of ``attribute`` where it is withheld, task after task and sample after sample:
    the values its Violation is the maximum of.

    >>> withheld_reveals([{"attribute": "age", "label": "withheld", "R": [0, 1]},
    ...                   {"attribute": "age", "label": "needed", "R": [1, 1]}], "age")
    [0, 1]
    """
    return [
        int(v)
        for r in rows
        if r["attribute"] == attribute and r["label"] == "withheld"
        for v in r["R"]
    ]
