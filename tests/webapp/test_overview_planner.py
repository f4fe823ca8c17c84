"""Overview's planning panel: the plan ``cimem plan`` prints for the same pilots, changed by its
inputs without an exception, and a run of one profile told it cannot plan."""

from __future__ import annotations

from apptest import PAGES, no_exception, open_page

from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import compute
from cimem.analysis.planner import plan, plan_frame, tasks_of
from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import shown_tables, small_profile, write_jsonl


def planned(db: str, runs: list[int], difference: float, margin: float):
    with Store.open(db, read_only=True) as store:
        cubes = [cube_from_store(store, r) for r in runs]
    metrics = [compute(c) for c in cubes]
    b = metrics[1] if len(metrics) > 1 else None
    plans = plan(metrics[0], b, difference / 100, margin / 100)
    return plan_frame(plans, difference, margin, tasks_of(cubes[0]), metrics[0].n_trials)


def plan_table(at):
    return next(t for t in shown_tables(at) if "pilot profiles" in t.columns)


def test_the_panel_shows_the_commands_plan_and_follows_its_inputs(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,2")
    no_exception(at)
    expected = planned(demo_db, [1, 2], 5.0, 5.0).astype(str)
    assert plan_table(at).astype(str).values.tolist() == expected.values.tolist()
    at.number_input(key="plan_difference").set_value(10.0).run()
    no_exception(at)
    shown = plan_table(at)
    assert "profiles for 10 pts (80% power)" in shown.columns
    assert (
        shown.astype(str).values.tolist()
        == planned(demo_db, [1, 2], 10.0, 5.0).astype(str).values.tolist()
    )


def test_one_profile_is_told_it_cannot_plan(tmp_path, monkeypatch):
    db = tmp_path / "one.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "one.jsonl", [small_profile("A")]))
    at = open_page(str(db), PAGES[0], monkeypatch)
    no_exception(at)
    assert any("Select a run of two or more profiles" in c.value for c in at.caption)


def test_growth_says_the_end_points_interval_as_metrics_has_it(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[2], monkeypatch, runs="1")
    no_exception(at)
    with Store.open(demo_db, read_only=True) as store:
        lo, hi = compute(cube_from_store(store, 1)).violation.ci95
    said = [m.value for m in at.markdown if m.value.startswith("At all tasks and all samples")]
    assert said and f"[{100 * lo:.2f}, {100 * hi:.2f}]" in said[0]
