"""`cimem runs --leaderboard`: every run with its numbers, as JSON and as a table, sorted."""

from __future__ import annotations

import json

import pytest

from cimem.cli.main import main
from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import small_profile, write_jsonl


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "lb.duckdb"
    with Store.open(path) as store:
        for i, model in enumerate(["m-a", "m-b", None]):
            file = write_jsonl(tmp_path / f"r{i}.jsonl", [small_profile(f"P{i}"), small_profile()])
            ingest_file(store, file, model=model)
    return str(path)


def test_leaderboard_json_has_every_run_with_its_numbers(db, capsys):
    assert main(["runs", "--db", db, "--leaderboard", "--json", "--sort", "run"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["mode"] == "official" and doc["verdicts"] == "original"
    assert [r["run_id"] for r in doc["runs"]] == [1, 2, 3]
    assert [r["model"] for r in doc["runs"]] == ["m-a", "m-b", "unknown"]
    assert all(isinstance(r["Violation@n %"], float) for r in doc["runs"])


def test_leaderboard_table_and_sort_needs_it(db, capsys):
    assert main(["runs", "--db", db, "--leaderboard", "--sort", "violation"]) == 0
    out = capsys.readouterr().out
    assert "Violation 95% CI" in out and "3 runs of 2 models (1 with no model recorded)" in out
    assert main(["runs", "--db", db, "--sort", "violation"]) != 0
