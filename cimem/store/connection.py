"""The database connection: opening and checking the file, cursors, transactions, bulk appends,
and reading typed rows by column name.

Every aggregate's methods (runs, messages, judges, labels, human verdicts, the call cache) are
mixins over :class:`Database`; :class:`cimem.store.Store` composes them.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import stat
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, Self, TypeVar

import duckdb
import pyarrow as pa

from cimem.paths import default_db_path, private_files
from cimem.store.rows import field_names
from cimem.store.schema import (
    COUNT_SQL,
    INSERT_SQL,
    MIGRATE_1_TO_2,
    MIGRATE_3_TO_4,
    MIGRATE_4_TO_5,
    SCHEMA_SQL,
    SCHEMA_VERSION,
    SHIFTED_INSERT_SQL,
)
from cimem.store.waiting import (
    DatabaseRefused,
    DatabaseReleased,
    OnWait,
    connect,
    default_wait,
)

R = TypeVar("R")

_THREADS_SQL = {
    "get": "SELECT current_setting('threads')",
    "set": "SET threads = ?",
}
_COUNTER_SQL = {
    "get": "SELECT last FROM id_counters WHERE name = ?",
    "set": "UPDATE id_counters SET last = ? WHERE name = ?",
    "add": "INSERT INTO id_counters (last, name) VALUES (?, ?)",
    "run": "SELECT coalesce(max(run_id), 0) FROM runs",
    "judge": "SELECT coalesce(max(judge_id), 0) FROM judges",
}


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


def now() -> datetime:
    """The time stored in TIMESTAMP columns: UTC without a zone."""
    return datetime.now(UTC).replace(tzinfo=None)


class Database:
    """An open cimem database: the connection every aggregate's methods share."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, path: str, lock: threading.RLock | None = None
    ):
        self.con = con
        self.path = path
        self._lock = lock or threading.RLock()  # shared by every cursor of this database
        self._depth = 0  # transactions open on this cursor (inner ones join the outer one)
        self._reopen: Callable[[], duckdb.DuckDBPyConnection] | None = None  # roots only
        self._writable = False  # opened for writing (its journal is merged on opening)
        self._released = False

    def cursor(self) -> Self:
        """Another handle on the same open database, for another thread or app session: its own
        transactions and snapshot (it reads the last committed state), the same write lock."""
        return type(self)(self.con.cursor(), self.path, self._lock)

    @property
    def is_released(self) -> bool:
        """Whether this process has let the file go for now (:meth:`released`)."""
        return self._released

    @contextmanager
    def released(self) -> Iterator[None]:
        """Let other processes have the file during a long stretch that needs no database (the
        model calls of a run, a judge or labelling), then take it again, waiting as
        :meth:`open` does; a journal a stopped process left is merged then. Nothing is let go
        inside a transaction, by a cursor, or by an in-memory database; a use of the store in
        between raises :class:`DatabaseReleased`."""
        if self._reopen is None or self._depth or self._released:
            yield
            return
        with self._lock:
            self.con.close()
            self.con = _Released(self.path)  # type: ignore[assignment]
            self._released = True
        try:
            yield
        finally:
            with self._lock:
                self.con = self._reopen()
                self._released = False
                if self._writable:
                    self._after_retake()

    @classmethod
    def open(
        cls,
        path: str | os.PathLike | None = None,
        read_only: bool = False,
        *,
        create_folders: bool = True,
        wait: float | None = None,
        on_wait: OnWait | None = None,
        check: bool = True,
    ) -> Self:
        """Open (and, unless read-only, create or migrate) the database at ``path``.

        An existing file is checked before anything is written to it: it must be a DuckDB
        database that is empty or already cimem's; anything else raises
        :class:`DatabaseRefused` and the file is left untouched. A missing folder is created
        unless ``create_folders`` is false (the app never creates folders). Files the process
        creates from here on are its owner's only (see :func:`cimem.paths.private_files`).
        While another process holds the file, wait up to ``wait`` seconds (default:
        :func:`default_wait`), telling ``on_wait`` once, then raise :class:`DatabaseBusy`.
        ``check=False`` skips the file's checks (for a file this process has checked before)."""
        path = str(path or default_db_path())
        if path != ":memory:":
            private_files()  # the database, its WAL and the call journal: 0600
            file = Path(path)
            if file.exists() or file.is_symlink():
                if check:
                    check_database_file(path)
            elif read_only:
                raise FileNotFoundError(f"{path}: no such database")
            elif not file.parent.is_dir():
                if not create_folders:
                    raise DatabaseRefused(path, "its folder does not exist")
                file.parent.mkdir(parents=True, exist_ok=True)
        seconds = default_wait() if wait is None else wait
        store = cls(connect(path, read_only, seconds, on_wait), path)
        if path != ":memory:":
            store._reopen = lambda: connect(path, read_only, seconds, on_wait)
        if not read_only:
            store._writable = True
            store._ensure_schema()
            store._after_open()
        return store

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.con.close()

    def _ensure_schema(self) -> None:
        if self._current_schema():
            return  # nothing to create or migrate: opening writes nothing
        self.con.execute(SCHEMA_SQL)
        version = self.con.execute("SELECT max(version) FROM schema_info").fetchall()[0][0]
        if version is None:
            self.con.execute("INSERT INTO schema_info VALUES (?)", [SCHEMA_VERSION])
        elif version < SCHEMA_VERSION:
            with self.transaction():
                if version < 2:
                    self.con.execute(MIGRATE_1_TO_2)
                if version < 4:
                    self.con.execute(MIGRATE_3_TO_4)
                if version < 5:
                    self.con.execute(MIGRATE_4_TO_5)
                # 6 and 7 added tables only: SCHEMA_SQL above has made them
                self.con.execute("UPDATE schema_info SET version = ?", [SCHEMA_VERSION])
        elif version > SCHEMA_VERSION:
            raise RuntimeError(
                f"{self.path}: schema version {version} is newer than this cimem ({SCHEMA_VERSION})"
            )

    def _current_schema(self) -> bool:
        """Whether the file already has this cimem's schema version."""
        found = self.con.execute(
            "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'schema_info'"
        ).fetchall()[0][0]
        if not found:
            return False
        version = self.con.execute("SELECT max(version) FROM schema_info").fetchall()[0][0]
        return bool(version == SCHEMA_VERSION)

    def _after_retake(self) -> None:
        """What an aggregate does when the process takes the file back after letting it go
        (:meth:`released`)."""

    def _after_open(self) -> None:
        """What an aggregate does once the schema is there (the call cache merges its journal)."""

    def schema_version(self) -> int:
        return int(self.con.execute("SELECT max(version) FROM schema_info").fetchall()[0][0])

    @contextmanager
    def transaction(self) -> Iterator[Self]:
        """All or nothing: on any exception the database is left exactly as it was.

        Every write of the store goes through here, under one lock shared by all cursors of the
        database: writes of different threads or sessions never interleave, and a write never
        lands inside another's transaction. A transaction opened inside another on the same
        cursor joins it."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield self
                finally:
                    self._depth -= 1
                return
            self.con.execute("BEGIN TRANSACTION")
            self._depth = 1
            try:
                yield self
            except BaseException:
                self._depth = 0
                self.con.execute("ROLLBACK")
                raise
            self._depth = 0
            self.con.execute("COMMIT")

    @contextmanager
    def rolled_back(self) -> Iterator[Self]:
        """A transaction undone at its end, whatever happens inside: what a dry run writes to
        find out what it would do (a run, its id) leaves no trace, not even a used-up id."""
        with self._lock:
            if self._depth:
                raise RuntimeError("a rolled-back transaction cannot run inside another")
            self.con.execute("BEGIN TRANSACTION")
            self._depth = 1
            try:
                yield self
            finally:
                self._depth = 0
                self.con.execute("ROLLBACK")

    def table_counts(self) -> dict[str, int]:
        """Row count of every table (tests use it to prove a failed import changed nothing)."""
        return {t: int(self.con.execute(sql).fetchall()[0][0]) for t, sql in COUNT_SQL.items()}

    def append(self, table: str, data: pa.Table, shift: Mapping[str, int] | None = None) -> None:
        """Bulk-insert an Arrow table whose columns carry the target table's column names;
        ``shift``: how far to move each id column (:data:`ID_COLUMNS`) of a part of a file that
        was numbered from zero."""
        if table not in INSERT_SQL:
            raise ValueError(f"not a bulk table: {table}")
        self.con.register("_bulk", data)
        try:
            if shift is None:
                self.con.execute(INSERT_SQL[table])
            else:
                sql, columns = SHIFTED_INSERT_SQL[table]
                self.con.execute(sql, [shift[c] for c in columns])
        finally:
            self.con.unregister("_bulk")

    @contextmanager
    def bulk_appender(
        self, depth: int = 4, *, threads: int | None = None
    ) -> Iterator[BulkAppender]:
        """Appends run on a background thread (DuckDB releases the GIL), so parsing the next
        record overlaps with writing this one. Errors surface at the next put or at exit.
        ``threads``: DuckDB's own threads meanwhile (when other processes parse for the appends,
        more threads only take cores from them), the setting restored after."""
        with self._threads(threads):
            appender = BulkAppender(self, depth)
            try:
                yield appender
            except BaseException:
                appender.close(raise_error=False)
                raise
            appender.close()

    @contextmanager
    def _threads(self, threads: int | None) -> Iterator[None]:
        if threads is None:
            yield
            return
        before = self.con.execute(_THREADS_SQL["get"]).fetchall()[0][0]
        self.con.execute(_THREADS_SQL["set"], [threads])
        try:
            yield
        finally:
            self.con.execute(_THREADS_SQL["set"], [before])

    def _next_id(self, name: str) -> int:
        """The next run or judge id, counted in a table rather than a sequence: a sequence is not
        rolled back, so a failed import would use up an id; this counter is part of the
        transaction. It never goes below the highest id in use, so a deleted run's id is not
        given again."""
        kept = self.con.execute(_COUNTER_SQL["get"], [name]).fetchall()
        top = int(self.con.execute(_COUNTER_SQL[name]).fetchall()[0][0])
        nxt = max(int(kept[0][0]) if kept else 0, top) + 1
        self.con.execute(_COUNTER_SQL["set" if kept else "add"], [nxt, name])
        return nxt

    def _scalar(self, sql: str, params: Sequence[object] = ()) -> Any:
        """The one value a query returns (None when it returns no row)."""
        rows = self.con.execute(sql, list(params)).fetchall()
        return rows[0][0] if rows else None

    def _rows(
        self,
        row_type: type[R],
        sql: str,
        params: Sequence[object] = (),
        convert: Mapping[str, Callable[[Any], Any]] | None = None,
    ) -> list[R]:
        """The query's rows as ``row_type``, matched by name: the query must name its columns
        exactly as the type names its fields (in the same order, so a NamedTuple can be made
        from each database tuple at full speed). ``convert`` maps a column's stored text to
        its enum member."""
        cur = self.con.execute(sql, list(params))
        names = tuple(d[0] for d in cur.description)
        if names != field_names(row_type):
            raise TypeError(f"{row_type.__name__} has fields {field_names(row_type)}, got {names}")
        rows = cur.fetchall()
        if convert:
            at = [(names.index(n), f) for n, f in convert.items()]
            rows = [_converted(r, at) for r in rows]
        if dataclasses.is_dataclass(row_type):
            return [row_type(**dict(zip(names, r))) for r in rows]
        return list(map(row_type._make, rows))  # type: ignore[attr-defined]


class _Released:
    """Stands for the connection while the process has let the file go."""

    def __init__(self, path: str):
        self._path = path

    def __getattr__(self, name: str) -> NoReturn:
        raise DatabaseReleased(
            f"{self._path}: used while this process had let it go for a long stretch of model"
            " calls (a bug: read before the calls, write after them)"
        )


def _converted(row: tuple, at: list[tuple[int, Callable[[Any], Any]]]) -> tuple:
    values = list(row)
    for i, f in at:
        values[i] = f(values[i])
    return tuple(values)


_Batch = tuple[list[tuple[str, pa.Table]], Mapping[str, int] | None]


class BulkAppender:
    """A bounded queue of (table, Arrow data) drained by one writer thread."""

    def __init__(self, store: Database, depth: int):
        self._store = store
        self._queue: queue.Queue[_Batch | None] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._error is None:
                batch, shift = item
                try:
                    for table, data in batch:
                        self._store.append(table, data, shift)
                except BaseException as exc:  # surfaced in the caller's thread
                    self._error = exc

    def put(
        self, batch: list[tuple[str, pa.Table]], shift: Mapping[str, int] | None = None
    ) -> None:
        """Append the tables (their id columns moved by ``shift``, see :meth:`Database.append`)."""
        if self._error is not None:
            raise self._error
        self._queue.put((batch, shift))

    def close(self, raise_error: bool = True) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if raise_error and self._error is not None:
            raise self._error
