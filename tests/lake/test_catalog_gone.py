"""A lake whose catalog goes away (its PostgreSQL stopped): every command says so in one line
(where the catalog is and why it cannot be reached), also when it goes in the middle of a
command; a page says so in one line without the catalog's address; and once PostgreSQL is back,
the same command and page work again. The catalog is a server of this module's own, since it is
stopped."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from app_server import free_port
from apptest import APP, no_exception
from lakes import LakeServer, remove, start_server
from streamlit.testing.v1 import AppTest

from conftest import REPO
from fixtures import small_profile, write_jsonl

cli_main = importlib.import_module("cimem.cli.main")  # the module (cimem.cli.main is its function)


@pytest.fixture(scope="module")
def own_server() -> Iterator[LakeServer]:
    server = start_server(free_port())
    yield server
    remove(server)


@pytest.fixture
def filled_lake(own_server: LakeServer, tmp_path: Path) -> Iterator[str]:
    """A lake of one run on the module's server, which is running again after the test."""
    lake = own_server.new_lake()
    source = write_jsonl(tmp_path / "a.jsonl", [small_profile("Ada")])
    assert cimem("ingest", str(source), "--db", lake).returncode == 0
    yield lake
    restart(own_server)


def cimem(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cimem", *args], capture_output=True, text=True, cwd=REPO
    )


def restart(server: LakeServer) -> None:
    subprocess.run(
        ["bash", "scripts/lake", "start", str(server.folder), str(server.port)],
        cwd=REPO,
        capture_output=True,
        check=True,
    )


def one_line_about_the_catalog(said: str, port: int) -> None:
    assert said.startswith("error: lake ") and said.count("\n") == 1, said
    assert f"the lake's catalog, PostgreSQL at 127.0.0.1:{port}, cannot be reached" in said
    assert "(Connection refused)" in said and "run the command again" in said
    for noise in ("IO Error", "Binder Error", "SELECT", "Traceback", "data_path"):
        assert noise not in said, said


def test_every_command_names_a_stopped_catalog_in_one_line_and_works_once_it_is_back(
    own_server: LakeServer, filled_lake: str, tmp_path: Path
):
    own_server.stop()
    source = write_jsonl(tmp_path / "b.jsonl", [small_profile("Bo")])
    for args in (["runs"], ["metrics"], ["ingest", str(source)], ["compact"]):
        done = cimem(*args, "--db", filled_lake)
        assert done.returncode == 2, (args, done.stderr)
        one_line_about_the_catalog(done.stderr, own_server.port)
    restart(own_server)
    done = cimem("runs", "--db", filled_lake)
    assert done.returncode == 0 and "a" in done.stdout, done.stderr  # nothing was half written
    assert cimem("ingest", str(source), "--db", filled_lake).returncode == 0


def test_a_catalog_lost_in_the_middle_of_a_command_is_one_line(monkeypatch, capsys):
    lost = 'IO Error: Failed to execute query "ROLLBACK": server closed the connection unexpectedly'

    def write(args: argparse.Namespace) -> int:
        raise duckdb.IOException(lost)

    parser = argparse.ArgumentParser()
    parser.add_argument("--db")
    parser.set_defaults(func=write)
    monkeypatch.setattr(cli_main, "build_parser", lambda: parser)
    lake = "ducklake:postgres:dbname=runs host=db.lab port=5433 password=secret"
    assert cli_main.main(["--db", lake]) == 2
    said = capsys.readouterr().err
    assert said.startswith("error: lake runs: the lake's catalog, PostgreSQL at db.lab:5433")
    assert said.count("\n") == 1 and "ROLLBACK" not in said and "secret" not in said


def test_a_page_says_the_catalog_is_gone_and_works_once_it_is_back(
    own_server: LakeServer, filled_lake: str, monkeypatch
):
    monkeypatch.delenv("CIMEM_SHOW_TRACEBACKS", raising=False)
    monkeypatch.setenv("CIMEM_DB", filled_lake)
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    no_exception(at)
    assert not at.error
    own_server.stop()
    for page in ("webapp/pages/overview.py", "webapp/pages/leaks.py", "webapp/pages/audit.py"):
        at.switch_page(page).run()
        no_exception(at)
        errors = [e.value for e in at.error]
        assert len(errors) == 1 and "catalog (its PostgreSQL server) cannot be reached" in errors[0]
        assert str(own_server.port) not in errors[0] and "127.0.0.1" not in errors[0]
    restart(own_server)
    at.switch_page("webapp/pages/overview.py").run()
    no_exception(at)
    assert not at.error and "Ada" not in str([e.value for e in at.error])
