"""The app's launcher: the libraries are imported before Streamlit runs app.py, and the options
reach `streamlit run`."""

import sys

from webapp.startup import serve


def test_serve_imports_the_libraries_then_runs_the_app_with_the_options(monkeypatch):
    from streamlit.web import cli

    from webapp import connection
    from webapp.startup import warm, warm_visit

    seen: dict = {}
    # recorded, not run: a cube build still running when the tests end would abort the process
    monkeypatch.setattr(warm, "start", lambda path: seen.setdefault("warm", path) and None)
    monkeypatch.setattr(warm_visit, "start", lambda: seen.setdefault("visit", True) and None)

    def fake_main(prog_name: str) -> int:
        seen["argv"] = list(sys.argv)
        seen["loaded"] = [name for name in serve.PRELOAD if name in sys.modules]
        return 0

    monkeypatch.setattr(cli, "main", fake_main)
    monkeypatch.setattr(sys, "argv", ["serve"])
    assert serve.main(["--server.port", "9999"]) == 0
    assert seen["argv"] == ["streamlit", "run", str(serve.APP), "--server.port", "9999"]
    assert seen["loaded"] == list(serve.PRELOAD)
    assert seen["warm"] == connection.default_database()  # the cubes of the default database
    assert seen["visit"]  # and the server's own first visit were started
    assert serve.APP.name == "app.py" and serve.APP.exists()


def test_nothing_preloaded_makes_streamlit_caches_before_the_runtime():
    # the app's own modules make Streamlit caches at import: they must wait for the runtime
    assert not [name for name in serve.PRELOAD if name.startswith("webapp")]
