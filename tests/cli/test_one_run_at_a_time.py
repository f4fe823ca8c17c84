"""`metrics`, `labels sensitivity`, `report` and the leaderboard over every run of a database hold one run's cube
at a time: its memory stays flat
in the number of runs stored (bench/many_runs.py measures it), and its numbers are those of
each run computed alone."""

from __future__ import annotations

import gc
import json
import weakref

import pytest

from cimem.analysis import cube as cube_module
from cimem.analysis import leaderboard
from cimem.cli import labels, sources
from cimem.cli.main import main
from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import small_profile, write_jsonl

RUNS = 5


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "many.duckdb"
    with Store.open(path) as store:
        for i in range(RUNS):
            people = [small_profile(f"P{i}"), small_profile()]
            ingest_file(store, write_jsonl(tmp_path / f"r{i}.jsonl", people), model=f"m-{i}")
    return str(path)


@pytest.fixture
def alive_at_each_read(monkeypatch) -> list[int]:
    """How many cubes read earlier are still referenced when the next one is read."""
    made: list[weakref.ref] = []
    counts: list[int] = []
    real = cube_module.cube_from_store

    def counting(*args, **kwargs):
        gc.collect()
        counts.append(sum(1 for ref in made if ref() is not None))
        cube = real(*args, **kwargs)
        made.append(weakref.ref(cube))
        return cube

    for module in (sources, labels, leaderboard):
        monkeypatch.setattr(module, "cube_from_store", counting)
    return counts


@pytest.mark.parametrize("mode", ["official", "both"])
def test_metrics_over_every_run_reads_one_cube_at_a_time(db, alive_at_each_read, capsys, mode):
    assert main(["metrics", "--db", db, "--json", "--mode", mode]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert alive_at_each_read == [0] * RUNS
    for one in doc if isinstance(doc, list) else [doc]:
        assert len(one["runs"]) == RUNS
        assert len(one["run_pairs"]) == RUNS * (RUNS - 1) // 2


def test_every_run_at_once_equals_each_run_alone(db, capsys):
    assert main(["metrics", "--db", db, "--json", "--mode", "both"]) == 0
    together = json.loads(capsys.readouterr().out)
    for i in range(RUNS):
        assert main(["metrics", "--db", db, "--json", "--mode", "both", "--run", str(i + 1)]) == 0
        alone = json.loads(capsys.readouterr().out)
        for whole, single in zip(together, alone):
            assert whole["runs"][i] == single["runs"][0]


def test_runs_named_apart_by_people_are_noted_and_paired(db, capsys):
    """Runs 1 and 2 ran on different people: the cohort note and the pairs still name them."""
    assert main(["metrics", "--db", db, "--json", "--run", "1", "--run", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "2 different sets of people" in doc["cohort_note"]
    [pair] = doc["run_pairs"]
    assert (pair["run_a"], pair["run_b"]) == (doc["runs"][0]["run"], doc["runs"][1]["run"])


def test_corrected_by_still_names_one_run(db, capsys):
    assert main(["metrics", "--db", db, "--corrected-by", "people"]) != 0
    assert "give one --run" in capsys.readouterr().err


def test_labels_sensitivity_over_every_run_reads_one_cube_at_a_time(db, alive_at_each_read, capsys):
    assert main(["labels", "sensitivity", "--db", db, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert alive_at_each_read == [0] * RUNS
    assert len(doc["judges"]) == RUNS and "different sets of people" in doc["cohort_note"]
    official = [r for r in doc["results"] if r["scheme"] == doc["baseline"]]
    assert len(official) == RUNS


def test_report_over_every_run_reads_one_cube_at_a_time(db, alive_at_each_read, tmp_path, capsys):
    """The runs ran on different people who share one (Ada): the common columns read each run
    a second time, still one at a time."""
    out = tmp_path / "report.md"
    assert main(["report", "--db", db, "--out", str(out), "--format", "md"]) == 0
    assert f"{RUNS} runs" in capsys.readouterr().out
    assert alive_at_each_read == [0] * 2 * RUNS
    text = out.read_text()
    assert "shared contexts" in text and all(f"m-{i}" in text for i in range(RUNS))


def test_the_leaderboard_reads_one_cube_at_a_time(db, alive_at_each_read, capsys):
    assert main(["runs", "--db", db, "--leaderboard", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["runs"]) == RUNS
    assert alive_at_each_read == [0] * RUNS
