"""The store's documented views from Python, for a notebook: ``cimem.open(path)`` returns a
:class:`Database` whose methods give each view as a pandas DataFrame (all of it, or one run's
rows), ``sql()`` runs a SELECT of one's own over them (the Explore page's sandbox, without its
row and time limits), and ``leak_cells()`` the per-cell leak table the metrics count.

>>> import tempfile, pathlib; from cimem.store import Store
>>> path = pathlib.Path(tempfile.mkdtemp()) / "n.duckdb"; Store.open(path).close()
>>> db = open(path)
>>> list(db.runs().columns)[:3], len(db.sql("SELECT * FROM runs"))
(['run_id', 'name', 'kind'], 0)
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

from cimem.analysis.breakdowns import pair_table
from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import MetricOptions
from cimem.store import Store
from cimem.store.explore import LEAK_CELLS, VIEWS, Sandbox
from cimem.store.location import is_lake, shown


def open(path: str | os.PathLike[str]) -> Database:  # noqa: A001 - cimem.open, as documented
    """A database's views: a file (it must exist: nothing is created) or a lake, any location
    ``--db`` takes."""
    return Database(path)


class Database:
    """A database read through its views. Each call opens it read-only and lets it go, so the
    app and commands go on using it meanwhile."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path: str | Path = str(path).strip() if is_lake(str(path)) else Path(path)
        if isinstance(self.path, Path) and not self.path.is_file():
            raise FileNotFoundError(f"{shown(str(path))}: no such database file")

    def _view(self, name: str, run: int | None) -> pd.DataFrame:
        with Sandbox(str(self.path)) as box:
            return box.view(name, run)

    def runs(self) -> pd.DataFrame:
        return self._view("runs", None)

    def profiles(self, run: int | None = None) -> pd.DataFrame:
        return self._view("profiles", run)

    def attributes(self, run: int | None = None) -> pd.DataFrame:
        return self._view("attributes", run)

    def contexts(self, run: int | None = None) -> pd.DataFrame:
        return self._view("contexts", run)

    def messages(self, run: int | None = None) -> pd.DataFrame:
        return self._view("messages", run)

    def judges(self, run: int | None = None) -> pd.DataFrame:
        return self._view("judges", run)

    def judgments(self, run: int | None = None) -> pd.DataFrame:
        return self._view("judgments", run)

    def verdicts(self, run: int | None = None) -> pd.DataFrame:
        return self._view("verdicts", run)

    def labels(self, run: int | None = None) -> pd.DataFrame:
        return self._view("labels", run)

    def hard_labels(self, run: int | None = None) -> pd.DataFrame:
        return self._view("hard_labels", run)

    def human_verdicts(self, run: int | None = None) -> pd.DataFrame:
        return self._view("human_verdicts", run)

    def leak_cells(
        self, run: int, judge: int | None = None, options: MetricOptions | None = None
    ) -> pd.DataFrame:
        """One row per labelled (profile, task, attribute) of the run under a judge (default:
        its original verdicts): its label, leaks of samples, and whether it counts for
        Violation (``in_violation``) or Completeness (``in_completeness``) under ``options``
        (default: official mode, unanimous labels), as the metrics count it."""
        with Store.open(self.path, read_only=True) as store:
            cube = cube_from_store(store, run, judge)
        return pair_table(cube, options or MetricOptions())

    def sql(self, query: str, run: int | None = None) -> pd.DataFrame:
        """A SELECT of one's own over the views (and ``leak_cells`` of ``run`` when given)."""
        extra = {LEAK_CELLS: self.leak_cells(run)} if run is not None else None
        with Sandbox(str(self.path), extra) as box:
            return box.query(query, max_rows=None, time_limit=None).frame


VIEW_NAMES = tuple(v.name for v in VIEWS)
