"""The example notebook in docs/ runs top to bottom on the demo database (its last cell checks
that Violation@n recomputed from leak_cells equals the metrics engine's)."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_the_example_notebook_runs_top_to_bottom(demo_db, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("CIMEM_DB", demo_db)
    monkeypatch.setenv("PYTHONPATH", str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    nb = nbformat.read(REPO / "docs" / "explore.ipynb", as_version=4)
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(REPO / "docs")}}
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    printed = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "Violation@n from leak_cells" in printed
