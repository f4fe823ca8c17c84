"""The app's database: which one a visit opens (?db= confined to the data folder, else
$CIMEM_DB, else the demo), and the server's share of it.

The server never keeps the file: each read (a cached read that missed) and each write of a visit
takes it through the database's :class:`~cimem.store.sharing.SharedDatabase`, which opens it when
the first of them needs it and lets it go when the last is done. So commands run beside the app on
the same file (`cimem metrics` reads while the app reads; `cimem ingest`, `judge` and `run` write
between the app's reads), and the next rerun shows what they wrote: cached reads are keyed by the
file's version. The shape of Streamlit's own connection (``BaseConnection``: ``_connect``,
``reset``, a secrets section) is kept, one per database file and server.

The one door of the app to its databases: which one a visit opens (:func:`database`, the default
:func:`default_database`), the file's version that keys every cached read (:func:`file_version`),
and the server's one share of each file (:func:`shared`, taken by the warm start of
:mod:`webapp.startup.warm` too). Writes go through :func:`webapp.cache.writing`, which forgets
the cached reads after them. Nothing here makes a Streamlit cache, so the server's start-up
(:mod:`webapp.startup.serve`) imports it before the runtime is up.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import AbstractContextManager, ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import duckdb
import pandas as pd
import streamlit as st
from streamlit.connections import BaseConnection

from cimem import paths
from cimem.demo.simulate import build_demo_database
from cimem.errors import CimemError
from cimem.store import DatabaseRefused, Store
from cimem.store.explore import Sandbox
from cimem.store.file_checks import written_by_newer_duckdb
from cimem.store.location import is_lake, lake_name
from cimem.store.sharing import SharedDatabase, SharedLake, share
from webapp.render import escape_md

DEMO_DB = Path(
    os.environ.get(paths.DEMO_DB_ENV)
    or Path(__file__).resolve().parents[1] / "local" / "demo.duckdb"
).resolve()
R = TypeVar("R")
_shares: dict[str, SharedDatabase] = {}
_shares_lock = threading.Lock()


def default_database() -> str:
    """The database of a visit without ?db=: $CIMEM_DB, else the demo's."""
    return os.environ.get(paths.DEFAULT_DB_ENV) or str(DEMO_DB)


def shared(path: str) -> SharedDatabase:
    """The server's one share of a database (DuckDB lets a process open a file once): held only
    while a read or write lasts. Only the database of a visit without ?db= is created when
    missing (the operator named it)."""
    with _shares_lock:
        found = _shares.get(path)
        if found is None:
            found = _shares[path] = share(path, create=path == default_database())
        return found


def file_version(path: str) -> float:
    """Changes whenever the database changes (a file's or its write-ahead log's mtime, a lake's
    snapshot): the key of every cached read of it."""
    found = shared(path)
    if isinstance(found, SharedLake):
        return float(found.snapshot())
    p = Path(path)
    wal = p.with_name(p.name + ".wal")
    return max((f.stat().st_mtime for f in (p, wal) if f.exists()), default=0.0)


@dataclass(frozen=True)
class Database:
    path: str  # resolved, for opening
    shown: str  # what the visitor may see: what they typed, or a name inside the data folder


class DatabaseConnection(BaseConnection[SharedDatabase]):
    """The server's share of one database file: :meth:`reading` and :meth:`writing` hold it
    only while they last."""

    def _connect(self, **kwargs: Any) -> SharedDatabase:
        return shared(str(kwargs["path"]))

    def reading(self) -> AbstractContextManager[Store]:
        """The database to read (on this thread's own cursor) while the block lasts."""
        return self._instance.reading()

    def writing(self) -> AbstractContextManager[Store]:
        """The database to write while the block lasts (other processes wait; this server's
        reads go on beside it)."""
        return self._instance.writing()

    def reading_file(self) -> AbstractContextManager[Store]:
        """The database to read with the file open read-only while the block lasts (this
        server's writes wait), so that a sandbox may attach it too."""
        return self._instance.reading_file()

    def close(self) -> None:
        """Nothing: the share is the server's (:func:`shared`), for its lifetime."""


_connections: dict[str, DatabaseConnection] = {}
_connections_lock = threading.Lock()


def connection(path: str) -> DatabaseConnection:
    """The connection to the database at ``path`` (one per server)."""
    with _connections_lock:
        found = _connections.get(path)
        if found is None:
            found = _connections[path] = DatabaseConnection("cimem", path=path)
        return found


@contextmanager
def reading_at(path: str) -> Iterator[Store]:
    """The database at ``path`` to read while the block lasts (cached reads use it: they are keyed
    by the path, never by the URL)."""
    with connection(path).reading() as store:
        yield store


