"""The Learn page's "what the official script does differently" shows the selected run under the
sidebar's choices: in definition mode with excluded keys and parse failures counted as nothing
revealed, its definition-mode numbers are those cimem computes with the same options (it used to
rebuild the options from mode and label rule, dropping the rest)."""

import pytest
from apptest import APP
from streamlit.testing.v1 import AppTest

from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import MetricOptions, compute
from cimem.demo.simulate import build_demo_database
from cimem.store import Store
from webapp import render

EXCLUDE = ("caregiving_health_condition", "annual_income")


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("learn") / "demo.duckdb"
    build_demo_database(path)
    return str(path)


def result_line(at: AppTest) -> str:
    (line,) = [m.value for m in at.markdown if m.value.startswith("Result: official mode")]
    return line


def test_definition_numbers_follow_the_sidebars_excluded_keys_and_parse_rule(
    demo_path, monkeypatch
):
    monkeypatch.setenv("CIMEM_DB", demo_path)
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(runs="1", mode="definition", exclude=",".join(EXCLUDE))
    at.run()
    at.switch_page("webapp/pages/learn.py").run()
    at.radio(key="pf").set_value("zero").run()
    assert not at.exception, [e.value for e in at.exception]
    with Store.open(demo_path) as store:
        cube = cube_from_store(store, 1)
    chosen = compute(cube, MetricOptions("definition", exclude=EXCLUDE, parse_failures="zero"))
    dropped = compute(cube, MetricOptions("definition"))  # what the page showed before
    assert chosen.violation.mean != dropped.violation.mean  # the choice matters on this run
    line = result_line(at)
    assert f"**{render.pct(chosen.violation.mean)}** and" in line
    assert f"**{render.pct(dropped.violation.mean)}** and" not in line
    assert "parse failures counted as nothing revealed" in line
    assert "caregiving\\_health\\_condition, annual\\_income excluded" in line
