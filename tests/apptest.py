"""Opening the app's pages in Streamlit's AppTest, shared by the app's tests, and reading the
plain HTML tables they draw."""

from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

from fixtures import shown_tables

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGES = [
    "webapp/pages/overview.py",
    "webapp/pages/leaks.py",
    "webapp/pages/growth.py",
    "webapp/pages/audit.py",
    "webapp/pages/learn.py",
    "webapp/pages/data.py",
    "webapp/pages/review.py",
    "webapp/pages/labels.py",
]
TITLES = ["Overview", "Leaks", "Growth", "Audit", "Learn the metrics", "Data", "Review", "Labels"]


def open_page(db: str, page: str, monkeypatch, **params) -> AppTest:
    monkeypatch.setenv("CIMEM_DB", db)
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if page != PAGES[0]:
        at.switch_page(page)
        at.run()
    return at


def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def leaderboard(at: AppTest) -> pd.DataFrame:
    """Overview's leaderboard as drawn (numbers as text: "-" where none is known)."""
    return next(t for t in shown_tables(at) if "shown" in t.columns)
