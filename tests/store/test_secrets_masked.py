"""A password in a lake's location is never shown, in any form PostgreSQL's client reads one: a
keyword bare, quoted or with spaces around "=", or a URI's user:password@. Not in a command's
one-line error, not in a lake that opens (compact prints its location), not in a bug's
traceback, not in the app server's log."""

from __future__ import annotations

import argparse
import importlib
import logging
import subprocess
import sys

import pytest

from webapp import failure

from conftest import REPO

SECRET = "hunter2"
cli_main = importlib.import_module(
    "cimem.cli.main"
)  # the module (cimem.cli.main is also its function)


def cimem(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cimem", *args], capture_output=True, text=True, cwd=REPO
    )


def forms(host: str, port: int) -> list[str]:
    """The same lake with its password written each way libpq takes one."""
    keywords = f"dbname=x host={host} port={port}"
    return [
        f"ducklake:postgres:{keywords} password={SECRET}",
        f"ducklake:postgres:{keywords} password='{SECRET} 2'",
        f"ducklake:postgres:{keywords} password = {SECRET}",
        f"ducklake:postgres:postgresql://cimem:{SECRET}@{host}:{port}/x",
    ]


@pytest.mark.parametrize("form", range(4))
def test_a_lake_not_there_never_prints_its_password(form: int):
    from app_server import free_port

    lake = forms("127.0.0.1", free_port())[form]
    done = cimem("runs", "--db", lake)
    assert done.returncode == 2 and "cannot be reached" in done.stderr, done.stderr
    assert SECRET not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_a_lake_that_opens_never_prints_its_password(lake: str):
    """The test server trusts its clients, so a password in the location is read and ignored:
    the lake opens, and compact prints its location."""
    with_password = f"{lake} password='{SECRET} 2'"
    done = cimem("compact", "--db", with_password)
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr and "password=***" in done.stdout


def test_a_bugs_traceback_masks_every_password(monkeypatch, capsys):
    def boom(args: argparse.Namespace) -> int:
        raise RuntimeError(f"lost ducklake:postgres:postgresql://cimem:{SECRET}@db.lab/x")

    parser = argparse.ArgumentParser()
    parser.set_defaults(func=boom)
    monkeypatch.setattr(cli_main, "build_parser", lambda: parser)
    assert cli_main.main([]) == cli_main.EXIT_BUG
    said = capsys.readouterr().err
    assert "Traceback" in said and "RuntimeError" in said and "in boom" in said
    assert SECRET not in said and "cimem:***@db.lab" in said


def test_the_app_servers_log_masks_every_password(monkeypatch, caplog):
    monkeypatch.delenv(failure.SHOW_TRACEBACKS_ENV, raising=False)
    monkeypatch.setattr(failure.st, "error", lambda *a, **k: None)
    try:
        raise OSError(f"cannot reach ducklake:postgres:dbname=x password = '{SECRET} 2' host=h")
    except OSError as exc:
        with caplog.at_level(logging.ERROR, logger="cimem.app"):
            failure.said(exc)
    assert "Traceback" in caplog.text and "OSError" in caplog.text
    assert SECRET not in caplog.text and "password = ***" in caplog.text
