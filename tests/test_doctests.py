"""The `>>>` examples in the docstrings of cimem and of the app's helpers (webapp, not its
pages, which are scripts) are collected and run by the suite.

pytest's doctest collection fails silently when a module stops being collected (a wrong
``testpaths``, a dropped ``--doctest-modules``, a rename): this test notices it.
"""

import re
import subprocess
import sys

from conftest import REPO

EXPECTED = {
    "cimem.analysis.agreement.cohen_kappa",
    "cimem.analysis.cube.first_bits",
    "cimem.analysis.cube.popcount",
    "cimem.analysis.growth.vocab.method_name",
    "cimem.analysis.labels",
    "cimem.analysis.leaks.drop_full_choices",
    "cimem.analysis.labels.LabelRule.apply",
    "cimem.analysis.labels.LabelRule.parse",
    "cimem.analysis.metrics.Summary.interval",
    "cimem.analysis.metrics.Summary.interval_text",
    "cimem.analysis.options.factorize",
    "cimem.analysis.overview_table.pareto_front",
    "cimem.cli.common.parse_where",
    "cimem.store.enums",
    "webapp.charts.assets",
    "webapp.charts.heatgrid.GridLegend.as_data",
    "webapp.charts.heatgrid.clicked_cell",
    "webapp.charts.heatgrid.grid_data",
    "webapp.charts.heatgrid.with_download",
    "webapp.charts.linechart.chart_data",
    "webapp.charts.linechart.with_download",
    "webapp.endpoints.is_local",
    "webapp.render.label_place",
    "webapp.render.ramp_colours",
    "cimem.publish.html_table.table_html",
}


def test_the_doctests_of_cimem_and_webapp_are_collected():
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doctests = set(re.findall(r"^(?:cimem|webapp)/\S+\.py::(\S+)$", proc.stdout, re.M))
    assert EXPECTED <= doctests, sorted(EXPECTED - doctests)
    assert len(doctests) >= len(EXPECTED)
