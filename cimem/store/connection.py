"""The database connection: opening and checking the file, cursors, transactions, bulk appends,
and reading typed rows by column name.

Every aggregate's methods (runs, messages, judges, labels, human verdicts, the call cache) are
mixins over :class:`Database`; :class:`cimem.store.Store` composes them.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NoReturn, Self, TypeVar

import duckdb
import pyarrow as pa

from cimem.paths import default_db_path, lake_journal_base, private_files
from cimem.store.appender import BulkAppender
from cimem.store.file_checks import check_database_file
from cimem.store.lake import (
    NOT_MADE,
    LakeUnavailable,
    connect_lake,
    lake_schema,
    retry_conflicts,
    use_lake,
)
from cimem.store.location import is_lake, lake_name, parse_lake, shown
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
    "get": "SELECT max(last) FROM id_counters WHERE name = ?",
    "set": "UPDATE id_counters SET last = ? WHERE name = ?",
    "add": "INSERT INTO id_counters (last, name) VALUES (?, ?)",
    "run": "SELECT coalesce(max(run_id), 0) FROM runs",
    "judge": "SELECT coalesce(max(judge_id), 0) FROM judges",
    "message": "SELECT coalesce(max(message_id), 0) FROM messages",
    "human_seq": "SELECT coalesce(max(seq), 0) FROM human_verdicts",
    "label_seq": "SELECT coalesce(max(seq), 0) FROM people_labels",
}


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
        self.lake = is_lake(path)  # a DuckLake over PostgreSQL, shared with other machines
        self._ids: duckdb.DuckDBPyConnection | None = None  # a lake's id reservations

    def cursor(self) -> Self:
        """Another handle on the same open database, for another thread or app session: its own
        transactions and snapshot (it reads the last committed state), the same write lock."""
        con = self.con.cursor()
        return type(self)(use_lake(con) if self.lake else con, self.path, self._lock)

    @property
    def shown_path(self) -> str:
        """The location as it may be shown, logged or exported (a lake's password masked)."""
        return shown(self.path)

    @property
    def display_name(self) -> str:
        """What a report names the database by: a file's name, a lake's database name."""
        return lake_name(self.path) if self.lake else Path(self.path).name

    @property
    def local_path(self) -> str:
        """Where this machine keeps the database's side files (the call journal): beside a
        file; for a lake, a folder of this machine's cache named after the lake."""
        return lake_journal_base(self.path) if self.lake else self.path

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
        if is_lake(path):
            return cls._open_lake(path.strip(), read_only)
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

    @classmethod
    def _open_lake(cls, path: str, read_only: bool) -> Self:
        """Open a DuckLake over PostgreSQL (made, with cimem's tables, on first use)."""
        store = cls(connect_lake(parse_lake(path), read_only, shown(path)), path)
        if read_only and not store._current_schema():
            store.close()
            raise LakeUnavailable(NOT_MADE.format(lake=shown(path)))
        if not read_only:
            store._writable = True
            retry_conflicts(store._ensure_schema, f"{shown(path)}: making cimem's tables")
            store._after_open()
        return store

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._ids is not None:
            self._ids.close()
        self.con.close()

    def _ensure_schema(self) -> None:
        if self._current_schema():
            return  # nothing to create or migrate: opening writes nothing
        if self.lake:
            with self.transaction():  # two processes making one lake: one wins, one retries
                self._make_lake_tables()
            return
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

    def _make_lake_tables(self) -> None:
        """A new lake's tables, its schema version and its id counters, all at once (a counter
        row two processes both added would give the same ids twice)."""
        if self._current_schema():
            return
        self.con.execute(lake_schema(SCHEMA_SQL))
        if self.con.execute("SELECT count(*) FROM schema_info").fetchall()[0][0]:
            raise RuntimeError(f"{self.shown_path}: a lake of another cimem schema version")
        self.con.execute("INSERT INTO schema_info VALUES (?)", [SCHEMA_VERSION])
        for name in ("run", "judge", "message", "human_seq", "label_seq"):
            self.con.execute(_COUNTER_SQL["add"], [0, name])

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

    def lake_snapshot(self) -> int:
        """A lake's current snapshot id (every commit of any writer makes a new one)."""
        return int(self._scalar("SELECT id FROM current_snapshot()"))

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
            try:
                self.con.execute("COMMIT")
            except duckdb.Error:
                self._rollback(self.con)  # a lake's commit that met another writer's change
                raise

    def write(self, body: Callable[[], R], what: str) -> R:
        """Run ``body`` as one transaction. On a lake, a commit that meets another writer's
        change runs ``body`` again (it must only compute from the database and its arguments),
        a bounded number of times, then :class:`~cimem.store.lake.WriteConflict` names
        ``what``. Inside another transaction, it joins that one."""

        def once() -> R:
            with self.transaction():
                return body()

        if not self.lake or self._depth:
            return once()
        return retry_conflicts(once, what)

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
        rolled back, so a failed import would use up an id; on a file this counter is part of
        the transaction. It never goes below the highest id in use, so a deleted run's id is not
        given again. On a lake see :meth:`reserve_ids`."""
        if self.lake:
            return self.reserve_ids(name, 1)
        return self._count_ids(self.con, name, 1)

    def reserve_ids(self, name: str, count: int) -> int:
        """The first of ``count`` new ids of ``name`` (run, judge, message, human_seq,
        label_seq) that no other writer of a lake gets: taken in a short transaction of their
        own, retried on conflict, so a long write never holds the counter (a write that fails
        afterwards leaves a gap in the ids, nothing else)."""
        if not self.lake:
            return self._count_ids(self.con, name, count)
        with self._lock:
            if self._ids is None:
                self._ids = use_lake(self.con.cursor())
            ids = self._ids

            def take() -> int:
                ids.execute("BEGIN TRANSACTION")
                try:
                    first = self._count_ids(ids, name, count)
                    ids.execute("COMMIT")
                except BaseException:
                    self._rollback(ids)
                    raise
                return first

            return retry_conflicts(take, f"{self.shown_path}: taking new {name} ids")

    def new_message_ids(self, count: int) -> int:
        """The first of ``count`` consecutive new message ids: after the highest stored on a
        file (one writer at a time); reserved on a lake, where other writers add messages too."""
        if self.lake:
            return self.reserve_ids("message", count)
        return int(self._scalar(_COUNTER_SQL["message"])) + 1

    def _seq_base(self, name: str, count: int) -> int:
        """The number after which ``count`` new entries of an append-only history are numbered
        (human_seq, label_seq): the highest stored on a file; reserved on a lake."""
        if self.lake:
            return self.reserve_ids(name, count) - 1
        return int(self._scalar(_COUNTER_SQL[name]))

    @staticmethod
    def _rollback(con: duckdb.DuckDBPyConnection) -> None:
        """Leave no transaction open after a failed commit (DuckDB may keep it, aborted)."""
        try:
            con.execute("ROLLBACK")
        except duckdb.Error:
            pass

    @staticmethod
    def _count_ids(con: duckdb.DuckDBPyConnection, name: str, count: int) -> int:
        kept = con.execute(_COUNTER_SQL["get"], [name]).fetchall()[0][0]
        top = int(con.execute(_COUNTER_SQL[name]).fetchall()[0][0])
        first = max(int(kept or 0), top) + 1
        con.execute(_COUNTER_SQL["add" if kept is None else "set"], [first + count - 1, name])
        return first

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
