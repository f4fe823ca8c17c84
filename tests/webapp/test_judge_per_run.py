"""A judge per selected run: the link names each run's judge, the sidebar offers a picker for
every run with several judges, and Overview computes each run under its own."""

from apptest import PAGES, no_exception, open_page

from cimem.store import Store

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
