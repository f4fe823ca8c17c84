"""Every page renders on the demo data and on an empty database, and its main widgets change what
is shown (streamlit.testing AppTest)."""

import json

import pytest
from apptest import PAGES, TITLES, no_exception, open_page

from cimem.analysis.composition import composition_curve
from cimem.ingest import ingest_file
from cimem.store import Store
from webapp.charts import linechart

from fixtures import overview_tables, shown_tables, small_profile, write_jsonl


@pytest.mark.parametrize("page,title", list(zip(PAGES, TITLES)))
def test_pages_render_on_demo(demo_db, monkeypatch, page, title):
    at = open_page(demo_db, page, monkeypatch)
    no_exception(at)
    assert at.title[0].value == title
    if page not in ("webapp/pages/learn.py", "webapp/pages/data.py"):
        assert any("SIMULATED" in w.value for w in at.warning)


@pytest.mark.parametrize("page,title", list(zip(PAGES, TITLES)))
def test_pages_render_on_empty_database(empty_db, monkeypatch, page, title):
    at = open_page(empty_db, page, monkeypatch)
    no_exception(at)
    assert at.title[0].value == title
    if page not in ("webapp/pages/learn.py",):
        text = " ".join(i.value for i in at.info)
        assert "run" in text.lower() or "import" in text.lower()


def test_overview_mode_from_a_shared_link_changes_numbers(demo_db, monkeypatch):
    # the sidebar's choices live in the URL: a link with ?mode=definition opens that view
    at = open_page(demo_db, PAGES[0], monkeypatch)
    before = overview_tables(at)[0]["Violation@n %"].tolist()
    assert "mode **official**" in at.caption[0].value
    link = open_page(demo_db, PAGES[0], monkeypatch, mode="definition", runs="1,3")
    no_exception(link)
    assert "mode **definition**" in link.caption[0].value
    after = overview_tables(link)[0]
    assert len(after) == 2 and after["Violation@n %"].tolist() != [before[0], before[2]]


def test_label_rule_from_link(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch, rule="majority")
    no_exception(at)
    assert "label rule **majority**" in at.caption[0].value


@pytest.mark.filterwarnings("error::pandas.errors.PandasChangeWarning")
def test_overview_table_with_a_missing_number_renders_without_pandas_warnings(
    tmp_path, monkeypatch
):
    # a run of one profile has no spread: its std cells are missing next to another run's numbers,
    # and the LaTeX table writes them as "-" (a warning, turned into an error here, would show as an
    # exception on the page)
    db = tmp_path / "spread.duckdb"
    with Store.open(db) as s:
        ingest_file(s, write_jsonl(tmp_path / "one.jsonl", [small_profile("Ada")]), name="one")
        two = [small_profile("Bo"), small_profile("Cy")]
        ingest_file(s, write_jsonl(tmp_path / "two.jsonl", two), name="two")
    at = open_page(str(db), PAGES[0], monkeypatch, runs="1,2")
    no_exception(at)
    assert "Table as LaTeX (booktabs)" in [b.label for b in at.get("download_button")]


def test_leaks_profile_filter(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[1], monkeypatch)
    name = at.multiselect(key="f_profile").options[0]
    at.multiselect(key="f_profile").set_value([name]).run()
    no_exception(at)
    attrs = shown_tables(at)[0]  # the attributes leaked most
    assert set(attrs["profile"]) == {name}


def test_growth_order_switch(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[2], monkeypatch)
    at.radio(key="order").set_value("fixed").run()
    no_exception(at)
    assert any("order **fixed**" in c.value for c in at.caption)


def test_audit_message_from_link_and_live_rejudge(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[3], monkeypatch, message="2")
    no_exception(at)
    assert any("Message 2" in m.value for m in at.markdown)
    at.button(key="run_live").click().run()  # with the offline judge
    no_exception(at)
    assert any("status ok" in c.value for c in at.caption)


