"""What the app keeps when another process writes to its database: a new run, or parts added to
one run, leave the other runs' cubes and leaderboard numbers in place (a lab's app stays quick
while a `cimem run` stores its parts); the run that changed is read again."""

from __future__ import annotations

import pytest
from apptest import PAGES, leaderboard, no_exception, open_page

import webapp.cache.cubes as cubes
import webapp.cache.leaderboard as board_numbers
from cimem.ingest import ingest_file
from cimem.judges.base import OfflineJudge, rejudge
from cimem.store import Store

from fixtures import small_profile, write_jsonl


@pytest.fixture
def counted(monkeypatch):
    """The runs whose cube the app read and whose leaderboard numbers it computed."""
    read: list[int] = []
    computed: list[int] = []
    build, numbers = cubes.cube_from_store, board_numbers.run_metrics

    def counting_build(store, run_id, judge_id):
        read.append(run_id)
        return build(store, run_id, judge_id)

    def counting_numbers(store, run_ids, opts):
        computed.extend(run_ids)
        return numbers(store, run_ids, opts)

    monkeypatch.setattr(cubes, "cube_from_store", counting_build)
    monkeypatch.setattr(board_numbers, "run_metrics", counting_numbers)
    return read, computed


def test_a_write_to_one_run_leaves_the_others_numbers(tmp_path, monkeypatch, counted):
    read, computed = counted
    db = tmp_path / "kept.duckdb"
    with Store.open(db) as store:
        for name in ("a", "b", "c"):
            ingest_file(store, write_jsonl(tmp_path / f"{name}.jsonl", [small_profile(name)]))
    at = open_page(str(db), PAGES[0], monkeypatch, runs="1,2")
    no_exception(at)
    assert set(computed) == {3} and set(read) >= {1, 2}  # run 3 is not shown: computed alone
    read.clear(), computed.clear()
    with Store.open(db) as store:  # another process adds a run and a judge of run 2
        ingest_file(store, write_jsonl(tmp_path / "d.jsonl", [small_profile("d")]))
        rejudge(store, 2, OfflineJudge(name="second"))
    at.run()
    no_exception(at)
    assert computed == [4]  # the new run's numbers; runs 1-3 kept theirs
    assert read == [2]  # run 2 holds more verdicts now: read again; run 1 kept
    board = leaderboard(at)
    assert (board["Violation@n %"] != "-").all() and len(board) == 4
