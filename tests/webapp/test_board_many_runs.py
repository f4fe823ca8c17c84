"""A database of 12 small runs through Overview and Growth: a few runs shown by default, the
leaderboard of all of them, its filter, picking runs from it into the selection, and charts
that draw at most eight runs each in the colour-blind-safe palette."""

from __future__ import annotations

import json

import pytest
from apptest import PAGES, leaderboard, no_exception, open_page

from cimem.analysis.leaderboard import DEFAULT_RUNS
from cimem.publish import palette
from webapp.charts import linechart

from fixtures import twelve_runs


@pytest.fixture(scope="module")
def twelve(tmp_path_factory):
    """12 runs of two small profiles each, three per model (one model unknown)."""
    return str(twelve_runs(tmp_path_factory.mktemp("twelve")))


def charts(at) -> list[dict]:
    """The data of every line chart drawn in the page."""
    return [
        json.loads(c.proto.json)
        for c in at.get("bidi_component")
        if c.proto.component_name.endswith(linechart.NAME)
    ]


def test_overview_shows_a_few_runs_and_the_leaderboard_of_all(twelve, monkeypatch):
    at = open_page(twelve, PAGES[0], monkeypatch)
    no_exception(at)
    # the newest run of each of the four models: runs 9..12
    assert at.sidebar.multiselect(key="runs").value == [9, 10, 11, 12]
    assert len(at.sidebar.multiselect(key="runs").value) == DEFAULT_RUNS
    assert any("4 of 12 runs" in c.value for c in at.sidebar.caption)
    board = leaderboard(at)
    assert len(board) == 12 and set(board["model"]) == {
        "llama-3.3",
        "gpt-4o",
        "qwen-2.5",
        "unknown",
    }
    assert list(board["shown"]).count("yes") == 4
    # grouped by model, then level
    assert list(board["model"]) == sorted(board["model"])
    assert (board["Violation@n %"] != "-").all()  # small: every run's numbers at once


def test_the_leaderboard_filter_narrows_it(twelve, monkeypatch):
    at = open_page(twelve, PAGES[0], monkeypatch)
    at.multiselect(key="board_models").set_value(["gpt-4o"]).run()
    no_exception(at)
    board = leaderboard(at)
    assert list(board["model"]) == ["gpt-4o"] * 3
    at.multiselect(key="board_levels").set_value(["2"]).run()
    assert len(leaderboard(at)) == 1


def test_runs_picked_in_the_leaderboard_become_the_selection(twelve, monkeypatch):
    at = open_page(twelve, PAGES[0], monkeypatch)
    board = leaderboard(at)
    ids = sorted(int(r.split(":")[0]) for r in board["run"][board["model"] == "llama-3.3"])
    pick = at.multiselect(key="board_pick")
    assert sorted(pick.value) == sorted(at.sidebar.multiselect(key="runs").value)  # shown ones
    pick.set_value(ids).run()
    assert at.button(key="board_show").label == f"Show these {len(ids)} runs"
    at.button(key="board_show").click().run()
    no_exception(at)
    assert sorted(at.sidebar.multiselect(key="runs").value) == ids
    assert at.query_params["runs"] == ",".join(map(str, ids))
    assert list(leaderboard(at)["shown"]).count("yes") == len(ids)


def test_the_leaderboard_sorts_as_asked(twelve, monkeypatch):
    at = open_page(twelve, PAGES[0], monkeypatch)
    at.selectbox(key="board_sort").set_value("violation").run()
    no_exception(at)
    shown = [float(v) for v in leaderboard(at)["Violation@n %"]]
    assert shown == sorted(shown)
    at.selectbox(key="board_sort").set_value("run").run()
    assert [int(r.split(":")[0]) for r in leaderboard(at)["run"]] == list(range(1, 13))


def test_a_link_naming_runs_still_opens_them(twelve, monkeypatch):
    at = open_page(twelve, PAGES[0], monkeypatch, runs="2,5")
    assert at.sidebar.multiselect(key="runs").value == [2, 5]


def test_growth_draws_at_most_eight_runs_per_chart_in_okabe_ito(twelve, monkeypatch):
    every = ",".join(str(i) for i in range(1, 13))
    at = open_page(twelve, PAGES[2], monkeypatch, runs=every)
    no_exception(at)
    drawn = charts(at)
    assert len(drawn) == 4  # each of the two charts as two small multiples of six runs
    for data in drawn:
        runs = {s[0] for s in data["series"]}
        assert 0 < len(runs) <= palette.MAX_RUNS_PER_CHART
        colours = [c for _, c in data["colours"]]
        assert set(colours) <= set(palette.OKABE_ITO) and len(set(colours)) == len(colours)
        assert data["endLabels"] and all(s[3] for s in data["series"] if s[1] == 0)
    # a run keeps its colour from chart to chart, and Overview's trade-off gives it the same
    growth = {n: c for d in drawn for n, c in d["colours"]}
    at.switch_page(PAGES[0]).run()
    (tradeoff,) = charts(at)
    assert {n: c for n, c in tradeoff["colours"] if n in growth} == growth
    # the caption sums the runs up and lists them folded
    assert any("12 runs of 3 models" in c.value for c in at.caption), [c.value for c in at.caption]


@pytest.mark.parametrize("runs", ["", ",".join(str(i) for i in range(1, 13))])
def test_every_page_with_twelve_runs(twelve, monkeypatch, runs):
    """Every page opens on the twelve-run database, with the default few runs and with all."""
    params = {"runs": runs} if runs else {}
    at = open_page(twelve, PAGES[0], monkeypatch, **params)
    no_exception(at)
    for page in PAGES[1:]:
        at.switch_page(page).run()
        no_exception(at)