def test_learn_simulator_is_folded_then_reacts(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[4], monkeypatch)
    simulated = lambda: [m.value for m in at.metric if m.label == "simulated Violation"]  # noqa: E731
    # folded on first load (its sliders and charts cost the page's first load most of its time)
    assert [e for e in at.expander if e.label == "Open the simulator"] and not simulated()
    assert not at.get("vega_lite_chart")
    at.session_state["learn_sim"] = True  # what opening it does
    at.run()
    no_exception(at)
    # both charts drawn in the page: opening it loads no chart library
    assert not at.get("vega_lite_chart")
    chances, curves = [
        json.loads(c.proto.json)
        for c in at.get("bidi_component")
        if c.proto.component_name.endswith(linechart.NAME)
    ]
    assert sum(y for _, y, _ in chances["series"][0][2]) == pytest.approx(100)  # every attribute
    # the simulation is drawn last (solid), over the formulas that often lie on it
    legend = [name for name, _ in curves["colours"]]
    assert legend[0] == "simulated" and curves["series"][-1][:2] == [0, 0]
    assert len(curves["series"]) == 3 and curves["y"]["top"] == 100
    before = simulated()
    at.slider(key="sim_p").set_value(0.1).run()
    no_exception(at)
    assert simulated() != before and len(before) == 1


def test_data_import_by_path(empty_db, monkeypatch, tmp_path):
    src = write_jsonl(tmp_path / "r.jsonl", [small_profile("Ada")])
    at = open_page(empty_db, PAGES[5], monkeypatch)
    at.text_input(key="server_path").set_value(str(src)).run()
    at.button(key="import").click().run()
    no_exception(at)
    assert any("Run 1" in s.value for s in at.success)
    with Store.open(empty_db) as s:  # same configuration as the app's open connection
        assert [r.name for r in s.list_runs()] == ["r"]


