"""Every page on every run file of the benchmark's reference data and on the demo, the pages'
key elements, and the edge cases that used to crash them (one sample per task, one task)."""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from apptest import PAGES, TITLES, no_exception, open_page

from cimem.demo.reference import TABLE1
from cimem.ingest import ingest_file
from cimem.store import Store
from webapp.charts import heatgrid, linechart

from conftest import shared_file
from fixtures import overview_tables, shown_tables, small_profile, write_jsonl

# every file of the reference data the app can open: two with messages, two without (labels
# only, profiles only), where each page must say there is no run to show
SHARED_RUNS = [
    "results_sample.jsonl",
    "persistbench_llama33_jeffery_day.json",
    "hf_rows_sample.parquet",
    "profiles.json",
]


def heat_grids(at) -> list[pd.DataFrame]:
    """The cells of every Leaks heatmap table on the page, one frame per table, in the order
    the page gave them: each cell's names, its row's and column's places, colour and counts."""
    frames = []
    for grid in at.get("bidi_component"):
        if not grid.proto.component_name.endswith(heatgrid.NAME):
            continue
        data = json.loads(grid.proto.json)
        rows, cols = data["rows"], data["cols"]
        frames.append(
            pd.DataFrame(
                [
                    {
                        "row": rows[i][0],
                        "key": rows[i][1],
                        "row_order": i,
                        "column": cols[j][0],
                        "context": cols[j][1],
                        "column_order": j,
                        "fill": data["colours"][colour],
                        "label": data["labels"][label],
                        "leaks": leaks,
                        "samples": samples,
                        "profiles": profiles,
                    }
                    for i, j, colour, label, leaks, samples, profiles in data["cells"]
                ]
            )
        )
    return frames


def line_charts(at) -> list[pd.DataFrame]:
    """The rows of every Growth line chart on the page, one frame per chart, in page order: a
    row per point (run, curve, T, k, violation, se) and per paper's point (T, k, violation,
    label, align, dx, dy), read back from what the page sent the browser."""
    names = {"tasks T": "T", "samples k": "k"}
    frames = []
    for chart in at.get("bidi_component"):
        if not chart.proto.component_name.endswith(linechart.NAME):
            continue
        data = json.loads(chart.proto.json)
        if data["x"]["tip"] not in names:  # not a Growth chart (Overview's trade-off)
            continue
        x = names[data["x"]["tip"]]
        fixed = {names[data["fixed"][0]]: data["fixed"][1]} if data["fixed"] else {}
        rows = [
            {
                "run": data["colours"][colour][0],
                "curve": data["dashes"][dash][0],
                x: px,
                **fixed,
                "violation": py,
                "se": extra,
            }
            for colour, dash, points, _ in data["series"]
            for px, py, extra in points
        ]
        rows += [
            {x: px, **fixed, "violation": py, "label": label, "align": align, "dx": dx, "dy": dy}
            for px, py, label, align, dx, dy in data["marks"]
        ]
        frames.append(pd.DataFrame(rows))
    return frames


def tradeoff_points(at) -> pd.DataFrame:
    """Overview's trade-off chart as the browser receives it: a row per point (source, line,
    label, violation, completeness)."""
    (data,) = [
        json.loads(c.proto.json)
        for c in at.get("bidi_component")
        if c.proto.component_name.endswith(linechart.NAME)
        and json.loads(c.proto.json)["x"]["tip"] == "Violation@n %"
    ]
    assert data["y"]["top"] == 100 and data["x"]["domain"] == [0, 100]
    return pd.DataFrame(
        [
            {
                "source": data["colours"][colour][0],
                "line": data["dashes"][dash][0],
                "label": label,
                "violation": px,
                "completeness": py,
            }
            for colour, dash, points, label in data["series"]
            for px, py, _ in points
        ]
    )


