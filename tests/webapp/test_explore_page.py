"""The Explore page on the demo: a cell answers a question as a table with a quick chart; an
attack is refused in one line; leak_cells is the sidebar's run's; cells come from and go to the
link; the views are listed when opened."""

from apptest import APP, no_exception
from streamlit.testing.v1 import AppTest

EXPLORE = "webapp/pages/explore.py"


def open_explore(db: str, monkeypatch, **params) -> AppTest:
    monkeypatch.setenv("CIMEM_DB", db)
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    at.switch_page(EXPLORE)
    at.run()
    return at


def run_cell(at: AppTest, i: int, sql: str) -> AppTest:
    at.text_area[i].set_value(sql)
    next(b for b in at.button if b.label == "Run" and b.key.startswith("explore_run")).click()
    return at.run()


def test_a_cell_answers_with_a_table_and_a_chart(demo_db, monkeypatch):
    at = open_explore(demo_db, monkeypatch)
    no_exception(at)
    assert at.title[0].value == "Explore" and len(at.text_area) == 1
    assert any("SIMULATED data" in w.value for w in at.warning)  # the demo's runs
    run_cell(at, 0, at.text_area[0].value)  # the example: messages per run
    no_exception(at)
    (frame,) = [d.value for d in at.dataframe]
    assert list(frame.columns) == ["run", "messages"] and len(frame) == 3
    assert any("3 rows" in c.value for c in at.caption)
    (chart,) = at.get("vega_lite_chart")
    assert "messages" in chart.proto.spec  # the y axis is named by its column


def test_an_attack_is_refused_in_one_line(demo_db, monkeypatch):
    at = open_explore(demo_db, monkeypatch)
    run_cell(at, 0, "SELECT * FROM read_csv('/etc/passwd')")
    no_exception(at)
    assert len(at.error) == 1 and "table functions" in at.error[0].value
    assert not at.dataframe


def test_leak_cells_are_the_sidebars_run(demo_db, monkeypatch):
    at = open_explore(demo_db, monkeypatch, runs="2")
    run_cell(at, 0, "SELECT count(*) AS cells, sum(leaks) AS leaks FROM leak_cells")
    no_exception(at)
    from cimem.analysis.breakdowns import pair_table
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.metrics import MetricOptions
    from cimem.store import Store

    with Store.open(demo_db, read_only=True) as store:
        want = pair_table(cube_from_store(store, 2), MetricOptions())
    (frame,) = [d.value for d in at.dataframe]
    assert (frame["cells"][0], frame["leaks"][0]) == (len(want), want["leaks"].sum())


def test_cells_come_from_the_link_and_are_shared_back(demo_db, monkeypatch):
    at = open_explore(demo_db, monkeypatch, sql=["SELECT 1 AS one", "SELECT 2 AS two"])
    assert [t.value for t in at.text_area] == ["SELECT 1 AS one", "SELECT 2 AS two"]
    at.text_area[1].set_value("SELECT 3 AS three")
    next(b for b in at.button if b.key == "explore_share").click()
    at.run()
    assert at.query_params["sql"] == ["SELECT 1 AS one", "SELECT 3 AS three"]


def test_the_views_are_listed_when_opened(demo_db, monkeypatch):
    from fixtures import shown_tables

    at = open_explore(demo_db, monkeypatch)
    assert not [t for t in shown_tables(at) if "view" in t.columns]
    at.session_state["explore_views"] = True  # what opening it does
    at.run()
    no_exception(at)
    (views,) = [t for t in shown_tables(at) if "view" in t.columns]
    assert {"runs", "messages", "verdicts", "labels", "human_verdicts"} <= set(views["view"])
    assert "source_file" in views.set_index("view").loc["runs", "columns"]


def test_a_typed_cell_and_its_result_survive_another_page(demo_db, monkeypatch):
    at = open_explore(demo_db, monkeypatch)
    run_cell(at, 0, "SELECT 'edited' AS what, 42 AS answer")
    at.switch_page("webapp/pages/leaks.py")
    at.run()
    at.switch_page(EXPLORE)
    at.run()
    no_exception(at)
    assert at.text_area[0].value == "SELECT 'edited' AS what, 42 AS answer"
    (frame,) = [d.value for d in at.dataframe]
    assert list(frame.columns) == ["what", "answer"]


def test_a_result_too_large_to_draw_and_show_are_refused_in_one_line(demo_db, monkeypatch):
    at = open_explore(demo_db, monkeypatch)
    run_cell(at, 0, "SELECT repeat('x', 100000) AS s FROM range(10001)")
    no_exception(at)
    assert len(at.error) == 1 and "passes 20 MB" in at.error[0].value
    run_cell(at, 0, "SHOW ALL TABLES")
    assert len(at.error) == 1 and "SHOW, DESCRIBE and SUMMARIZE are not run" in at.error[0].value


def test_the_quick_chart_keeps_the_querys_order_and_a_wrong_name_lists_every_view(
    demo_db, monkeypatch
):
    """A chart of rows ORDER BY a count, descending: the bars keep that order (not the labels'
    alphabet); a table the query names wrongly gets the views listed, leak_cells among them."""
    import json

    at = open_explore(demo_db, monkeypatch)
    run_cell(at, 0, "SELECT name, n_trials * 0 + run_id AS k FROM runs ORDER BY k DESC")
    no_exception(at)
    (chart,) = at.get("vega_lite_chart")
    spec = json.loads(chart.proto.spec)
    assert spec["encoding"]["x"].get("sort", "missing") is None  # the data's own order
    run_cell(at, 0, "SELECT * FROM leak_cell")
    assert len(at.error) == 1 and "leak_cells" in at.error[0].value.replace("\\", "")


def test_explore_reads_a_lakes_data_and_never_shows_its_folder(lake, tmp_path, monkeypatch):
    """On a lake, a cell reads the views' data (the lake's Parquet files), as on a file."""
    import subprocess
    import sys

    from cimem.store.location import parse_lake

    from conftest import REPO
    from fixtures import small_profile, write_jsonl

    source = write_jsonl(tmp_path / "a.jsonl", [small_profile("Ada")])
    args = [sys.executable, "-m", "cimem", "ingest", str(source), "--db", lake]
    assert subprocess.run(args, cwd=REPO, capture_output=True).returncode == 0
    at = open_explore(lake, monkeypatch)
    run_cell(at, 0, "SELECT count(*) AS verdicts, count(DISTINCT message_id) AS m FROM verdicts")
    no_exception(at)
    assert not at.error, [e.value for e in at.error]
    (frame,) = [d.value for d in at.dataframe]
    assert frame["verdicts"].iloc[0] > 0 and frame["m"].iloc[0] > 0
    folder = str(parse_lake(lake).data_path)
    run_cell(at, 0, "SELECT * FROM verdicts WHERE no_such_column = 1")
    assert len(at.error) == 1 and folder not in at.error[0].value
