"""Opening the app's pages in Streamlit's AppTest, shared by the app's tests."""

from pathlib import Path

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
