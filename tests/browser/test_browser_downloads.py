"""A real browser saves a chart as the chart it shows: a small app draws a line chart and the
heatmap grid with ``download`` set, Playwright on Debian's chromium clicks their "SVG" and "PNG"
buttons, and the files saved are an SVG holding the chart's series paths and legend text (and
the grid's cells and names) and a PNG."""

from __future__ import annotations

import textwrap
from pathlib import Path
from xml.etree import ElementTree

import pytest
from app_server import chromium, chromium_or_skip, running_script

pytestmark = chromium_or_skip()
SVG_NS = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
RUN = "1: <b>first</b> run"  # a name from data: saved as text, never as markup

SCRIPT = textwrap.dedent(
    f"""
    import pandas as pd
    import streamlit as st

    from webapp.charts import heatgrid, linechart

    st.title("Downloads")
    rows = pd.DataFrame(
        {{
            "run": [{RUN!r}] * 3 + ["2: second"] * 3,
            "curve": ["observed"] * 6,
            "T": [1, 2, 3] * 2,
            "violation": [2.0, 4.0, 5.0, 1.0, 1.5, 3.0],
        }}
    )
    enc = linechart.Encoding(
        "T", "tasks T", "tasks", "violation", "Violation (%)", "Violation %", "run", "curve",
        colour_title="run", dash_title="line",
    )
    data = linechart.chart_data(
        rows, enc, colours={{{RUN!r}: "#1f77b4", "2: second": "#ff7f0e"}},
        dashes={{"observed": [1, 0]}}, x_ticks=[1, 2, 3], x_domain=(1, 3),
    )
    linechart.line_chart(data, key="chart", download="growth_chart")
    cells = pd.DataFrame(
        {{
            "row": ["income", "health"], "key": ["income_key", "health_key"],
            "row_order": [0, 1], "column": ["Bank: loan", "Doctor: visit"],
            "context": ["Bank: apply for a loan", "Doctor: a visit"], "column_order": [0, 1],
            "fill": ["#ef3b2c", "#ffffff"], "label": ["private", "private"],
            "leaks": [3, 0], "samples": [4, 4], "profiles": [2, 2],
        }}
    )
    legend = heatgrid.GridLegend(
        "leak frequency", "not withheld in that task",
        ramp=((0, "#ffffff"), (0.25, "#ef3b2c"), (1, "#67000d")), ticks=(0, 25, 50, 75, 100),
    )
    heatgrid.heat_grid(cells, None, "heat", "#ececec", download="leak_heatmap", legend=legend)
    """
)


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    script = tmp_path_factory.mktemp("downloads") / "charts.py"
    script.write_text(SCRIPT, encoding="utf-8")
    with running_script(script) as base, chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 1400}, accept_downloads=True)
        page.goto(base)
        page.locator("div.linechart svg[role=img]").wait_for(timeout=60000)
        page.locator("div.heatgrid td[data-i]").first.wait_for(timeout=60000)
        yield page


def saved(page, box: str, kind: str, tmp_path: Path) -> tuple[str, bytes]:
    """Click the ``kind`` button of the chart in ``box``: the file's name and bytes."""
    button = page.locator(f"div.{box}").get_by_role("button", name=f"Download this chart as {kind}")
    with page.expect_download(timeout=30000) as info:
        button.click()
    path = tmp_path / info.value.suggested_filename
    info.value.save_as(path)
    return info.value.suggested_filename, path.read_bytes()


def texts(root: ElementTree.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG_NS}text")]


def test_the_line_charts_svg_is_the_chart_drawn_with_its_legend(page, tmp_path):
    name, body = saved(page, "linechart", "SVG", tmp_path)
    assert name == "growth_chart.svg"
    root = ElementTree.fromstring(body)
    assert root.tag == f"{SVG_NS}svg"
    drawn = page.locator("div.linechart svg[role=img] g.lines path").evaluate_all(
        "ps => ps.map(p => p.getAttribute('d'))"
    )
    paths = [p.get("d") for p in root.iter(f"{SVG_NS}path")]
    assert len(drawn) == 2 and set(drawn) <= set(paths)  # the series' paths, as on screen
    legend = next(g for g in root.iter(f"{SVG_NS}g") if g.get("class") == "legend")
    assert {"run", RUN, "2: second"} <= set(texts(legend))  # the legend, inside the file
    assert not [g for g in root.iter(f"{SVG_NS}g") if g.get("class") == "targets"]
    assert b"<b>" not in body  # a name is text in the file too


def test_the_line_charts_png_is_a_png_twice_the_size(page, tmp_path):
    name, body = saved(page, "linechart", "PNG", tmp_path)
    assert name == "growth_chart.png"
    assert body.startswith(PNG_SIGNATURE)
    width = int.from_bytes(body[16:20], "big")
    drawn = page.locator("div.linechart svg[role=img]").get_attribute("width")
    assert width == 2 * int(drawn)


def test_the_heatmaps_svg_has_its_cells_names_and_legend(page, tmp_path):
    name, body = saved(page, "heatgrid", "SVG", tmp_path)
    assert name == "leak_heatmap.svg"
    root = ElementTree.fromstring(body)
    fills = [r.get("fill") for r in root.iter(f"{SVG_NS}rect")]
    assert {"#ef3b2c", "#ffffff", "#ececec"} <= set(fills)
    words = texts(root)
    assert {"income", "health", "Bank: loan", "Doctor: visit"} <= set(words)
    assert {"leak frequency", "0%", "100%", "not withheld in that task"} <= set(words)
    name, body = saved(page, "heatgrid", "PNG", tmp_path)
    assert name == "leak_heatmap.png" and body.startswith(PNG_SIGNATURE)
