"""Shared test helpers: where the benchmark's reference files are, and small fixtures."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from cimem.store import Store

REPO = Path(__file__).resolve().parents[1]
# a page's unexpected error raises (Streamlit's box, AppTest's at.exception) instead of the one
# line visitors see, so a failing page fails its test; tests of that line unset it
os.environ.setdefault("CIMEM_SHOW_TRACEBACKS", "1")
SHARED = Path(os.environ.get("CIMEM_SHARED", REPO.parent / "shared" / "cimemories"))


def shared_file(name: str) -> Path:
    """A file of the benchmark's reference data; skips the test when it is not there."""
    path = SHARED / name
    if not path.exists():
        pytest.skip(
            f"benchmark reference file {path} is absent (these files are read from "
            "../shared/cimemories, never copied into the repository)"
        )
    return path


@pytest.fixture
def store(tmp_path: Path):
    with Store.open(tmp_path / "test.duckdb") as s:
        yield s


@pytest.fixture
def call_starts(monkeypatch) -> list[float]:
    """When the call loop started each model call (time.monotonic()): what its rpm pacing
    controls. A local server sees the arrivals shifted by each request's own latency, which
    varies by tens of milliseconds on a loaded machine."""
    import cimem.llm.calls as calls

    starts: list[float] = []
    real = calls.chat

    async def chat(*args, **kwargs):
        starts.append(time.monotonic())
        return await real(*args, **kwargs)

    monkeypatch.setattr(calls, "chat", chat)
    return starts


@pytest.fixture(scope="session")
def lake_server():
    """PostgreSQL on loopback for the session, started by ``bash scripts/lake start`` (skips
    where PostgreSQL is not installed); ``lake_server.new_lake()`` gives a fresh lake."""
    from app_server import free_port
    from lakes import remove, start_server

    server = start_server(free_port())
    yield server
    remove(server)


@pytest.fixture
def lake(lake_server) -> str:
    """A fresh, empty lake's location (``ducklake:postgres:...``)."""
    return lake_server.new_lake()


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    """The demo bundle in a database, once per test module."""
    from cimem.demo.simulate import build_demo_database

    path = tmp_path_factory.mktemp("app") / "demo.duckdb"
    build_demo_database(path)
    return str(path)


@pytest.fixture
def empty_db(tmp_path):
    """A database with nothing in it."""
    path = tmp_path / "empty.duckdb"
    Store.open(path).close()
    return str(path)


@pytest.fixture(scope="session")
def full_run(tmp_path_factory):
    """A full-size run made once per test session (see :mod:`full_size`): ``truth`` (the
    fabricator's 10 profiles x 5 trials, its verdicts the truth), ``judged`` (the same run as a
    judge missing 20% of reveals and adding 2% would have written it) and ``db``, a database
    holding ``judged`` as run 1. Tests that write copy ``db`` first."""
    from full_size import FullRun, make_full_run

    made: FullRun = make_full_run(tmp_path_factory.mktemp("full_run"))
    return made
