"""Checks of a database file before anything is written to it: a regular file, a DuckDB
database, and cimem's (or empty), never someone else's data."""

from __future__ import annotations

import os
import stat

import duckdb

from cimem.store.waiting import DatabaseRefused

NEWER_FILE = (
    f"written by a newer DuckDB than this cimem's ({duckdb.__version__}, the newest with the"
    " lake's extensions): open it with that DuckDB and EXPORT DATABASE, or import its runs'"
    " files again (docs/scaling.md, The DuckDB version)"
)

_DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 12 of every DuckDB database file
_CIMEM_TABLES = {"schema_info", "runs"}


def _probe(path: str) -> duckdb.DuckDBPyConnection | None:
    """A read-only look at a DuckDB file (None: another connection holds it, which opening it
    reports itself); DatabaseRefused when this DuckDB cannot read it."""
    try:
        return duckdb.connect(path, read_only=True)
    except duckdb.ConnectionException:
        return None  # already open in this process (checked when it was opened)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            return None  # held by another process: opening it says so
        if "newer version of DuckDB" in str(exc):
            raise DatabaseRefused(path, NEWER_FILE) from None
        raise DatabaseRefused(path, "a DuckDB database this DuckDB cannot read") from None
    except duckdb.Error:
        raise DatabaseRefused(path, "a DuckDB database this DuckDB cannot read") from None


def check_database_file(path: str) -> None:
    """Refuse, before any write, a path that is not a regular file, not a DuckDB database, or a
    DuckDB database with objects of its own but not cimem's tables (someone else's data)."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise DatabaseRefused(path, "not a regular file")
        with open(path, "rb") as f:
            head = f.read(12)
    except OSError:
        raise DatabaseRefused(path, "cannot be read") from None
    if head[8:12] != _DUCKDB_MAGIC:
        raise DatabaseRefused(path, "not a DuckDB database")
    probe = _probe(path)  # read-only: the check itself writes nothing
    if probe is None:
        return
    try:
        tables = {r[0] for r in probe.execute("SELECT table_name FROM duckdb_tables()").fetchall()}
        others = probe.execute(
            "SELECT (SELECT count(*) FROM duckdb_views() WHERE NOT internal)"
            " + (SELECT count(*) FROM duckdb_sequences())"
        ).fetchall()[0][0]
    finally:
        probe.close()
    if (tables or others) and not _CIMEM_TABLES <= tables:
        raise DatabaseRefused(
            path, "a DuckDB database that is not cimem's (refused, left untouched)"
        )


def written_by_newer_duckdb(path: str | os.PathLike) -> bool:
    """Whether the file is a database of a newer DuckDB than this one (derived data, such as
    the app's demo database, is then built again)."""
    try:
        duckdb.connect(str(path), read_only=True).close()
    except duckdb.IOException as exc:
        return "newer version of DuckDB" in str(exc)
    except duckdb.Error:
        return False
    return False
