"""Opening a DuckLake over PostgreSQL, and writing to it beside other processes.

The DuckDB extensions come from the pinned wheels in ``requirements.txt`` (their files are loaded
by path, so nothing is downloaded). DuckLake keeps no PRIMARY KEY, UNIQUE, sequence or index and
refuses RETURNING, so the lake's tables are the file's without them, and ids come from counter
rows (:meth:`cimem.store.connection.Database.reserve_ids`). Two transactions that update or delete
in the same table conflict when the second commits: :func:`retry_conflicts` runs such a write
again, a bounded number of times, then names what gave up. Appends never conflict (DuckLake
merges them itself).
"""

from __future__ import annotations

import importlib.resources
import random
import re
import time
from collections.abc import Callable
from typing import TypeVar

import duckdb

from cimem.errors import CimemError
from cimem.store.location import LakeLocation, lake_name, sql_text
from cimem.store.location import shown as masked

T = TypeVar("T")
ALIAS = "cimem_lake"  # the lake's name inside the connection; every cursor USEs it
EXTENSIONS = (  # (package of the wheel, extension): PostgreSQL's scanner first, DuckLake needs it
    ("duckdb_extension_postgres_scanner", "postgres_scanner"),
    ("duckdb_extension_ducklake", "ducklake"),
)
ATTEMPTS = 40  # tries of one conflicting write before it gives up
FIRST_PAUSE = 0.02  # seconds before the first retry; each later pause is 1.5 times longer
LONGEST_PAUSE = 1.0
_SETTINGS = (  # DuckLake's own retries of appends that meet other appends
    "SET ducklake_max_retry_count = 100",
    "SET ducklake_retry_wait_ms = 20",
)


RETRIED = [0]  # writes this process ran again after a conflict (bench/lake.py reports it)


NOT_MADE = (
    "{lake}: no cimem tables in this lake yet (make them with `python -m cimem ingest FILE --db"
    " LAKE`)"
)


class WriteConflict(CimemError):
    """A write to a lake met other writers' changes on every one of its tries."""


class LakeUnavailable(CimemError):
    """The lake's catalog or its extensions could not be reached."""


# What PostgreSQL's client says, through DuckDB, when the lake's catalog cannot be reached: at
# the start of a command, or in the middle of one (then a query or its ROLLBACK fails)
_CATALOG_GONE = re.compile(
    r"Unable to connect to Postgres|connection to server at|server closed the connection"
    r"|terminating connection|no connection to the server|could not connect to server"
    r'|Failed to execute query "ROLLBACK"',
    re.IGNORECASE,
)
_LIBPQ_REASON = re.compile(r"failed: ([^\n\"]+)")


def catalog_gone(text: str) -> bool:
    """Whether an error's text says the lake's catalog cannot be reached.

    >>> catalog_gone('IO Error: Failed to execute query "ROLLBACK": no connection to the server')
    True
    >>> catalog_gone("Binder Error: column x not found")
    False
    """
    return bool(_CATALOG_GONE.search(text))


def catalog_line(location: str, text: str) -> str:
    """The one line a command prints when its lake's catalog cannot be reached (``text``: what
    DuckDB said): the lake, where its catalog is, libpq's reason, and what to do.

    >>> lake = "ducklake:postgres:dbname=runs host=db.lab port=5433 password=x data_path=/srv"
    >>> catalog_line(lake, 'to server at "db.lab", port 5433 failed: Connection refused\\n\\tIs')
    "lake runs: the lake's catalog, PostgreSQL at db.lab:5433, cannot be reached (Connection \
refused). Nothing was half written: run the command again once it is back."
    """
    found = _LIBPQ_REASON.search(text)
    why = f" ({found.group(1).strip().rstrip('.')})" if found else ""
    return (
        f"{lake_name(location)}: the lake's catalog, PostgreSQL at {_address(location)}, cannot"
        f" be reached{why}. Nothing was half written: run the command again once it is back."
    )


def _address(location: str) -> str:
    """HOST:PORT of a lake's catalog, as its keywords or its URI give them (libpq's defaults:
    this machine, port 5432)."""
    host = re.search(r"(?:^|[\s:])host=(\S+)", location)
    port = re.search(r"(?:^|\s)port=(\d+)", location)
    uri = re.search(r"://(?:[^@/\s]*@)?([^:/?\s]+)(?::(\d+))?", location)
    name = host.group(1) if host else uri.group(1) if uri else "localhost"
    number = port.group(1) if port else uri.group(2) if uri and uri.group(2) else "5432"
    return f"{name}:{number}"


