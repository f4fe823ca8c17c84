"""Waiting for a database file another process holds: DuckDB lets one process write a file, or
several read it, so a cimem process that finds it taken tries again for a while (``$CIMEM_DB_WAIT``
seconds), flagging beside the file when it waits to write, then names the process that holds it.
"""

from __future__ import annotations

import glob
import os
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path

import duckdb

from cimem.errors import CimemError
from cimem.paths import DB_WAIT_ENV


class DatabaseRefused(CimemError):
    """A file that is not a database cimem may open: ``reason`` says why without the path, so
    the app can name only what its visitor typed."""

    def __init__(self, path: str, reason: str):
        self.path, self.reason = path, reason
        super().__init__(f"{path}: {reason}")


class DatabaseBusy(DatabaseRefused):
    """Another process held the database for longer than this one would wait."""


class DatabaseReleased(CimemError):
    """The database was used while this process had let it go (:meth:`Database.released`)."""


DEFAULT_WAIT = 60.0  # seconds a process waits for a database another process holds


def default_wait() -> float:
    """Seconds to wait for a database another process holds: ``$CIMEM_DB_WAIT``, else 60.

    >>> os.environ[DB_WAIT_ENV] = "2.5"; default_wait()
    2.5
    >>> os.environ[DB_WAIT_ENV] = "soon"; default_wait()
    Traceback (most recent call last):
    ...
    cimem.errors.CimemError: CIMEM_DB_WAIT: expected seconds (a number >= 0), got 'soon'
    >>> del os.environ[DB_WAIT_ENV]; default_wait()
    60.0
    """
    text = os.environ.get(DB_WAIT_ENV, "").strip()
    if not text:
        return DEFAULT_WAIT
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise CimemError(f"{DB_WAIT_ENV}: expected seconds (a number >= 0), got {text!r}")
    return seconds


OnWait = Callable[[str], None]  # told once, when a wait starts: who holds the file
_WANTS_WRITE = ".wants-write."  # a flag beside the file: a process waits to write it


def process_running(pid: int) -> bool:
    """Whether process ``pid`` of this machine runs."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def writers_waiting(path: str) -> bool:
    """Whether another process waits to write the file: a process that shares it (the app) lets
    it go and holds back new reads for it, so a command is not kept out by a stream of reads."""
    base = Path(path)
    for flag in base.parent.glob(glob.escape(base.name) + _WANTS_WRITE + "*"):
        pid = flag.name.rsplit(".", 1)[-1]
        if pid.isdigit() and int(pid) != os.getpid() and process_running(int(pid)):
            return True
    return False


@contextmanager
def _flag_waiting(path: str) -> Iterator[None]:
    """The flag that says this process waits to write ``path``, while the block lasts."""
    flag = Path(f"{path}{_WANTS_WRITE}{os.getpid()}")
    flag.touch()
    try:
        yield
    finally:
        flag.unlink(missing_ok=True)


def connect(
    path: str, read_only: bool, wait: float = 0.0, on_wait: OnWait | None = None
) -> duckdb.DuckDBPyConnection:
    """DuckDB's connection. While another process holds the file (DuckDB lets one process write
    it, or several read it), try again for up to ``wait`` seconds, telling ``on_wait`` once who
    holds it, and (to write) flagging that this process waits; then DatabaseBusy naming that
    process."""
    first = _try_connect(path, read_only)
    if not isinstance(first, str):
        return first
    with nullcontext() if read_only else _flag_waiting(path):
        return _wait_for(path, read_only, wait, on_wait, first)


def _wait_for(
    path: str, read_only: bool, wait: float, on_wait: OnWait | None, holder: str
) -> duckdb.DuckDBPyConnection:
    """Retry opening the file until it is free or ``wait`` seconds have passed."""
    deadline = time.monotonic() + wait
    pause, told = 0.01, False
    while True:
        if time.monotonic() + pause > deadline:
            raise DatabaseBusy(
                path,
                f"open in another process{holder} for longer than the {wait:g} s this one"
                f" waits (${DB_WAIT_ENV}): DuckDB lets one process write a database, or several"
                " read it. cimem's own commands and the app take it only briefly; another"
                " program that keeps it open must stop first (a stopped run resumes with"
                " --resume), or work on a copy of the file.",
            )
        if on_wait is not None and not told:
            on_wait(f"open in another process{holder}")
            told = True
        time.sleep(pause)
        pause = min(pause * 1.5, 0.2)
        found = _try_connect(path, read_only)
        if not isinstance(found, str):
            return found
        holder = found


def _try_connect(path: str, read_only: bool) -> duckdb.DuckDBPyConnection | str:
    """DuckDB's connection, or, when another process holds the file, " (PID n)" or "" (or
    " (this process)" when another part of this one holds it the other way)."""
    try:
        return duckdb.connect(path, read_only=read_only)
    except duckdb.ConnectionException as exc:
        if "different configuration" not in str(exc):
            raise
        return " (this process)"  # open read-only here and wanted for writing, or the reverse
    except duckdb.IOException as exc:
        if "lock" not in str(exc).lower():
            raise DatabaseRefused(path, "DuckDB cannot open it") from None
        holder = re.search(r"\(PID (\d+)\)", str(exc))
        return f" (PID {holder.group(1)})" if holder else ""
