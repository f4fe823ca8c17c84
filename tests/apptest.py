"""Opening the app's pages in Streamlit's AppTest, shared by the app's tests, and reading the
plain HTML tables they draw."""

from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")
PAGES = [
    "webapp/pages/overview.py",
    "webapp/pages/leaks.py",
    "webapp/pages/growth.py",
    "webapp/pages/audit.py",
    "webapp/pages/learn.py",
    "webapp/pages/data.py",
]
TITLES = ["Overview", "Leaks", "Growth", "Audit", "Learn the metrics", "Data"]


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


class _Tables(HTMLParser):
    """Every <table> of an HTML text as rows of cell texts (headers first)."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "table":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def html_tables(at: AppTest) -> list[pd.DataFrame]:
    """The page's plain HTML tables (render.static_table), each as text cells by its headers."""
    found = []
    for element in at.get("html"):
        parser = _Tables()
        parser.feed(element.proto.body)
        for rows in parser.tables:
            if rows:
                found.append(pd.DataFrame(rows[1:], columns=rows[0]))
    return found


def leaderboard(at: AppTest) -> pd.DataFrame:
    """Overview's leaderboard as drawn (numbers as text: "-" where none is known)."""
    return next(t for t in html_tables(at) if "shown" in t.columns)