def extension_file(package: str, name: str) -> str:
    """The extension's file inside its pinned wheel, for this DuckDB's version."""
    version = duckdb.__version__
    path = importlib.resources.files(package) / "extensions" / f"v{version}"
    return str(path / f"{name}.duckdb_extension")


def connect_lake(lake: LakeLocation, read_only: bool, shown: str) -> duckdb.DuckDBPyConnection:
    """A connection whose default database is the lake (made on first use when writable)."""
    con = duckdb.connect(
        ":memory:",
        config={"autoinstall_known_extensions": False, "autoload_known_extensions": False},
    )
    try:
        attach_lake(con, lake, ALIAS, read_only, shown)
        con.execute(f"USE {ALIAS}")
    except BaseException:
        con.close()
        raise
    return con


def attach_lake(
    con: duckdb.DuckDBPyConnection, lake: LakeLocation, alias: str, read_only: bool, shown: str
) -> None:
    """Load the pinned extensions into ``con`` and attach the lake as ``alias``;
    LakeUnavailable, with the first line of DuckDB's reason, when it cannot be."""
    try:
        for package, name in EXTENSIONS:
            con.execute(f"LOAD {sql_text(extension_file(package, name))}")
        for setting in _SETTINGS:
            con.execute(setting)
        options = ["READ_ONLY"] if read_only else []
        if lake.data_path:
            options.append(f"DATA_PATH {sql_text(lake.data_path)}")
        extra = f" ({', '.join(options)})" if options else ""
        attach = f"ATTACH {sql_text('ducklake:' + lake.catalog)} AS {alias}{extra}"
        retry_conflicts(lambda: con.execute(attach), f"{shown}: making the lake", _MADE_AT_ONCE)
    except (duckdb.Error, ModuleNotFoundError, FileNotFoundError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        if read_only and "creating a new DuckLake is explicitly disabled" in first:
            raise LakeUnavailable(NOT_MADE.format(lake=shown)) from None
        raise LakeUnavailable(f"{shown}: the lake cannot be opened: {masked(first)}") from None


def use_lake(con: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    """A new cursor of a lake's connection reads and writes the lake, as its root does."""
    con.execute(f"USE {ALIAS}")
    return con


_CONFLICT = re.compile(
    # another writer's commit; or two processes making a new lake's catalog at once
    r"conflict|Failed to initialize DuckLake.*(duplicate key|already exists)",
    re.IGNORECASE | re.DOTALL,
)
_MADE_AT_ONCE = 10  # tries of opening a lake that other processes are making at the same moment


def is_conflict(exc: BaseException) -> bool:
    """Whether a write (or a new lake's making) met another process's and is worth trying
    again."""
    return isinstance(exc, duckdb.Error) and bool(_CONFLICT.search(str(exc)))


def retry_conflicts(write: Callable[[], T], what: str, attempts: int = ATTEMPTS) -> T:
    """Run ``write`` (one whole transaction) until it commits without a conflict, pausing a
    little longer (with jitter) each time; WriteConflict naming ``what`` after ``attempts``."""
    pause = FIRST_PAUSE
    for attempt in range(1, attempts + 1):
        try:
            return write()
        except duckdb.Error as exc:
            if not is_conflict(exc) or attempt == attempts:
                if is_conflict(exc):
                    raise WriteConflict(
                        f"{what}: gave up after {attempts} tries, each of which met another"
                        " writer's change to the same table; nothing of it was written. Run it"
                        " again when the other writers are done."
                    ) from None
                raise
        RETRIED[0] += 1
        time.sleep(pause * (0.5 + random.random()))
        pause = min(pause * 1.5, LONGEST_PAUSE)
    raise AssertionError("unreachable")


_LAKE_DROPPED = (
    (re.compile(r"CREATE SEQUENCE[^;]*;\n?"), ""),
    (re.compile(r" PRIMARY KEY"), ""),
)


def lake_schema(sql: str) -> str:
    """The file's DDL as a lake takes it: no sequences, no PRIMARY KEY.

    >>> lake_schema("CREATE SEQUENCE IF NOT EXISTS s START 1;\\nCREATE TABLE t (a INTEGER PRIMARY KEY);")
    'CREATE TABLE t (a INTEGER);'
    """
    for pattern, replacement in _LAKE_DROPPED:
        sql = pattern.sub(replacement, sql)
    return sql
