"""Moving runs in and out of a lake, and its upkeep: a full-size run with a second judge and
people's verdicts copied from a file into a lake and back into a new file keeps every judge's
numbers and people's history; `export` works on the lake; a lake that a `cimem run` wrote in many
small commits is compacted to fewer files with the same numbers."""

from __future__ import annotations

import json

import pytest
from full_size import fill_sheet, truth_table
from lakes import cimem, numbers

from cimem.store import Store

pytestmark = pytest.mark.slow


def test_runs_copied_into_a_lake_and_back_keep_every_judge_and_reviewer(full_run, lake, tmp_path):
    first = str(full_run.copy_db(tmp_path / "first.duckdb"))
    cimem(first, "judge --run 1 --offline --name offline")
    cimem(first, f"audit-sample --run 1 --judge 1 --size 40 --out {tmp_path / 'sample.csv'}")
    fill_sheet(tmp_path / "sample.csv", truth_table(full_run.truth), {"ana": tmp_path / "a.csv"})
    cimem(first, f"human import {tmp_path / 'a.csv'} --run 1")
    said = cimem(lake, f"copy --from {first}")
    assert "run 1 (full-size judged run) -> run 1: 2,450 messages" in said and "3 judges" in said
    back = str(tmp_path / "back.duckdb")
    cimem(back, f"copy --from '{lake}'")
    assert numbers(first) == numbers(lake) == numbers(back)
    with Store.open(first, read_only=True) as a, Store.open(back, read_only=True) as b:
        history = [
            (h.reviewer, h.revealed, h.current)
            for h in a.human_verdicts(a.find_human_judge(1), history=True)
        ]
        copied = [
            (h.reviewer, h.revealed, h.current)
            for h in b.human_verdicts(b.find_human_judge(1), history=True)
        ]
        assert history == copied and len(history) > 0
    cimem(lake, f"export --run 1 --out {tmp_path / 'out.jsonl'}")
    cimem(
        str(tmp_path / "again.duckdb"),
        f"ingest {tmp_path / 'out.jsonl'} --name 'full-size judged run'",
    )
    assert (
        numbers(str(tmp_path / "again.duckdb"))["full-size judged run / original verdicts"]
        == numbers(first)["full-size judged run / original verdicts"]
    )


def test_a_lake_written_in_small_commits_is_compacted_with_the_same_numbers(full_run, lake):
    cimem(lake, f"ingest {full_run.judged} --name judged")
    for _ in range(3):  # each judge's commit writes files of its own
        cimem(lake, "judge --run judged --offline")
    before = numbers(lake)
    said = cimem(lake, "compact --keep-days 0")
    files = [int(n) for n in said.split(": ", 1)[1].split(" data files")[0].split(" -> ")]
    assert files[1] < files[0], said
    assert numbers(lake) == before
    runs = json.loads(cimem(lake, "runs --json"))
    assert [r["judges"] for r in runs] == [4]