def shown_name(path: str) -> str:
    """A server path as a visitor may see it: relative to the data folder, else its name (a
    lake: its database's name only, never its host, user or password)."""
    if is_lake(path):
        return lake_name(path)
    p = Path(path).resolve()
    root = paths.data_dir()
    return p.relative_to(root).as_posix() if p.is_relative_to(root) else p.name


def busy(exc: DatabaseRefused) -> None:
    """The page's one line when another process held the database longer than the app waits."""
    st.error(
        escape_md(f"{database().shown}: {exc.reason}") + " Reload the page to try again.",
        icon=":material/hourglass_top:",
    )


def _refuse(message: object) -> NoReturn:
    st.error(escape_md(message))
    st.stop()


def database() -> Database:
    """?db= in the URL (confined to the data folder), else $CIMEM_DB, else the demo database.
    A ?db= the data folder does not allow stops the page with one line saying why. A ?db= opens
    only a database that exists: a visit is no way to create files on the server (the operator
    creates one with $CIMEM_DB or ``python -m cimem ingest FILE --db NAME``)."""
    typed = st.query_params.get("db")
    if typed:
        try:
            found = paths.confine(typed, paths.data_dir(), paths.DATABASE_SUFFIXES)
        except paths.PathRefused as exc:
            _refuse(exc)
        return Database(str(found), typed)
    path = default_database()
    return Database(path, shown_name(path))


def db_path() -> str:
    """The database's resolved path (see :func:`database`)."""
    return database().path


def version() -> float:
    """Changes whenever the database file changes: the key that invalidates cached results."""
    return file_version(db_path())


_demo_checked: list[bool] = []  # the demo file's DuckDB version was checked in this process
_demo_lock = threading.Lock()  # one build per server; the file lock makes it one per machine


def ensure_demo_database() -> None:
    """Build the demo database from data/demo the first time (a few seconds), and again when
    the one there was written by a newer DuckDB (an older cimem's). Two visits at once (or a
    reload during the build) wait for one build and then read it: the build holds this
    server's lock and a lock file beside the database (other servers on the machine)."""
    if db_path() != str(DEMO_DB):
        return
    if DEMO_DB.exists() and _demo_checked:
        return
    with st.spinner("First run: building the demo database from data/demo (simulated data)..."):
        with _demo_lock, _machine_lock(DEMO_DB.with_suffix(".lock")):
            if DEMO_DB.exists() and not _demo_checked:  # once per server: reruns come here
                if written_by_newer_duckdb(DEMO_DB):
                    DEMO_DB.unlink()
            _demo_checked.append(True)
            if not DEMO_DB.exists():
                tmp = DEMO_DB.with_suffix(f".building-{os.getpid()}")
                tmp.unlink(missing_ok=True)
                try:
                    build_demo_database(tmp)
                    tmp.replace(DEMO_DB)
                finally:
                    tmp.unlink(missing_ok=True)


@contextmanager
def _machine_lock(lock_file: Path) -> Iterator[None]:
    """An exclusive lock on ``lock_file`` while the block lasts (waits for another process's)."""
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    with lock_file.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@contextmanager
def reading() -> Iterator[Store]:
    """This visit's database to read while the block lasts; when it cannot be opened (another
    process holds it too long, it is not a cimem database), one line saying so, and a stop."""
    with _held(write=False) as store:
        yield store


@contextmanager
def writing() -> Iterator[Store]:
    """This visit's database to write while the block lasts (every other process waits; the
    server's reads go on beside it, reading what is committed); refused as :func:`reading` is."""
    with _held(write=True) as store:
        yield store


@contextmanager
def _held(write: bool) -> Iterator[Store]:
    db = database()
    with ExitStack() as stack:
        conn = connection(db.path)
        try:
            store = stack.enter_context(conn.writing() if write else conn.reading())
        except DatabaseRefused as exc:
            _refuse(f"{db.shown}: {exc.reason}")
        except CimemError as exc:
            _refuse(exc)
        yield store


@contextmanager
def sandbox(extra: Mapping[str, pd.DataFrame]) -> Iterator[Sandbox]:
    """This visit's database as the query sandbox's views (and ``extra`` tables) while the block
    lasts; refused as :func:`reading` is."""
    db = database()
    with ExitStack() as stack:
        try:
            stack.enter_context(connection(db.path).reading_file())
            box = stack.enter_context(Sandbox(db.path, extra))
        except DatabaseRefused as exc:
            _refuse(f"{db.shown}: {exc.reason}")
        except (CimemError, duckdb.Error) as exc:
            _refuse(f"{db.shown}: {exc}")
        yield box


def opened(read: Callable[..., R], *args: Any) -> R:
    """``read(*args)``, a cached read of this visit's database; when the database cannot be
    opened, one line saying so, and a stop (a cached read that hits opens nothing)."""
    try:
        return read(*args)
    except DatabaseRefused as exc:
        _refuse(f"{database().shown}: {exc.reason}")
    except CimemError as exc:
        _refuse(exc)
