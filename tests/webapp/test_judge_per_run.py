"""A judge per selected run: the link names each run's judge, the sidebar offers a picker for
every run with several judges, and Overview computes each run under its own."""

import pytest
from apptest import PAGES, no_exception, open_page

from cimem.store import Store

from conftest import shared_file
from fixtures import overview_tables


def simulator_of(db: str, run: int) -> int:
    with Store.open(db, read_only=True) as store:
        return next(j.judge_id for j in store.judges(run) if j.kind == "simulator")


def test_each_run_under_the_judge_the_link_names(demo_db, monkeypatch):
    second = simulator_of(demo_db, 2)
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,2", judges=f"2:{second}")
    no_exception(at)
    pickers = {s.key: s.value for s in at.selectbox if s.key and s.key.startswith("judge")}
    assert pickers == {"judge": None, "judge_2": second}
    more = overview_tables(at)[1].set_index("run")
    judges = {run.split(":")[0]: judge for run, judge in more["judge"].items()}
    assert "simulator" in judges["2"] and "simulator" not in judges["1"]
    assert at.query_params["judges"] == f"2:{second}"


def test_an_older_link_with_judge_still_names_the_first_runs(demo_db, monkeypatch):
    first = simulator_of(demo_db, 1)
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,2", judge=str(first))
    no_exception(at)
    assert next(s.value for s in at.selectbox if s.key == "judge") == first
    assert at.query_params["judges"] == f"1:{first}" and "judge" not in at.query_params


def test_a_judge_chosen_for_another_run_reaches_the_link(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,3")
    third = simulator_of(demo_db, 3)
    next(s for s in at.selectbox if s.key == "judge_3").set_value(third)
    at.run()
    no_exception(at)
    assert at.query_params["judges"] == f"3:{third}"


def test_a_run_named_twice_in_the_link_is_selected_once(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,1,1,2")
    no_exception(at)
    assert at.query_params["runs"] == "1,2"
    assert list(overview_tables(at)[0]["run"].str.split(":").str[0]) == ["1", "2"]


def test_the_same_run_under_two_judges_is_two_named_rows(demo_db, monkeypatch):
    """Run 1 under its simulator judge and, asked by the link, again under its original
    verdicts: two rows, each named by its judge, each with that judge's numbers (those of
    ``cimem metrics --judge``); Growth draws both; a link naming a judge of no selected run
    shows nothing more."""
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.metrics import compute

    sim = simulator_of(demo_db, 1)
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,2", judges=f"1:{sim}", also="1:0")
    no_exception(at)
    assert next(m for m in at.multiselect if m.key == "also").value == ["1:0"]
    table = overview_tables(at)[0]
    names = table["run"].tolist()
    assert len(names) == 3 and names[0].endswith(f"· judge {sim}: simulator ground truth")
    assert names[2].endswith("· original verdicts") and "·" not in names[1]
    with Store.open(demo_db, read_only=True) as store:
        want = [compute(cube_from_store(store, 1, j)).violation.mean for j in (sim, None)]
    shown = [float(table["Violation@n %"][i]) for i in (0, 2)]
    assert shown == [round(100 * w, 2) for w in want] and want[0] != want[1]
    assert at.query_params["also"] == "1:0"
    at.switch_page(PAGES[2]).run()  # Growth
    no_exception(at)
    assert "3 runs" in " ".join(c.value for c in at.caption)
    for hostile in ("abc", "1:999", "3:1", "1:0:0,,"):
        at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,2", also=hostile)
        no_exception(at)
        assert len(overview_tables(at)[0]) == 2 and "also" not in at.query_params


def test_a_link_naming_unknown_runs_says_so(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="2,999,abc")
    no_exception(at)
    said = " ".join(c.value for c in at.sidebar.caption)
    assert "no messages for (999, abc): left out" in said
    assert at.query_params["runs"] == "2"


@pytest.mark.parametrize("name", ["results_sample.jsonl", "persistbench_llama33_jeffery_day.json"])
def test_a_real_run_under_two_judges(tmp_path, monkeypatch, name):
    """Each real file, re-judged offline, shown under both judges: two named rows on Overview,
    and Growth draws both (PersistBench: n = 1, one profile)."""
    from cimem.ingest import ingest_file
    from cimem.judges.base import OfflineJudge, rejudge

    db = tmp_path / "real.duckdb"
    with Store.open(db) as store:
        ingest_file(store, shared_file(name))
        again = rejudge(store, 1, OfflineJudge()).judge_id
    at = open_page(str(db), PAGES[0], monkeypatch, runs="1", also=f"1:{again}")
    no_exception(at)
    names = overview_tables(at)[0]["run"].tolist()
    assert len(names) == 2 and names[0].endswith("· original verdicts")
    assert f"· judge {again}:" in names[1]
    at.switch_page(PAGES[2]).run()
    no_exception(at)
