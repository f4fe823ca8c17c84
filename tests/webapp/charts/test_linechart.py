"""Growth's line charts' data: one series per (run, curve) with its points in x order, legends
of only what is drawn (a run keeps its colour), the paper's points with their labels, names from
data passed as they are (the chart sets them as text), plain JSON."""

import json
import math

import pandas as pd

from webapp.charts.linechart import Encoding, chart_data

HOSTILE = "<img src=x onerror=alert(1)> **bold** [link](http://example.invalid)"
ENC = Encoding(
    x="T",
    x_title="tasks T (k = 2 samples per task)",
    x_tip="tasks T",
    y="violation",
    y_title="Violation (%)",
    y_tip="Violation %",
    colour="run",
    dash="curve",
    colour_title="run",
    dash_title="line",
    extra="se",
    extra_tip="± standard error (points)",
    fixed=("samples k", 2),
)
COLOURS = {"1: first": "#1f77b4", HOSTILE: "#ff7f0e", "3: unused": "#2ca02c"}
DASHES = {"observed": [1, 0], "theory": [6, 4], "bound": [2, 3]}


def rows() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "run": ["1: first"] * 4 + [HOSTILE] * 2,
            "curve": ["observed", "observed", "theory", "theory", "observed", "observed"],
            "T": [2, 1, 1, 2, 1, 2],
            "violation": [4.0, 2.0, 1.5, 3.0, 1.0, 2.5],
            "se": [0.01, math.nan, None, None, 0.02, 0.03],
        }
    )


def data(**kw) -> dict:
    return chart_data(
        rows(), ENC, colours=COLOURS, dashes=DASHES, x_ticks=[1, 2], x_domain=(1, 2), **kw
    )


def test_one_series_per_run_and_curve_in_x_order():
    d = data()
    shown = {(d["colours"][c][0], d["dashes"][s][0]): pts for c, s, pts, _ in d["series"]}
    assert shown == {
        ("1: first", "observed"): [[1, 2.0, None], [2, 4.0, 0.01]],
        ("1: first", "theory"): [[1, 1.5, None], [2, 3.0, None]],
        (HOSTILE, "observed"): [[1, 1.0, 0.02], [2, 2.5, 0.03]],
    }
    # drawn last, on top: the observed curves
    assert [d["dashes"][s][0] for _, s, _, _ in d["series"]][-2:] == ["observed", "observed"]
    assert {label for *_, label in d["series"]} == {""}  # no label column: no point labels


def test_the_legends_name_only_what_is_drawn_each_run_in_its_own_colour():
    d = data()
    assert d["colours"] == [["1: first", "#1f77b4"], [HOSTILE, "#ff7f0e"]]
    assert d["dashes"] == [["observed", [1, 0]], ["theory", [6, 4]]]
    assert (d["colourTitle"], d["dashTitle"]) == ("run", "line")


def test_axes_and_tooltip_titles():
    d = data()
    assert d["x"] == {
        "title": "tasks T (k = 2 samples per task)",
        "tip": "tasks T",
        "ticks": [1, 2],
        "domain": [1, 2],
    }
    assert d["y"] == {"title": "Violation (%)", "tip": "Violation %", "top": None}
    assert d["fixed"] == ["samples k", 2] and d["extra"] == "± standard error (points)"


def test_the_papers_points_keep_their_label_and_place():
    paper = pd.DataFrame(
        {
            "T": [2],
            "k": [2],
            "violation": [25.1],
            "label": [HOSTILE],
            "align": ["right"],
            "dx": [-10],
            "dy": [-4],
        }
    )
    assert data(marks=paper)["marks"] == [[2, 25.1, HOSTILE, "right", -10, -4]]
    assert data()["marks"] == [] and data(marks=pd.DataFrame())["marks"] == []


def test_the_data_is_plain_json():
    d = data()
    assert json.loads(json.dumps(d)) == d
    assert d["height"] == 400


def test_a_scatter_one_labelled_series_per_name_with_a_fixed_top():
    """Overview's trade-off: each run its own series (one point, labelled with its name, the
    name passed as it is), the Pareto front a dashed series with no label, the axis to 100."""
    enc = Encoding(
        "v",
        "Violation@n (%)",
        "Violation@n %",
        "c",
        "Completeness (%)",
        "Completeness %",
        colour="source",
        dash="line",
        label="name",
    )
    points = pd.DataFrame(
        {
            "v": [10.5, 30.0, 10.5, 30.0],
            "c": [40.0, 60.0, 40.0, 60.0],
            "source": ["this database"] * 4,
            "line": ["", "", "front", "front"],
            "name": ["a", HOSTILE, "", ""],
        }
    )
    d = chart_data(
        points,
        enc,
        colours={"this database": "#d62728", "published": "#7f7f7f"},
        dashes={"": [1, 0], "front": [4, 3]},
        x_ticks=[0, 50, 100],
        x_domain=(0, 100),
        y_top=100,
    )
    assert d["y"]["top"] == 100
    labelled = {label: pts for _, dash, pts, label in d["series"] if dash == 0}
    assert labelled == {"a": [[10.5, 40.0, None]], HOSTILE: [[30, 60.0, None]]}
    (front,) = [(pts, label) for _, dash, pts, label in d["series"] if dash == 1]
    assert front == ([[10.5, 40.0, None], [30, 60.0, None]], "")
    assert [c[0] for c in d["colours"]] == ["this database"]  # only what is drawn
    json.dumps(d, allow_nan=False)


def test_a_download_name_gives_the_chart_its_save_buttons_and_none_leaves_it_as_it_was(
    monkeypatch,
):
    from webapp.charts import linechart

    sent: list[dict] = []
    monkeypatch.setattr(linechart, "_CHART", lambda data, key: sent.append(data))
    data = chart_data(rows(), ENC, colours=COLOURS, dashes=DASHES, x_ticks=[1, 2], x_domain=(1, 2))
    linechart.line_chart(data, key="a")
    linechart.line_chart(data, key="b", download="growth_violation")
    assert sent[0] == data and "download" not in sent[0]
    assert sent[1] == {**data, "download": "growth_violation"}
    assert "download" not in data  # the caller's data is left as it was
    json.dumps(sent[1], allow_nan=False)


def test_the_charts_script_has_its_save_buttons_first():
    from webapp.charts import linechart

    assert linechart.JS.index("function saveButtons") < linechart.JS.index("export default")
    assert ".save button" in linechart.CSS and ".linechart" in linechart.CSS


def test_legend_order_and_draw_order_follow_the_given_names_not_the_rows():
    """Rows listed last-run-first still give the legend in ``colours`` order; the series are
    drawn later dashes first, so the first dash (observed) ends on top, runs in colour order."""
    backwards = rows().iloc[::-1].reset_index(drop=True)
    d = chart_data(backwards, ENC, colours=COLOURS, dashes=DASHES, x_ticks=[1, 2], x_domain=(1, 2))
    assert [c for c, _ in d["colours"]] == ["1: first", HOSTILE]
    assert [(c, s) for c, s, _, _ in d["series"]] == [(0, 1), (0, 0), (1, 0)]
    assert d == data()  # the same chart whatever order the rows come in