def test_data_import_error_is_shown(empty_db, monkeypatch, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    at = open_page(empty_db, PAGES[5], monkeypatch)
    at.text_input(key="server_path").set_value(str(bad)).run()
    at.button(key="import").click().run()
    no_exception(at)
    assert any("nothing was written" in e.value for e in at.error)


def test_untrusted_message_is_escaped(tmp_path, monkeypatch):
    obj = small_profile("Eve")
    trial = obj["contexts"][0]["combination_num_to_share=3_num_not_to_share=0_trial=0"]
    trial["model_solution"]["response_solution"] = "<script>alert(1)</script> **bold** [x](y)"
    db = tmp_path / "xss.duckdb"
    with Store.open(db) as s:
        ingest_file(s, write_jsonl(tmp_path / "x.jsonl", [obj]))
    at = open_page(str(db), PAGES[3], monkeypatch, message="1")
    no_exception(at)
    assert not [m for m in at.markdown if "script" in m.value]  # a message is never markdown
    (shown,) = [h.value for h in at.html if 'class="cimem-msg"' in h.value]
    assert "&lt;script&gt;alert(1)&lt;/script&gt; **bold** [x](y)</div>" in shown
    assert "<script" not in shown and "<a" not in shown
    assert all(not getattr(m, "allow_html", False) for m in at.markdown)


def test_growth_shows_the_composition_curve(tmp_path, monkeypatch):
    from llm_server import FakeLLM
    from llm_world import World

    import cimem.generate.runner as runner

    from fixtures import runner_profiles

    db = tmp_path / "comp.duckdb"
    profiles = write_jsonl(tmp_path / "p.jsonl", runner_profiles(2, 2))
    with Store.open(db) as store, FakeLLM(World()) as server:
        s = runner.RunSettings(
            model="gen-m", base_url=server.base_url, trials=2, composition_step=1
        )
        run_id = runner.create_run(store, profiles, s)
        runner.run(store, run_id)
        curve = composition_curve(store, run_id)
        store_judge = next(j.name for j in store.judges(run_id) if j.judge_id == curve.judge)
    at = open_page(str(db), PAGES[2], monkeypatch, runs=str(run_id))
    no_exception(at)
    assert any(h.value.startswith("Memory composition") for h in at.subheader)
    (said,) = [c.value for c in at.caption if "Official mode counts these messages" in c.value]
    assert f"judge {store_judge}," in said  # the judge by its name, not its number
    # drawn in the page (no chart library): a line per measure over the steps of the run
    (chart,) = [
        json.loads(c.proto.json)
        for c in at.get("bidi_component")
        if c.proto.component_name.endswith(linechart.NAME)
        and json.loads(c.proto.json)["x"]["tip"] == "withheld memories"
    ]
    assert not at.get("vega_lite_chart")
    assert [name for name, _ in chart["colours"]] == [
        "leak rate of the withheld",
        "messages leaking any withheld",
        "completeness",
    ]
    for _, _, points, _ in chart["series"]:
        xs = [x for x, _, _ in points]
        assert xs == sorted(xs) and set(xs) <= set(curve.steps)
        assert all(0 <= y <= 100 and messages >= 1 for _, y, messages in points)
    steps = {x for _, _, points, _ in chart["series"] for x, _, _ in points}
    assert steps == set(curve.steps) and chart["y"]["top"] == 100


def test_a_run_written_elsewhere_appears_on_the_next_rerun(tmp_path, monkeypatch):
    db = tmp_path / "grow.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile("A")]), name="first")
    at = open_page(str(db), PAGES[5], monkeypatch)
    no_exception(at)
    names = lambda: " ".join(str(t.to_dict()) for t in shown_tables(at))  # noqa: E731
    assert "first" in names() and "second" not in names()
    with Store.open(db) as store:  # e.g. a CLI import into the same database
        ingest_file(store, write_jsonl(tmp_path / "b.jsonl", [small_profile("B")]), name="second")
    at.run()
    no_exception(at)
    assert "second" in names()


def test_a_database_held_by_another_process_is_explained(tmp_path, monkeypatch):
    from fixtures import hold_database

    db = tmp_path / "held.duckdb"
    proc = hold_database(db)
    try:
        at = open_page(str(db), PAGES[0], monkeypatch)
        assert not at.exception
        assert any("open in another process" in e.value for e in at.error)
    finally:
        proc.stdin.close()
        proc.wait()


def test_overview_lists_the_dropped_contexts_only_when_opened(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch)
    no_exception(at)
    listed = lambda: [m.value for m in at.markdown if m.value.endswith(" dropped")]  # noqa: E731
    assert not listed()  # folded: nothing drawn (its grids would cost every load)
    at.session_state["ov_dropped"] = True  # what opening it does
    at.run()
    no_exception(at)
    assert len(listed()) == len(at.multiselect(key="runs").value)  # one line per run


def test_growth_draws_an_official_composition_file_by_what_it_varies(tmp_path, monkeypatch):
    """eval.py's all_not_share output: every withheld memory kept, needed ones added; the chart
    steps over the needed memories in the prompt, and says how each mode counts the trials."""
    from composition_files import add_composition
    from full_size import fabricate

    base = fabricate(tmp_path / "base.jsonl", profiles=2, trials=2, seed=4)
    path = add_composition(base, tmp_path / "ans.jsonl", "all_not_share", keep_full=True)
    db = tmp_path / "ans.duckdb"
    with Store.open(db) as store:
        run_id = ingest_file(store, path).run_id
        curve = composition_curve(store, run_id)
    assert str(curve.axis) == "needed" and curve.steps[0] == 0
    at = open_page(str(db), PAGES[2], monkeypatch, runs=str(run_id))
    no_exception(at)
    (chart,) = [
        json.loads(c.proto.json)
        for c in at.get("bidi_component")
        if c.proto.component_name.endswith(linechart.NAME)
        and json.loads(c.proto.json)["x"]["tip"] == "needed memories"
    ]
    steps = {x for _, _, points, _ in chart["series"] for x, _, _ in points}
    assert steps == set(curve.steps)
    assert any("withheld memories are kept and needed ones added" in c.value for c in at.caption)


def test_an_unexpected_error_is_one_line_and_logged(demo_db, monkeypatch, caplog):
    """A failure no page expected (here DuckDB's id conflict, quoting a server path) shows one
    line naming its kind, never the box, the message or the path; the traceback is logged."""
    import duckdb

    from webapp import sidebar

    def fails() -> None:
        raise duckdb.TransactionException("Conflict on update of /srv/secret/lab.duckdb")

    monkeypatch.delenv("CIMEM_SHOW_TRACEBACKS")
    monkeypatch.setattr(sidebar, "sidebar", fails)
    at = open_page(demo_db, PAGES[0], monkeypatch)
    assert not at.exception
    shown = [e.value for e in at.error]
    assert len(shown) == 1 and "unexpected error (TransactionException)" in shown[0], shown
    assert "/srv/secret" not in shown[0]
    assert "Conflict on update" in caplog.text
