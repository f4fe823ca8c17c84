"""The server's own first visit: a fresh server opens every page once (so a person's first page is
drawn from warm caches), says so on its console, and reports a page whose script fails."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from app_server import REPO, free_port

from cimem.demo.simulate import build_demo_database
from webapp.startup import warm_visit

TWO_PAGES = """
import streamlit as st

def fine():
    st.write("fine")

def broken():
    raise ValueError("boom")

st.navigation([st.Page(fine, default=True), st.Page(broken)]).run()
"""


def launch(args: list[str], env: dict[str, str]) -> tuple[subprocess.Popen, list[str]]:
    """A server process and the lines of its console, read as they come."""
    proc = subprocess.Popen(
        [sys.executable, "-m", *args, "--server.headless", "true"],
        cwd=REPO,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(proc.stderr or ()), daemon=True).start()
    return proc, lines


def wait_for(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return False


def test_a_fresh_server_opens_every_page_once_and_says_it_is_ready(tmp_path):
    db = tmp_path / "demo.duckdb"
    build_demo_database(db)
    port = free_port()
    proc, lines = launch(
        ["webapp.startup.serve", "--server.port", str(port)],
        {"CIMEM_DB": str(db), "CIMEM_WARM_VISIT": "1"},
    )
    try:
        assert wait_for(lambda: any(x.startswith("cimem: ready") for x in lines), 240), lines
        ready = next(x for x in lines if x.startswith("cimem: ready"))
        assert f"{len(warm_visit.PAGES)} pages opened once" in ready
        assert "exception" not in ready  # every page ran without one
        urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=5)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_the_visit_reports_the_page_whose_script_failed(tmp_path):
    app = tmp_path / "two_pages.py"
    app.write_text(TWO_PAGES)
    port = free_port()
    proc, _ = launch(
        ["streamlit", "run", str(app), "--server.port", str(port), "--server.address", "127.0.0.1"],
        {},
    )
    try:

        def answers() -> bool:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2)
                return True
            except OSError:
                return False

        assert wait_for(answers, 60)
        report = warm_visit.visit(f"ws://127.0.0.1:{port}/_stcore/stream", ("", "broken"))
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert set(report.seconds) == {"", "broken"}
    assert report.exceptions == {"broken": "ValueError"}
    assert report.summary().startswith("2 pages opened once in ")
    assert report.summary().endswith("an exception on broken (ValueError)")


def test_it_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("CIMEM_WARM_VISIT", "0")
    assert warm_visit.start() is None


@pytest.mark.parametrize(
    "address,base,expected",
    [
        ("127.0.0.1", "", "127.0.0.1:8123/_stcore"),
        ("0.0.0.0", "cimem/", "127.0.0.1:8123/cimem/_stcore"),
        ("::1", "", "[::1]:8123/_stcore"),
    ],
)
def test_the_visit_finds_the_server_where_it_listens(monkeypatch, address, base, expected):
    from streamlit import config

    options = {
        "server.sslCertFile": None,
        "server.address": address,
        "server.baseUrlPath": base,
        "server.port": 8123,
    }
    monkeypatch.setattr(config, "get_option", options.__getitem__)
    assert warm_visit._server_urls() == (
        f"http://{expected}/health",
        f"ws://{expected}/stream",
    )
    options["server.sslCertFile"] = str(Path("cert.pem"))
    assert warm_visit._server_urls() is None  # under TLS: no visit


def test_ready_waits_for_the_curves_started_in_the_background():
    from webapp.startup import prefetch

    key = ("a test's background work",)
    prefetch.start(key, time.sleep, 0.5)
    made = prefetch.started()[key]
    try:
        assert not prefetch.wait_for_prefetch(timeout=0.01)
        assert prefetch.wait_for_prefetch(timeout=30) and made.done()
    finally:
        prefetch.forget(key)
