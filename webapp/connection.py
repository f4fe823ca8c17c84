"""The app's database: which one a visit opens (?db= confined to the data folder, else
$CIMEM_DB, else the demo), the server's one connection to it and each session's cursor.

The connection has the shape of Streamlit's own (``streamlit.connections.BaseConnection``:
``_connect``, ``reset``, a secrets section) and is global, one per database file; its cursors are
per session and per thread, so each session reads in its own transactions. The connection is
owned here rather than by ``st.connection``'s resource cache: the warm start
(:mod:`webapp.startup.warm`) opens the same file before the Streamlit runtime exists, and a
DuckDB file can be opened once per process.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import streamlit as st
from streamlit.connections import BaseConnection
from streamlit.runtime.scriptrunner import get_script_run_ctx

from cimem import paths
from cimem.errors import CimemError
from cimem.store import DatabaseRefused, Store
from webapp.render import escape_md
from webapp.startup import warm

DEMO_DB = warm.DEMO_DB


@dataclass(frozen=True)
class Database:
    path: str  # resolved, for opening
    shown: str  # what the visitor may see: what they typed, or a name inside the data folder


class DatabaseConnection(BaseConnection[Store]):
    """The server's one connection to a database file, with a cursor per session and thread:
    its own transactions, reading the last committed state (a second visitor keeps browsing
    while the first imports); every write goes through the database's one write lock
    (:meth:`cimem.store.Store.transaction`)."""

    def _connect(self, **kwargs: Any) -> Store:
        return warm.root(str(kwargs["path"]))

    def cursor(self) -> Store:
        """This session's cursor in this thread (made on first use, remade after a reset)."""
        root = self._instance
        ctx = get_script_run_ctx()
        key = (str(self._kwargs["path"]), ctx.session_id if ctx is not None else "")
        cursors: dict[tuple[str, str], tuple[Store, Store]]
        cursors = _threads.__dict__.setdefault("cursors", {})
        found = cursors.get(key)
        if found is None or found[0] is not root:
            found = cursors[key] = (root, root.cursor())
        return found[1]

    def close(self) -> None:
        """Nothing: the connection is shared with the warm start for the server's lifetime."""


_threads = threading.local()
_connections: dict[str, DatabaseConnection] = {}
_connections_lock = threading.Lock()


def connection(path: str) -> DatabaseConnection:
    """The connection to the database at ``path`` (one per server)."""
    with _connections_lock:
        found = _connections.get(path)
        if found is None:
            found = _connections[path] = DatabaseConnection("cimem", path=path)
        return found


def session_store(path: str) -> Store:
    """This session's cursor on the database at ``path``, in this thread (cached reads use it:
    they are keyed by the path, never by the URL)."""
    return connection(path).cursor()


def shown_name(path: str) -> str:
    """A server path as a visitor may see it: relative to the data folder, else its name."""
    p = Path(path).resolve()
    root = paths.data_dir()
    return p.relative_to(root).as_posix() if p.is_relative_to(root) else p.name


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
    path = warm.default_database()
    return Database(path, shown_name(path))


def db_path() -> str:
    """The database's resolved path (see :func:`database`)."""
    return database().path


def version() -> float:
    """Changes whenever the database file changes: the key that invalidates cached results."""
    return warm.file_version(db_path())


def ensure_demo_database() -> None:
    """Build the demo database from data/demo the first time (a few seconds)."""
    if db_path() == str(DEMO_DB) and not DEMO_DB.exists():
        from cimem.demo.simulate import build_demo_database

        with st.spinner("First run: building the demo database from data/demo (simulated data)..."):
            DEMO_DB.parent.mkdir(parents=True, exist_ok=True)
            tmp = DEMO_DB.with_suffix(".building")
            tmp.unlink(missing_ok=True)
            build_demo_database(tmp)
            tmp.rename(DEMO_DB)


def store() -> Store:
    """The open database of this visit; when it cannot be opened (another process holds it, it
    is not a cimem database), one line saying so, and a stop."""
    db = database()
    try:
        return session_store(db.path)
    except DatabaseRefused as exc:
        _refuse(f"{db.shown}: {exc.reason}")
    except CimemError as exc:
        _refuse(exc)
