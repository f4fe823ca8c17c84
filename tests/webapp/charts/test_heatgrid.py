"""The Leaks heatmap table's data: rows and columns in their order, each cell's colour, label
and counts, names from data passed as they are (the table sets them as text)."""

import pandas as pd

from webapp.charts.heatgrid import clicked_cell, grid_data

HOSTILE = "<img src=x onerror=alert(1)> **bold** [link](http://example.invalid)"


def cells() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "row": ["income", "income", HOSTILE],
            "key": ["income_full", "income_full", HOSTILE],
            "row_order": [1, 1, 0],
            "column": ["Bank: loan", HOSTILE, "Bank: loan"],
            "context": ["Bank: apply for a loan", HOSTILE, "Bank: apply for a loan"],
            "column_order": [0, 3, 0],
            "fill": pd.Categorical(["#ffffff", "#67000d", "#fcbba1"]),
            "label": pd.Categorical(["private", "private", "share"]),
            "leaks": [0, 5, 1],
            "samples": [5, 5, 10],
            "profiles": [1, 1, 2],
        }
    )


def test_rows_and_columns_follow_their_order_and_keep_their_full_names():
    data = grid_data(cells(), None, "#eee")
    assert data["rows"] == [[HOSTILE, HOSTILE], ["income", "income_full"]]
    assert data["cols"] == [["Bank: loan", "Bank: apply for a loan"], [HOSTILE, HOSTILE]]
    assert data["picked"] is None and data["blank"] == "#eee"


def test_each_cell_has_its_place_colour_label_and_counts():
    data = grid_data(cells(), ("income_full", HOSTILE), "#eee")
    shown = [
        (i, j, data["colours"][c], data["labels"][lab], n, s, p)
        for i, j, c, lab, n, s, p in data["cells"]
    ]
    assert shown == [
        (1, 0, "#ffffff", "private", 0, 5, 1),
        (1, 1, "#67000d", "private", 5, 5, 1),
        (0, 0, "#fcbba1", "share", 1, 10, 2),
    ]
    assert data["picked"] == ["income_full", HOSTILE]


def test_the_data_is_plain_json():
    import json

    data = grid_data(cells(), ("a", "b"), "#eee")
    assert json.loads(json.dumps(data)) == data


def test_a_click_is_read_only_as_two_names():
    """What a click reports comes from the browser: anything but two strings is no click."""
    assert clicked_cell(["income_full", HOSTILE]) == ("income_full", HOSTILE)
    for sent in (None, 5, "income", ["a"], ["a", "b", "c"], ["a", None], {"0": "a", "1": "b"}):
        assert clicked_cell(sent) is None


def test_a_download_name_sends_the_legend_of_the_saved_files_and_none_leaves_it_as_it_was(
    monkeypatch,
):
    import json

    from webapp.charts import heatgrid

    sent: list[dict] = []

    def grid(data: dict, key: str, on_cell_change: object) -> None:
        sent.append(data)

    monkeypatch.setattr(heatgrid, "_GRID", grid)
    legend = heatgrid.GridLegend(
        "leak frequency",
        "not withheld in that task",
        ramp=((0, "#ffffff"), (1, "#67000d")),
        ticks=(0, 50, 100),
    )
    assert heatgrid.heat_grid(cells(), None, "a", "#eee") is None
    heatgrid.heat_grid(cells(), None, "b", "#eee", download="leak_heatmap", legend=legend)
    assert sent[0] == grid_data(cells(), None, "#eee")
    assert sent[1] == {
        **sent[0],
        "download": "leak_heatmap",
        "legend": {
            "title": "leak frequency",
            "blank": "not withheld in that task",
            "ramp": [[0.0, "#ffffff"], [1.0, "#67000d"]],
            "ticks": [0, 50, 100],
            "swatches": [],
        },
    }
    assert json.loads(json.dumps(sent[1])) == sent[1]
    assert heatgrid.JS.index("function saveButtons") < heatgrid.JS.index("export default")
