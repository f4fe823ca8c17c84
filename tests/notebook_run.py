"""Runs docs/explore.ipynb top to bottom on a database, as a reader opening it would."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def printed_by_example_notebook(
    db: Path | str, monkeypatch: pytest.MonkeyPatch, seconds: int
) -> str:
    """What the notebook printed when run on ``db`` (CIMEM_DB) from docs/, each cell given at
    most ``seconds``; fails the test when a cell raised (skips when nbclient is absent)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    monkeypatch.setenv("CIMEM_DB", str(db))
    monkeypatch.setenv("PYTHONPATH", str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    nb = nbformat.read(REPO / "docs" / "explore.ipynb", as_version=4)
    nbclient.NotebookClient(
        nb,
        timeout=seconds,
        kernel_name="python3",
        resources={"metadata": {"path": str(REPO / "docs")}},
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    return "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