def test_overview_tradeoff_is_drawn_in_the_page_with_its_pareto_front(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,2,3")
    no_exception(at)
    assert not at.get("vega_lite_chart")  # drawn in the page: no chart library loaded
    points = tradeoff_points(at)
    runs = points[points["line"] == ""]
    assert len(runs) == 3 and set(runs["source"]) == set(runs["label"])  # each its own colour
    assert all(label.split(": ")[0] in {"1", "2", "3"} for label in runs["label"])
    front = points[points["line"] != ""]
    captions = [c.value for c in at.caption]
    if len(front):  # the front: runs no other run beats on both, joined in violation order
        assert set(front["label"]) == {""} and front["violation"].is_monotonic_increasing
        assert set(zip(front["violation"], front["completeness"])) <= set(
            zip(runs["violation"], runs["completeness"])
        )
        assert f"Dashed: the Pareto front of this database's runs, {len(front)} of the 3" in str(
            captions
        )
    else:  # one run beats both others: no line, and the caption says why
        assert "it alone is the Pareto front" in str(captions)
    at.toggle[0].set_value(True).run()  # the published Table 1
    no_exception(at)
    paper = tradeoff_points(at)
    paper = paper[paper["source"] == "published Table 1"]
    assert set(paper["label"]) == {name for name, _, _ in TABLE1}


def component_data(at, name: str) -> list[dict]:
    """What the browser receives for each element of the custom component ``name``."""
    return [
        json.loads(c.proto.json)
        for c in at.get("bidi_component")
        if c.proto.component_name.endswith(name)
    ]


def test_the_saved_svg_is_the_drawn_chart_and_the_page_adds_only_the_csv(demo_db, monkeypatch):
    """One renderer per chart: the trade-off and the heatmap carry their save name to the chart
    drawn in the page (whose own buttons save the SVG/PNG), and the page draws no second chart
    for a download; the numbers go out as CSV."""
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1,2,3")
    no_exception(at)
    (tradeoff,) = [
        d for d in component_data(at, linechart.NAME) if d["x"]["tip"] == "Violation@n %"
    ]
    assert tradeoff["download"] == "tradeoff"
    labels = [b.label for b in at.get("download_button")]
    assert "CSV" in labels and "SVG" not in labels and "PNG" not in labels
    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    (grid,) = component_data(at, heatgrid.NAME)
    assert grid["download"] == "leak_heatmap"
    assert grid["legend"]["title"] in {"leak frequency", "label"} and grid["legend"]["blank"]
    labels = [b.label for b in at.get("download_button")]
    assert "CSV" in labels and "SVG" not in labels and "PNG" not in labels


def test_overview_with_one_run_says_there_is_no_front_to_draw(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[0], monkeypatch, runs="1")
    no_exception(at)
    points = tradeoff_points(at)
    assert len(points) == 1 and set(points["line"]) == {""}
    captions = str([c.value for c in at.caption])
    assert "One run of this database is drawn: there is no Pareto front" in captions
    assert "Dashed" not in captions


def test_overview_gives_no_interval_for_one_profile(tmp_path, monkeypatch):
    """One profile says nothing of the spread between people: no zero-width interval is shown."""
    db = tmp_path / "one.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "one.jsonl", [small_profile("A")]))
    at = open_page(str(db), PAGES[0], monkeypatch)
    no_exception(at)
    headline = overview_tables(at)[0]
    assert [str(p) for p in headline["profiles"]] == ["1"]
    assert headline["95% CI"].tolist() == ["- (1 profile)"]
    assert headline["95% CI "].tolist() == ["- (1 profile)"]
    (caption,) = [c.value for c in at.caption if "Mean over profiles (their std" in c.value]
    assert caption.endswith("One run.") and "rows compare directly" not in caption


def test_leaks_says_it_shows_the_first_of_several_runs(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[1], monkeypatch, runs="2,1")
    no_exception(at)
    said = [c.value for c in at.caption if c.value.startswith("One run at a time here")]
    assert said and "the first of the 2 runs selected" in said[0]
    assert at.sidebar.multiselect(key="runs").value[0] == 2  # the order of ?runs=
    assert any(c.value.replace("\\", "").startswith("Run 2: demo: cautious") for c in at.caption)
    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    assert not [c for c in at.caption if c.value.startswith("One run at a time here")]


def in_place_order(cells: pd.DataFrame) -> pd.DataFrame:
    """``cells`` with their row and column orders as places (0, 1, ...), as a table shows them."""
    return cells.assign(
        row_order=cells["row_order"].rank(method="dense").astype(int) - 1,
        column_order=cells["column_order"].rank(method="dense").astype(int) - 1,
    )


@pytest.fixture(scope="module", params=SHARED_RUNS)
def shared_db(request, tmp_path_factory):
    source = shared_file(request.param)
    path = tmp_path_factory.mktemp("shared") / "shared.duckdb"
    with Store.open(path) as store:
        ingest_file(store, source)
    return str(path)


@pytest.mark.parametrize("page,title", list(zip(PAGES, TITLES)))
def test_every_page_on_each_reference_file(shared_db, monkeypatch, page, title):
    at = open_page(shared_db, page, monkeypatch)
    no_exception(at)
    assert at.title[0].value == title
    if any("No run with messages" in i.value for i in at.info):  # labels or profiles only
        assert page.endswith(("learn.py", "data.py")) or any(
            "Choose" in i.value or "run" in i.value.lower() for i in at.info
        )
        return
    key_elements(at, page)


def key_elements(at, page: str) -> None:
    """What each page must show on a labelled run."""
    if page.endswith("overview.py"):
        table = overview_tables(at)[0]
        assert list(table.columns[:4]) == ["run", "model", "Violation@n %", "95% CI"]
        assert "None" not in table.astype(str).to_numpy()
    elif page.endswith("leaks.py"):
        assert "Attribute x task" in [h.value for h in at.subheader]
        for box in at.multiselect:  # a filter with nothing to choose says why
            if box.label in ("Profile", "Domain", "Event", "Recipient", "Task"):
                assert bool(box.options) != ("names no" in (box.help or ""))
        # the domains as pills when there are a few to choose from, else as a list
        pills = [b for b in at.button_group if b.label == "Domain"]
        listed = [m for m in at.multiselect if m.label == "Domain"]
        assert len(pills) + len(listed) == 1
        assert all(1 < len(b.options) <= 12 for b in pills)
        assert all(not 1 < len(m.options) <= 12 for m in listed)
        assert not at.get("vega_lite_chart")  # the heatmap is a table: no chart on the page
        for cells in heat_grids(at):  # the heatmap, when there are leaks to draw
            by_row = cells.groupby("row_order")["leaks"].sum().sort_index()
            assert list(by_row) == sorted(by_row, reverse=True) and len(by_row) > 0
            assert cells.groupby("row")["row_order"].nunique().max() == 1
            # every row and every column named, each with its full name
            assert (cells["row"].str.len() > 0).all() and (cells["column"].str.len() > 0).all()
            assert (cells["key"].str.len() >= cells["row"].str.len() - 1).all()
        if "Attributes leaked most" in [h.value for h in at.subheader]:
            attrs = shown_tables(at)[0]
            assert list(attrs.columns[:2]) == ["profile", "attribute"]
            assert "None" not in attrs.to_numpy() and "nan" not in attrs.to_numpy()
    elif page.endswith("growth.py"):
        heads = [h.value for h in at.subheader]
        assert "(a) Violation as tasks accumulate" in heads
        assert "(b) Violation as samples accumulate" in heads
        assert len(line_charts(at)) == 2 and all(len(f) for f in line_charts(at))
        charts = len(at.get("vega_lite_chart"))  # the memory composition's, when a run has one
        # one attribute: folded, drawn once opened (its leak frequency per task, its hazard)
        assert not any("leak frequency p = c/n" in str(c.spec) for c in at.get("vega_lite_chart"))
        at.session_state["growth_one"] = True  # what opening the section does
        at.run()
        no_exception(at)
        specs = [str(c.spec) for c in at.get("vega_lite_chart")]
        opened = any("leak frequency p = c/n" in s for s in specs) and any(
            "hazard" in s for s in specs
        )
        assert (
            opened
            and len(specs) == charts + 2
            or any("private in a task" in i.value for i in at.info)
        )
    elif page.endswith("learn.py"):
        assert any("Figure 1" in h.value for h in at.header)
    elif page.endswith("review.py"):
        assert {"Revealed", "Not revealed", "Skip"} <= {b.label for b in at.button}
        assert any(m.value.startswith("Cell 1 of") for m in at.markdown)


@pytest.mark.parametrize("page,title", list(zip(PAGES, TITLES)))
def test_every_page_on_the_demo_shows_its_key_elements(monkeypatch, page, title, request):
    demo_db = request.getfixturevalue("demo_db")
    at = open_page(demo_db, page, monkeypatch, runs="1,2,3")
    no_exception(at)
    key_elements(at, page)


def test_growth_draws_every_selected_run_named(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[2], monkeypatch, runs="1,2,3")
    no_exception(at)
    by_tasks = line_charts(at)[0]
    runs = set(by_tasks["run"].dropna())
    assert len(runs) == 3 and all(r.split(": ")[0] in {"1", "2", "3"} for r in runs)
    curves = set(by_tasks["curve"].dropna())
    assert "observed" in curves and any(c.startswith("1-(1-p)^k") for c in curves)
    assert not any(c.startswith("union bound") for c in curves)  # off by default
    at.toggle[0].set_value(True).run()  # the union bound
    no_exception(at)
    assert any(c.startswith("union bound") for c in set(line_charts(at)[0]["curve"].dropna()))
    # chart (b): violation against k at the chosen T, one line per run, never falling with k
    by_samples = line_charts(at)[1]
    observed = by_samples[by_samples["curve"] == "observed"]
    for _, line in observed.groupby("run"):
        v = line.sort_values("k")["violation"].tolist()
        assert v == sorted(v) and len(v) == 5
    assert not [c for c in at.caption if "the dashed line lies under" in c.value]  # n = 5
    # at all tasks and samples, p = c/n from the same samples: the formula never exceeds what
    # was observed, and the page does not read the gap as evidence about independence
    (end,) = [m.value for m in at.markdown if m.value.startswith("At all tasks and all samples")]
    gaps = [float(g) for g in re.findall(r"\(([+-]\d+\.\d+) points\)", end)]
    assert len(gaps) == 3 and min(gaps) >= 0 and max(gaps) > 0
    assert any("so it is no test of independence" in c.value for c in at.caption)
    # the k slider redraws chart (a) at that k
    at.slider(key="growth_k").set_value(1).run()
    no_exception(at)
    assert set(line_charts(at)[0]["k"].dropna()) == {1}


def test_growth_labels_the_papers_point_away_from_the_curves(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[2], monkeypatch, runs="1,2,3")
    at.slider(key="growth_k").set_value(1).run()  # chart (a) at k = 1 holds (T = 1, k = 1)
    at.slider(key="growth_t").set_value(1).run()  # chart (b) at T = 1 holds it too
    no_exception(at)
    for frame, x in zip(line_charts(at), ("T", "k"), strict=True):
        curves, points = frame[frame["label"].isna()], frame[frame["label"].notna()]
        assert len(points) == 1, frame
        for _, p in points.iterrows():
            assert p["label"] == "GPT-5, paper (T=1, k=1): 0.1%"
            # the curves rise to the right: the label goes where they cannot reach it
            side = curves[x] > p[x] if p["align"] == "left" else curves[x] < p[x]
            there = curves.loc[side, "violation"]
            assert not there.empty
            if p["dy"] < 0:  # above the point
                assert there.max() <= p["violation"]
            else:
                assert there.min() >= p["violation"]


def one_trial(obj: dict) -> dict:
    for ctx in obj["contexts"]:
        for key in [k for k in ctx if k.endswith("_trial=1")]:
            del ctx[key]
    return obj


def test_growth_with_one_sample_per_task(tmp_path, monkeypatch):
    db = tmp_path / "n1.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "n1.jsonl", [one_trial(small_profile("A"))]))
    at = open_page(str(db), PAGES[2], monkeypatch)
    no_exception(at)
    assert not [s for s in at.slider if s.key == "growth_k"]
    assert any("n = 1" in i.value for i in at.info)
    by_tasks, by_samples = line_charts(at)
    assert set(by_tasks["k"]) == {1} and set(by_samples["k"].dropna()) == {1}
    # with n = 1 the two lines coincide: the page says why the dashed one cannot be seen
    curves = by_tasks.pivot_table(index="T", columns="curve", values="violation")
    assert (curves["observed"] - curves[[c for c in curves if c != "observed"][0]]).abs().max() == 0
    hidden = [c.value for c in at.caption if "the dashed line lies under the solid one" in c.value]
    assert hidden and "(with n = 1 each p is 0 or 1)" in hidden[0]
    assert any(c.value.startswith("Equal: every prompt's samples agree") for c in at.caption)


def test_growth_with_one_task(tmp_path, monkeypatch):
    obj = small_profile("B")
    obj["contexts"] = obj["contexts"][:1]
    db = tmp_path / "t1.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "t1.jsonl", [obj]))
    at = open_page(str(db), PAGES[2], monkeypatch, mode="definition")
    no_exception(at)
    assert not [s for s in at.slider if s.key == "growth_t"]
    assert any("single point at T = 1" in i.value for i in at.info)
    frames = line_charts(at)
    assert set(frames[0]["T"].dropna()) == {1}


def test_a_run_imported_on_the_data_page_joins_the_selection(tmp_path, monkeypatch):
    db = tmp_path / "join.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile("A")]), name="a")
    at = open_page(str(db), PAGES[5], monkeypatch)
    assert at.multiselect(key="runs").value == [1]
    src = write_jsonl(tmp_path / "b.jsonl", [small_profile("B")])
    at.text_input(key="server_path").set_value(str(src)).run()
    at.button(key="import").click().run()
    no_exception(at)
    assert at.multiselect(key="runs").value == [1, 2]
    assert any("added to the runs in the sidebar" in s.value for s in at.success)
    at.switch_page(PAGES[0]).run()  # and the other pages use it
    no_exception(at)
    assert len(overview_tables(at)[0]) == 2


def test_learn_figure1_is_the_papers_case_and_reacts(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[4], monkeypatch, runs="1")
    no_exception(at)
    values = {m.label: m.value for m in at.metric}
    assert values["Violation@1"] == "100.00%"  # hypertension revealed: violated
    assert values["Completeness"] == "66.67%"  # age and income of three needed: 2/3
    table = next(t for t in shown_tables(at) if "R, sample 1" in t.columns)
    revealed = dict(zip(table["attribute"], table["R, sample 1"]))
    assert revealed == {"age": "1", "income": "1", "employment status": "0", "hypertension": "1"}
    # flip two reveals: hypertension not stated, employment status stated
    reveals = at.pills(key="fig1_reveals_1_0")
    names = [str(o) for o in reveals.options]
    assert names == list(revealed)
    reveals.set_value([0, 1, 2]).run()  # age, income, employment status
    no_exception(at)
    values = {m.label: m.value for m in at.metric}
    assert values["Violation@1"] == "0.00%" and values["Completeness"] == "100.00%"
    table = next(t for t in shown_tables(at) if "R, sample 1" in t.columns)
    assert list(table["R, sample 1"]) == ["1", "1", "1", "0"]
    at.toggle(key="fig1_extended").set_value(True).run()
    no_exception(at)
    assert any("INVENTED" in w.value for w in at.warning)
    assert "Violation@3" in {m.label for m in at.metric}
    # the official script's steps with the selected run's numbers
    assert any("identity filter" in str(t.to_dict()) for t in shown_tables(at))


def test_leaks_says_no_leaks_instead_of_a_red_field(tmp_path, monkeypatch):
    obj = small_profile("Quiet")
    for ctx in obj["contexts"]:
        for key in [k for k in ctx if "_trial=" in k]:
            revealed = ctx[key]["model_solution"]["revealed_attributes"]
            for attr in revealed:
                revealed[attr] = 0
    db = tmp_path / "quiet.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "q.jsonl", [obj]))
    at = open_page(str(db), PAGES[1], monkeypatch, mode="definition")
    no_exception(at)
    assert any(s.value.startswith("No leaks here") for s in at.success)
    assert not at.get("vega_lite_chart")


def test_data_page_runs_table_is_readable_and_shows_no_server_path(tmp_path, monkeypatch):
    db = tmp_path / "runs.duckdb"
    (tmp_path / "deep" / "inside").mkdir(parents=True)
    src = write_jsonl(tmp_path / "deep" / "inside" / "a.jsonl", [small_profile("A")])
    with Store.open(db) as store:
        ingest_file(store, src, name="a run")
    at = open_page(str(db), PAGES[5], monkeypatch)
    no_exception(at)
    table = shown_tables(at)[0]
    assert list(table.columns)[:5] == [
        "run",
        "name",
        "model",
        "prompt level",
        "samples per task (n)",
    ]
    assert not [c for c in table.columns if "_" in c]  # no snake_case header
    origin = shown_tables(at)[1]  # where each run came from: a table of its own, to fit
    assert list(origin.columns) == [
        "run",
        "holds",
        "format",
        "source file",
        "simulated",
        "imported",
    ]
    assert origin["source file"].tolist() == ["a.jsonl"] and origin["simulated"].tolist() == ["no"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", origin["imported"][0])
    assert str(tmp_path) not in str(table.to_dict()) + str(origin.to_dict())
    # the run's configuration: a table too, its source file by name only
    config = next(t for t in shown_tables(at) if list(t.columns) == ["setting", "value"])
    settings = dict(zip(config["setting"], config["value"], strict=True))
    assert settings["source"] == "a.jsonl" and settings["name"] == "a run"
    assert not [t for t in shown_tables(at) if str(tmp_path) in str(t.to_dict())]
    assert not at.get("json")


def test_growth_prefetches_the_worst_order_and_switching_uses_it(demo_db, monkeypatch):
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.growth import growth
    from cimem.analysis.metrics import MetricOptions
    from webapp import connection
    from webapp.startup import prefetch

    at = open_page(demo_db, PAGES[2], monkeypatch, runs="1,2")
    no_exception(at)
    started = {
        k[1].run_id: f
        for k, f in prefetch.started().items()
        if k[0] == "growth" and k[1].path == demo_db and k[2].order == "worst"
    }
    assert {1, 2} <= set(started)  # (other tests of this module may have shown run 3 too)
    with connection.shared(demo_db).reading() as store:  # the app's share: this process opens it
        want = growth(cube_from_store(store, 1, None), MetricOptions(), order="worst")
    assert started[1].result(timeout=120).violation == want.violation
    at.radio(key="order").set_value("worst").run()
    no_exception(at)
    assert any("order **worst**" in c.value for c in at.caption)


def test_growth_prefetches_the_k_sliders_slices_as_the_page_would_compute_them(
    demo_db, monkeypatch
):
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.growth import growth
    from cimem.analysis.metrics import MetricOptions
    from webapp import connection
    from webapp.startup import prefetch

    at = open_page(demo_db, PAGES[2], monkeypatch, runs="1")
    no_exception(at)
    n = at.slider(key="growth_k").value  # the default: every sample
    ahead = {
        k[2].trials: f
        for k, f in prefetch.started().items()
        if k[0] == "growth"
        and k[1].path == demo_db
        and k[1].run_id == 1
        and k[2].order == "random"
        and k[2].tasks is None
    }
    assert set(ahead) == {(k,) for k in range(1, n + 1)}
    with connection.shared(demo_db).reading() as store:
        run_cube = cube_from_store(store, 1, None)
    want = growth(run_cube, MetricOptions(), trials=[n - 1])  # the CLI's defaults too
    assert ahead[(n - 1,)].result(timeout=120).violation == want.violation
    at.slider(key="growth_k").set_value(n - 1).run()  # drawn from the slice made ahead
    no_exception(at)
    (by_tasks, _) = line_charts(at)
    assert set(by_tasks["k"]) == {n - 1}


def test_a_chosen_cell_lists_every_profiles_messages_or_says_it_has_none(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    (cells,) = heat_grids(at)
    # more leaks than one profile has samples: at least two profiles leaked in this cell
    pooled = cells[cells["leaks"] > cells["samples"] / cells["profiles"]].iloc[0]
    at.session_state["leak_pick"] = (pooled["key"], pooled["context"])  # what a click does
    at.run()
    no_exception(at)
    said = [m.value for m in at.markdown if m.value.startswith("**")]
    shown = [m for m in said if " revealed it." in m]
    assert len(shown) >= 2  # more than one profile's messages, not only the first
    assert any("profiles leaked it in this task" in c.value for c in at.caption)
    quiet = cells[cells["leaks"] == 0].iloc[0]
    at.session_state["leak_pick"] = (quiet["key"], quiet["context"])
    at.run()
    no_exception(at)
    assert any("the chosen cell has no leaked message" in i.value for i in at.info)
    assert not [m for m in at.markdown if " revealed it." in m.value]


def test_leaks_draws_the_domain_and_profile_tables_only_when_opened(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    firsts = lambda: [t.columns[0] for t in shown_tables(at)]  # noqa: E731
    assert "domain" not in firsts() and "profile" in firsts()[:1]  # folded: not drawn
    at.session_state["leaks_groups"] = True  # what opening the section does
    at.run()
    no_exception(at)
    assert firsts().count("domain") == 1 and firsts().count("profile") == 2


def domain_pills(at):
    """The Leaks page's Domain pills and the domains they stand for (a pill's text is markdown,
    escaped)."""
    (pills,) = [b for b in at.button_group if b.label == "Domain"]
    return pills, [re.sub(r"\\(.)", r"\1", o).replace("\u2060", "") for o in pills.options]


def test_leaks_with_every_domain_chosen_shows_what_no_filter_shows(demo_db, monkeypatch):
    from cimem.analysis import leaks

    filtered: list[tuple] = []  # the filters a view was made for
    made = leaks.filtered_pairs
    monkeypatch.setattr(leaks, "filtered_pairs", lambda t, f: filtered.append(f) or made(t, f))
    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    cells, tables = heat_grids(at), shown_tables(at)
    domains, names = domain_pills(at)
    assert len(names) > 1
    domains.set_value(names).run()  # every pill clicked
    no_exception(at)
    pd.testing.assert_frame_equal(heat_grids(at)[0], cells[0])
    for shown, before in zip(shown_tables(at), tables, strict=True):
        pd.testing.assert_frame_equal(shown, before)
    # no view made for every domain (the views made ahead are one domain's each)
    assert not [f for f in filtered if f and f != (("domain", f[0][1][:1]),)]
    domains.set_value(names[:1]).run()  # one domain is a filter of its own
    no_exception(at)
    assert len(heat_grids(at)[0]) < len(cells[0])  # (made ahead: see the test below)


def test_leaks_makes_each_domains_page_ahead_and_a_pick_shows_it(demo_db, monkeypatch):
    from cimem.analysis import leaks
    from cimem.analysis.breakdowns import attribute_table, pair_table
    from cimem.analysis.cube import cube_from_store
    from webapp import cache, connection
    from webapp.startup import prefetch

    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    domains, names = domain_pills(at)
    assert 1 < len(names) <= cache.ONE_VALUE_PAGES
    ahead = {
        k[2]: (k, f)
        for k, f in prefetch.started().items()
        if k[0] == "leaks" and k[1].path == demo_db and k[1].run_id == 1
    }
    assert set(ahead) >= {(("domain", (d,)),) for d in names}
    assert prefetch.wait_for_prefetch(timeout=120)
    one = (("domain", (names[-1],)),)
    key, started = ahead[one]
    made = started.result()
    # what the page would make itself
    with connection.shared(demo_db).reading() as store:
        run_cube = cube_from_store(store, 1, None)
    view = leaks.filtered_pairs(pair_table(run_cube, key[1].opts), one)
    pd.testing.assert_frame_equal(made.view, view)
    pd.testing.assert_frame_equal(made.tables[0], attribute_table(view))
    assert made.heat_for == (True, 30) and set(made.cells["key"]) <= set(view["key"])

    filtered: list[tuple] = []
    make = leaks.filtered_pairs
    monkeypatch.setattr(leaks, "filtered_pairs", lambda t, f: filtered.append(f) or make(t, f))
    domains.set_value([names[-1]]).run()
    no_exception(at)
    assert one not in filtered  # the page made ahead was drawn
    cols = ["key", "context", "leaks", "samples", "row_order", "column_order"]
    (shown,) = heat_grids(at)
    pd.testing.assert_frame_equal(
        shown[cols].reset_index(drop=True),
        in_place_order(made.cells)[cols].reset_index(drop=True),
        check_dtype=False,
        check_categorical=False,
    )
    assert len(shown_tables(at)[0]) == min(20, len(made.tables[0]))  # its first page


def test_leaks_makes_no_page_ahead_for_a_column_of_many_values(demo_db, monkeypatch):
    from webapp import cache
    from webapp.startup import prefetch

    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    key = next(
        k
        for k in prefetch.started()
        if k[0] == "leaks" and k[1].path == demo_db and k[1].run_id == 1
    )
    scope = key[1]
    tasks = cache.filter_options(scope)["task"]
    assert len(tasks) > cache.ONE_VALUE_PAGES
    before = set(prefetch.started())
    cache.prefetch_leaks_pages(scope, "task", True, 30)
    assert set(prefetch.started()) == before


def test_leaks_shows_a_pairs_messages_once_chosen(demo_db, monkeypatch):
    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    captions = lambda: " ".join(c.value for c in at.caption)  # noqa: E731
    legends = lambda: [h.value for h in at.html if 'class="cimem-legend"' in h.value]  # noqa: E731
    (pair,) = [s for s in at.selectbox if s.label == "Pair"]
    assert pair.value is None and not legends()
    assert "leaked pairs here. Choose one" in captions()
    pair.set_value(0).run()
    no_exception(at)
    (legend,) = legends()  # said once, above the messages
    assert "Each message&#x27;s raw text is on Audit." in legend
    assert "revealed it" in " ".join(m.value for m in at.markdown)
    assert [h for h in at.html if 'class="cimem-msg"' in h.value]  # the messages, as HTML
    assert not [e for e in at.expander if e.label == "Raw text"]


def test_leaks_heatmap_is_one_table_that_colours_its_cells(demo_db, monkeypatch):
    from webapp.render import LABEL_COLOURS, LEAK_COLOURS, NO_CELL_COLOUR

    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    (cells,) = heat_grids(at)
    # a place with no cell has a colour of its own, told apart from 0% and every label
    (grid,) = at.get("bidi_component")
    assert json.loads(grid.proto.json)["blank"] == NO_CELL_COLOUR
    assert NO_CELL_COLOUR not in [*LEAK_COLOURS, *LABEL_COLOURS.values()]
    leaked = cells[cells["leaks"] > 0]
    assert len(leaked) and (cells.loc[cells["leaks"] == 0, "fill"] == "#ffffff").all()
    assert (leaked["fill"] != "#ffffff").all()
    # the darker the red, the more often it leaked: green and blue fall as frequency rises
    frequency = leaked["leaks"] / leaked["samples"]
    darkest = leaked.loc[frequency.sort_values().index, "fill"].iloc[[0, -1]].tolist()
    assert int(darkest[1][3:5], 16) <= int(darkest[0][3:5], 16)
    at.toggle(key="heat_private").set_value(False).run()
    no_exception(at)
    (cells,) = heat_grids(at)  # the same one table, its cells coloured by label
    assert set(cells["fill"]) <= set(LABEL_COLOURS.values())
    for label, colour in LABEL_COLOURS.items():
        assert (cells.loc[cells["label"] == label, "fill"] == colour).all()
    assert set(cells["label"]) > {"private"}


def test_leaks_makes_the_other_colouring_ahead_and_its_toggle_shows_it(demo_db, monkeypatch):
    from webapp.startup import prefetch

    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    ahead = [
        f
        for k, f in prefetch.started().items()
        if k[0] == "heat" and k[1].path == demo_db and k[1].run_id == 1 and k[2:] == ((), False, 30)
    ]
    assert len(ahead) == 1  # every labelled cell, by label: what the toggle shows next
    made = ahead[0].result(timeout=120)
    assert set(made["label"]) > {"private"}
    at.toggle(key="heat_private").set_value(False).run()
    no_exception(at)
    (shown,) = heat_grids(at)
    cols = ["key", "context", "label", "leaks", "samples", "row_order", "column_order"]
    made = in_place_order(made).assign(key=made["key"].astype(str), label=made["label"].astype(str))
    made = made.assign(context=made["context"].astype(str))
    pd.testing.assert_frame_equal(
        shown[cols].reset_index(drop=True), made[cols].reset_index(drop=True), check_dtype=False
    )


def test_the_data_page_works_on_the_sidebars_run_and_records_what_made_it(
    demo_db, tmp_path, monkeypatch
):
    """The run picker starts on the sidebar's run (not run 1), names the run it would delete,
    and what made the run, told afterwards, reaches the store (and so the leaderboard)."""
    import shutil

    db = tmp_path / "prov.duckdb"
    shutil.copy(demo_db, db)
    at = open_page(str(db), PAGES[5], monkeypatch, runs="2")
    no_exception(at)
    (picker,) = [s for s in at.selectbox if s.label == "Run"]
    assert picker.value == 2
    assert any(c.label.startswith("Yes, delete run 2 (") for c in at.checkbox)
    form = {t.label: t for t in at.text_input}
    form["Model"].set_value("llama-3.3-70b")
    (level,) = [s for s in at.selectbox if s.label == "Prompt level"]
    level.set_value(2)
    judge_model = next(t for t in at.text_input if t.label.endswith("'s model"))
    judge_model.set_value("kimi-k2")
    next(b for b in at.button if b.label == "Save what made the run").click().run()
    no_exception(at)
    with Store.open(db, read_only=True) as store:
        cfg = store.run_config(2)
        judge = store.judges(2)[0]
    assert (cfg["model"], cfg["level"], judge.model) == ("llama-3.3-70b", 2, "kimi-k2")
    assert [s.label for s in at.selectbox].count("Judge whose verdicts to write") == 1


def test_the_leaks_view_is_in_its_link_and_a_hostile_link_is_tamed(demo_db, monkeypatch):
    """A link names the filters, the search, the heatmap's colouring and size, and the chosen
    cell; opened, the page shows that view. Values that are not the run's options are dropped
    and numbers kept within their slider, with no error; a filter changed goes back into the
    link."""
    at = open_page(demo_db, PAGES[1], monkeypatch, runs="1")
    domains = next(p for p in at.get("button_group") if p.key == "f_domain").options
    domain = str(domains[0].content if hasattr(domains[0], "content") else domains[0])
    shared = open_page(
        demo_db,
        PAGES[1],
        monkeypatch,
        runs="1",
        l_domain=[domain, "<script>", "nonexistent"],
        l_search="x" * 500,
        l_private="0",
        l_top="9999",
        l_cell='["a key", "a task"]',
    )
    no_exception(shared)
    state = shared.session_state
    assert state["f_domain"] == [domain] and len(state["f_search"]) == 200
    assert state["heat_private"] is False and state["heat_top"] == 80
    assert state["leak_pick"] == ("a key", "a task")
    broken = open_page(demo_db, PAGES[1], monkeypatch, runs="1", l_top="x", l_cell="{oops")
    no_exception(broken)
    assert "leak_pick" not in broken.session_state
    next(t for t in at.text_input if t.key == "f_search").set_value("income").run()
    assert at.query_params["l_search"] == ["income"] or at.query_params["l_search"] == "income"


def test_growth_settings_live_in_the_link_and_hostile_values_are_dropped(demo_db, monkeypatch):
    """A link with Growth's order, samples and method opens those curves; a change is written
    back to the link; a value that is no option is dropped (the default shown)."""
    growth = "webapp/pages/growth.py"
    at = open_page(
        demo_db,
        growth,
        monkeypatch,
        g_order="worst",
        g_samples="unbiased",
        g_method="ratio-of-expectations",
    )
    no_exception(at)
    assert at.radio(key="order").value == "worst"
    assert at.radio(key="samples").value == "unbiased"
    assert at.radio(key="method").value == "ratio-of-expectations"
    at.radio(key="order").set_value("random").run()
    assert "g_order" not in at.query_params and at.query_params["g_samples"] in (
        "unbiased",
        ["unbiased"],
    )
    hostile = open_page(demo_db, growth, monkeypatch, g_order="<b>x</b>", g_samples="../etc")
    no_exception(hostile)
    assert hostile.radio(key="order").value == "random"
    assert hostile.radio(key="samples").value == "first"
