"""A model's privacy-utility curve across prompt levels, and the area it dominates."""

from __future__ import annotations

import shutil
from dataclasses import replace

import pytest
from apptest import PAGES, no_exception, open_page

from cimem.analysis.cube import cube_from_store
from cimem.analysis.level_curves import cohort_note, dominated_area, level_curves, profile_set
from cimem.analysis.metrics import MetricOptions, compute
from cimem.store import Store

from fixtures import shown_tables


def test_the_area_counts_what_some_level_beats_on_both():
    assert dominated_area([]) == 0
    assert dominated_area([(1.0, 1.0)]) == 1  # leaks nothing, includes everything
    worse = dominated_area([(0.6, 0.6), (0.5, 0.5)])  # the second is beaten on both
    assert worse == pytest.approx(0.36) == dominated_area([(0.6, 0.6)])
    assert dominated_area([(0.6, 0.6), (0.9, 0.2)]) == pytest.approx(0.36 + 0.3 * 0.2)


@pytest.fixture(scope="module")
def demo_cubes(demo_db):
    with Store.open(demo_db, read_only=True) as store:
        return [cube_from_store(store, r.run_id) for r in store.list_runs()]


def test_runs_of_one_model_at_several_levels_make_one_curve(demo_cubes):
    opts = MetricOptions()
    metrics = [compute(c, opts) for c in demo_cubes]
    leveled = [
        replace(c, info=replace(c.info, model="m", level=level))
        for c, level in zip(demo_cubes, (3, 1, 2))
    ]
    (curve,) = level_curves(leveled, metrics)
    assert [p.level for p in curve.points] == [1, 2, 3]
    assert curve.profile_set == profile_set(demo_cubes[0])
    points = [(1 - m.violation.mean, m.completeness.mean) for m in metrics]
    assert curve.area == pytest.approx(dominated_area(points)) and 0 < curve.area < 1
    # one level only, or no model: no curve
    assert level_curves(leveled[:1], metrics[:1]) == []
    assert level_curves(demo_cubes, metrics) == []  # the demo's runs carry no level


def test_overview_shows_the_curve(demo_db, tmp_path, monkeypatch):
    db = tmp_path / "levels.duckdb"
    shutil.copy(demo_db, db)
    with Store.open(db) as store:
        for run, level in ((1, 1), (2, 2), (3, 3)):
            store.con.execute(
                "UPDATE runs SET model = 'one-model', level = ? WHERE run_id = ?", [level, run]
            )
    at = open_page(str(db), PAGES[0], monkeypatch, runs="1,2,3")
    no_exception(at)
    assert "Privacy and utility across prompt levels" in [h.value for h in at.subheader]
    table = next(t for t in shown_tables(at) if "dominated area %" in t.columns)
    assert list(table["model"]) == ["one-model"] and table["levels"][0] == "1, 2, 3"
    assert table["Violation@n % by level"][0].count("→") == 2


def test_runs_on_different_people_are_said_to_be(demo_cubes, tmp_path, monkeypatch, capsys):
    from cimem.cli.main import main
    from cimem.ingest import ingest_file

    from conftest import shared_file

    assert cohort_note(demo_cubes) is None  # the demo's runs share their ten people
    db = tmp_path / "two.duckdb"
    with Store.open(db) as store:
        for name in ("results_sample.jsonl", "persistbench_llama33_jeffery_day.json"):
            ingest_file(store, shared_file(name))
    capsys.readouterr()
    assert main(["metrics", "--db", str(db), "--run", "1", "--run", "2"]) == 0
    said = capsys.readouterr().out
    assert "note: these runs ran on 2 different sets of people" in said
    at = open_page(str(db), PAGES[0], monkeypatch, runs="1,2")
    no_exception(at)
    assert any("2 different sets of people" in w.value for w in at.warning)
