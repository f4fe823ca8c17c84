"""The DuckDB store: the schema, the connection, and every SQL statement of cimem.

No other module holds SQL. Every read and write is a small typed method with `?` parameters; bulk
writes take Arrow tables whose columns are named like the target table's.

Identifiers: a run owns its profiles (``profile_id`` = position in the source), their contexts
(``ctx_idx`` = position in the profile's context list) and their attributes (``attr_id``, unique
within the run). ``message_id`` and ``judge_id`` are unique in the database. Label fractions are kept
per persona (``persona = 'combined'`` is the weighted view the official rule reads); hard labels are
derived from them at query time by a named rule (see :mod:`cimem.analysis.labels`), except for sources that
only ship hard labels, which go to ``hard_labels``.
"""

from __future__ import annotations

import os
import queue
import re
import stat
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pyarrow as pa

from cimem.errors import CimemError
from cimem.paths import DEFAULT_DB_ENV, DEFAULT_DB_PATH, default_db_path, private_files  # noqa: F401 (re-exported)
from cimem.store.call_cache import recover
from cimem.store.enums import JudgeKind, JudgmentStatus, Label, MessageStatus
from cimem.store.rows import (
    AttributeKey,
    AttributeRow,
    CachedCall,
    CachedCompletion,
    CompositionMessage,
    ContextRow,
    Counterpart,
    HardLabelRow,
    HumanVerdict,
    HumanVerdictRow,
    JudgeCoverage,
    JudgeInfo,
    JudgeVerdict,
    Judgment,
    MessageDetail,
    MessageRow,
    MessageSlot,
    MessageToJudge,
    NewMessage,
    PairLabel,
    PairMessage,
    PersonaLabelRow,
    ProfileRow,
    RunLabel,
    RunRef,
    RunSummary,
    VerdictRow,
)

SCHEMA_VERSION = 2  # 2: human_verdicts (people's verdicts with their history)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS schema_info (version INTEGER NOT NULL);
CREATE SEQUENCE IF NOT EXISTS run_ids START 1;
CREATE SEQUENCE IF NOT EXISTS judge_ids START 1;
CREATE TABLE IF NOT EXISTS id_counters (name VARCHAR NOT NULL, last INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,            -- 'results' (messages and verdicts), 'profiles', 'labels'
    source_format VARCHAR NOT NULL,   -- official, profiles, hf, persistbench, runner, demo
    source VARCHAR,                   -- the file it came from
    content_hash VARCHAR,             -- sha256 of the source file: re-imports are detected by it
    model VARCHAR,
    prompt_set VARCHAR,
    level INTEGER,
    memory_format VARCHAR,
    n_trials INTEGER,
    simulated BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    config VARCHAR                    -- JSON: everything else about how the run was made
);
CREATE TABLE IF NOT EXISTS profiles (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL,
    name VARCHAR NOT NULL, sex VARCHAR, address VARCHAR, age VARCHAR,
    bio_json VARCHAR                  -- the bio object as it came, for export
);
CREATE TABLE IF NOT EXISTS attributes (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL, attr_id INTEGER NOT NULL,
    key VARCHAR NOT NULL,
    value_json VARCHAR,               -- the value as JSON (numbers, lists, booleans keep their type)
    domain VARCHAR, event VARCHAR, memory_statement VARCHAR
);
CREATE TABLE IF NOT EXISTS contexts (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL, ctx_idx INTEGER NOT NULL,
    recipient VARCHAR NOT NULL, task VARCHAR NOT NULL,
    prompt VARCHAR                    -- a source's task prompt when it ships one without messages
);
CREATE TABLE IF NOT EXISTS persona_labels (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL, ctx_idx INTEGER NOT NULL,
    attr_id INTEGER NOT NULL, persona VARCHAR NOT NULL,
    necessary DOUBLE, private DOUBLE, unlabeled DOUBLE
);
CREATE TABLE IF NOT EXISTS hard_labels (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL, ctx_idx INTEGER NOT NULL,
    attr_id INTEGER NOT NULL, label VARCHAR NOT NULL   -- share, private, ambiguous
);
CREATE TABLE IF NOT EXISTS messages (
    message_id BIGINT NOT NULL, run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL,
    ctx_idx INTEGER NOT NULL, trial INTEGER NOT NULL,
    num_to_share INTEGER, num_not_to_share INTEGER,
    shared_json VARCHAR,              -- [to_share, not_to_share] lists when not the full memory
    prompt VARCHAR, text VARCHAR,
    status VARCHAR NOT NULL,          -- ok, failed
    error VARCHAR
);
CREATE TABLE IF NOT EXISTS judges (
    judge_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, name VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,            -- imported, llm, offline, human, simulator
    model VARCHAR, prompt_hash VARCHAR, created_at TIMESTAMP NOT NULL, config VARCHAR
);
CREATE TABLE IF NOT EXISTS judgments (
    judge_id INTEGER NOT NULL, message_id BIGINT NOT NULL,
    status VARCHAR NOT NULL,          -- ok, parse_failure, error
    raw VARCHAR
);
CREATE TABLE IF NOT EXISTS llm_cache (
    key VARCHAR PRIMARY KEY,          -- sha256 of model, whole prompt, sampling parameters, trial
    model VARCHAR, purpose VARCHAR, response VARCHAR, reasoning VARCHAR,
    prompt_tokens INTEGER, completion_tokens INTEGER, created_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS verdicts (
    judge_id INTEGER NOT NULL, message_id BIGINT NOT NULL, attr_id INTEGER NOT NULL,
    revealed BOOLEAN NOT NULL, evidence VARCHAR
);
CREATE TABLE IF NOT EXISTS human_verdicts (  -- append-only; verdicts holds each pair's latest
    seq BIGINT NOT NULL,              -- order of recording: the highest of a pair is current
    judge_id INTEGER NOT NULL, message_id BIGINT NOT NULL, attr_id INTEGER NOT NULL,
    revealed BOOLEAN NOT NULL, reviewer VARCHAR, note VARCHAR, created_at TIMESTAMP NOT NULL
);
"""

# Version 1 kept only people's latest verdict, in verdicts (note as evidence): it becomes the
# first entry of each pair's history, dated when its judge was made.
_MIGRATE_1_TO_2 = """
INSERT INTO human_verdicts
SELECT row_number() OVER (ORDER BY v.judge_id, v.message_id, v.attr_id), v.judge_id,
       v.message_id, v.attr_id, v.revealed, NULL, v.evidence, j.created_at
FROM verdicts v JOIN judges j USING (judge_id) WHERE j.kind = 'human'
"""

# Tables that bulk appends may target, with their column order.
BULK_TABLES: dict[str, tuple[str, ...]] = {
    "profiles": ("run_id", "profile_id", "name", "sex", "address", "age", "bio_json"),
    "attributes": (
        "run_id",
        "profile_id",
        "attr_id",
        "key",
        "value_json",
        "domain",
        "event",
        "memory_statement",
    ),
    "contexts": ("run_id", "profile_id", "ctx_idx", "recipient", "task", "prompt"),
    "persona_labels": (
        "run_id",
        "profile_id",
        "ctx_idx",
        "attr_id",
        "persona",
        "necessary",
        "private",
        "unlabeled",
    ),
    "hard_labels": ("run_id", "profile_id", "ctx_idx", "attr_id", "label"),
    "messages": (
        "message_id",
        "run_id",
        "profile_id",
        "ctx_idx",
        "trial",
        "num_to_share",
        "num_not_to_share",
        "shared_json",
        "prompt",
        "text",
        "status",
        "error",
    ),
    "judgments": ("judge_id", "message_id", "status", "raw"),
    "verdicts": ("judge_id", "message_id", "attr_id", "revealed", "evidence"),
}
_INSERT_SQL = {
    table: f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join(cols)} FROM _bulk"
    for table, cols in BULK_TABLES.items()
}
_COUNT_SQL = {t: f"SELECT count(*) FROM {t}" for t in ("runs", "judges", "llm_cache", *BULK_TABLES)}
_COUNTER_SQL = {
    "get": "SELECT last FROM id_counters WHERE name = ?",
    "set": "UPDATE id_counters SET last = ? WHERE name = ?",
    "add": "INSERT INTO id_counters (last, name) VALUES (?, ?)",
    "run": "SELECT coalesce(max(run_id), 0) FROM runs",
    "judge": "SELECT coalesce(max(judge_id), 0) FROM judges",
}
_DELETE_RUN_SQL = [
    "DELETE FROM human_verdicts WHERE judge_id IN (SELECT judge_id FROM judges WHERE run_id = ?)",
    "DELETE FROM verdicts WHERE judge_id IN (SELECT judge_id FROM judges WHERE run_id = ?)",
    "DELETE FROM judgments WHERE judge_id IN (SELECT judge_id FROM judges WHERE run_id = ?)",
    *(
        f"DELETE FROM {t} WHERE run_id = ?"
        for t in (
            "judges",
            "messages",
            "hard_labels",
            "persona_labels",
            "contexts",
            "attributes",
            "profiles",
            "runs",
        )
    ),
]


class DatabaseRefused(CimemError):
    """A file that is not a database cimem may open: ``reason`` says why without the path, so
    the app can name only what its visitor typed."""

    def __init__(self, path: str, reason: str):
        self.path, self.reason = path, reason
        super().__init__(f"{path}: {reason}")


class DatabaseBusy(DatabaseRefused):
    """Another process holds the database."""


_DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 12 of every DuckDB database file
_CIMEM_TABLES = {"schema_info", "runs"}


def _check_database_file(path: str) -> None:
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
    try:  # read-only: the check itself writes nothing
        probe = duckdb.connect(path, read_only=True)
    except duckdb.ConnectionException:
        return  # already open in this process (checked when it was opened)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            return  # held by another process: opening it says so
        raise DatabaseRefused(path, "a DuckDB database this DuckDB cannot read") from None
    except duckdb.Error:
        raise DatabaseRefused(path, "a DuckDB database this DuckDB cannot read") from None
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


class Store:
    """A cimem database. Open with :meth:`open`; use as a context manager to close it."""

    def __init__(
        self, con: duckdb.DuckDBPyConnection, path: str, lock: threading.RLock | None = None
    ):
        self.con = con
        self.path = path
        self._lock = lock or threading.RLock()  # shared by every cursor of this database
        self._depth = 0  # transactions open on this cursor (inner ones join the outer one)

    def cursor(self) -> Store:
        """Another handle on the same open database, for another thread or app session: its own
        transactions and snapshot (it reads the last committed state), the same write lock."""
        return Store(self.con.cursor(), self.path, self._lock)

    # ----------------------------------------------------------------- connection and schema
    @classmethod
    def open(
        cls,
        path: str | os.PathLike | None = None,
        read_only: bool = False,
        *,
        create_folders: bool = True,
    ) -> Store:
        """Open (and, unless read-only, create or migrate) the database at ``path``.

        An existing file is checked before anything is written to it: it must be a DuckDB
        database that is empty or already cimem's; anything else raises
        :class:`DatabaseRefused` and the file is left untouched. A missing folder is created
        unless ``create_folders`` is false (the app never creates folders). Files the process
        creates from here on are its owner's only (see :func:`cimem.paths.private_files`)."""
        path = str(path or default_db_path())
        if path != ":memory:":
            private_files()  # the database, its WAL and the call journal: 0600
            file = Path(path)
            if file.exists() or file.is_symlink():
                _check_database_file(path)
            elif read_only:
                raise FileNotFoundError(f"{path}: no such database")
            elif not file.parent.is_dir():
                if not create_folders:
                    raise DatabaseRefused(path, "its folder does not exist")
                file.parent.mkdir(parents=True, exist_ok=True)
        try:
            con = duckdb.connect(path, read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise DatabaseRefused(path, "DuckDB cannot open it") from None
            holder = re.search(r"\(PID (\d+)\)", str(exc))
            raise DatabaseBusy(
                path,
                f"open in another process{f' (PID {holder.group(1)})' if holder else ''},"
                " e.g. the app or a running `cimem run`: DuckDB lets one process write a database"
                " at a time. Stop that process (a stopped run resumes with --resume), or work on"
                " a copy of the file.",
            ) from None
        store = cls(con, path)
        if not read_only:
            store._ensure_schema()
            recover(store)  # calls a stopped process completed but had not merged yet
        return store

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.con.close()

    def _ensure_schema(self) -> None:
        self.con.execute(_SCHEMA)
        row = self.con.execute("SELECT max(version) FROM schema_info").fetchall()[0]
        if row[0] is None:
            self.con.execute("INSERT INTO schema_info VALUES (?)", [SCHEMA_VERSION])
        elif row[0] < SCHEMA_VERSION:
            with self.transaction():
                if row[0] < 2:
                    self.con.execute(_MIGRATE_1_TO_2)
                self.con.execute("UPDATE schema_info SET version = ?", [SCHEMA_VERSION])
        elif row[0] > SCHEMA_VERSION:
            raise RuntimeError(
                f"{self.path}: schema version {row[0]} is newer than this cimem ({SCHEMA_VERSION})"
            )

    def schema_version(self) -> int:
        return int(self.con.execute("SELECT max(version) FROM schema_info").fetchall()[0][0])

    @contextmanager
    def transaction(self) -> Iterator[Store]:
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

    def table_counts(self) -> dict[str, int]:
        """Row count of every table (tests use it to prove a failed import changed nothing)."""
        return {t: int(self.con.execute(sql).fetchall()[0][0]) for t, sql in _COUNT_SQL.items()}

    # ----------------------------------------------------------------- writes
    def append(self, table: str, data: pa.Table) -> None:
        """Bulk-insert an Arrow table whose columns carry the target table's column names."""
        if table not in _INSERT_SQL:
            raise ValueError(f"not a bulk table: {table}")
        self.con.register("_bulk", data)
        try:
            self.con.execute(_INSERT_SQL[table])
        finally:
            self.con.unregister("_bulk")

    @contextmanager
    def bulk_appender(self, depth: int = 4) -> Iterator[BulkAppender]:
        """Appends run on a background thread (DuckDB releases the GIL), so parsing the next
        record overlaps with writing this one. Errors surface at the next put or at exit."""
        appender = BulkAppender(self, depth)
        try:
            yield appender
        except BaseException:
            appender.close(raise_error=False)
            raise
        appender.close()

    def create_run(
        self,
        *,
        name: str,
        kind: str,
        source_format: str,
        source: str | None,
        content_hash: str | None,
        model: str | None = None,
        prompt_set: str | None = None,
        level: int | None = None,
        memory_format: str | None = None,
        n_trials: int | None = None,
        simulated: bool = False,
        config: str | None = None,
    ) -> int:
        row = self.con.execute(
            "INSERT INTO runs (run_id, name, kind, source_format, source, content_hash, model,"
            " prompt_set, level, memory_format, n_trials, simulated, created_at, config)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING run_id",
            [
                self._next_id("run"),
                name,
                kind,
                source_format,
                source,
                content_hash,
                model,
                prompt_set,
                level,
                memory_format,
                n_trials,
                simulated,
                _now(),
                config,
            ],
        ).fetchall()[0]
        return int(row[0])

    def finish_run(
        self, run_id: int, *, content_hash: str | None, n_trials: int | None, kind: str
    ) -> None:
        """Record what only the end of an import knows: the file's hash, trials, what it held."""
        self.con.execute(
            "UPDATE runs SET content_hash = ?, n_trials = ?, kind = ? WHERE run_id = ?",
            [content_hash, n_trials, kind, run_id],
        )

    def create_judge(
        self,
        *,
        run_id: int,
        name: str,
        kind: str,
        model: str | None = None,
        prompt_hash: str | None = None,
        config: str | None = None,
    ) -> int:
        row = self.con.execute(
            "INSERT INTO judges (judge_id, run_id, name, kind, model, prompt_hash, created_at,"
            " config) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING judge_id",
            [self._next_id("judge"), run_id, name, kind, model, prompt_hash, _now(), config],
        ).fetchall()[0]
        return int(row[0])

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

    def next_message_id(self) -> int:
        return int(
            self.con.execute("SELECT coalesce(max(message_id), 0) + 1 FROM messages").fetchall()[0][
                0
            ]
        )

    def rename_judge(self, judge_id: int, name: str) -> None:
        with self.transaction():
            self.con.execute("UPDATE judges SET name = ? WHERE judge_id = ?", [name, judge_id])

    def rename_run(self, run_id: int, name: str) -> None:
        with self.transaction():
            self.con.execute("UPDATE runs SET name = ? WHERE run_id = ?", [name, run_id])

    def delete_run(self, run_id: int) -> None:
        """Remove a run and everything that belongs to it, in one transaction."""
        with self.transaction():
            for sql in _DELETE_RUN_SQL:
                self.con.execute(sql, [run_id])

    # ----------------------------------------------------------------- runs
    def run_by_hash(self, content_hash: str) -> RunRef | None:
        rows = self.con.execute(
            "SELECT run_id, name FROM runs WHERE content_hash = ? ORDER BY run_id LIMIT 1",
            [content_hash],
        ).fetchall()
        return RunRef(int(rows[0][0]), rows[0][1]) if rows else None

    def run_ids(self) -> list[int]:
        return [
            int(r[0])
            for r in self.con.execute("SELECT run_id FROM runs ORDER BY run_id").fetchall()
        ]

    def resolve_run(self, ref: str | int) -> int:
        """A run id from its number or its name; raises LookupError naming the choices."""
        text = str(ref).strip()
        if text.isdigit():
            rows = self.con.execute(
                "SELECT run_id FROM runs WHERE run_id = ?", [int(text)]
            ).fetchall()
            if rows:
                return int(rows[0][0])
        rows = self.con.execute(
            "SELECT run_id FROM runs WHERE name = ? ORDER BY run_id", [text]
        ).fetchall()
        if len(rows) == 1:
            return int(rows[0][0])
        known = ", ".join(f"{s.run_id} ({s.name})" for s in self.list_runs()) or "none"
        if len(rows) > 1:
            raise LookupError(f"run name {text!r} is ambiguous; use its id. Runs: {known}")
        raise LookupError(f"no run {text!r} in {self.path}. Runs: {known}")

    def run_config(self, run_id: int) -> dict[str, Any]:
        cur = self.con.execute("SELECT * FROM runs WHERE run_id = ?", [run_id])
        rows = cur.fetchall()
        row = rows[0] if rows else None
        if row is None:
            raise LookupError(f"no run {run_id} in {self.path}")
        return dict(zip([d[0] for d in cur.description], row))

    def list_runs(self) -> list[RunSummary]:
        rows = self.con.execute("""
            SELECT r.run_id, r.name, r.kind, r.source_format, r.model, r.source, r.level,
                   r.n_trials, r.simulated, r.created_at,
                   (SELECT count(*) FROM profiles p WHERE p.run_id = r.run_id),
                   (SELECT count(*) FROM contexts c WHERE c.run_id = r.run_id),
                   (SELECT count(*) FROM messages m WHERE m.run_id = r.run_id),
                   (SELECT count(*) FROM verdicts v JOIN judges j USING (judge_id)
                     WHERE j.run_id = r.run_id),
                   (SELECT count(*) FROM judges j WHERE j.run_id = r.run_id)
            FROM runs r ORDER BY r.run_id""").fetchall()
        return [RunSummary(*r) for r in rows]

    def judges(self, run_id: int) -> list[JudgeInfo]:
        rows = self.con.execute(
            "SELECT judge_id, run_id, name, kind, model, prompt_hash, created_at FROM judges"
            " WHERE run_id = ? ORDER BY judge_id",
            [run_id],
        ).fetchall()
        return [_judge_info(r) for r in rows]

    def judge_coverage(self, run_id: int) -> list[JudgeCoverage]:
        """Per judge of a run: how many of the run's generated messages it judged (a judgment of
        any status), out of all of them."""
        rows = self.con.execute(
            "WITH gen AS (SELECT message_id FROM messages WHERE run_id = ? AND status = 'ok')"
            " SELECT j.judge_id, count(DISTINCT g.message_id), (SELECT count(*) FROM gen)"
            " FROM judges j LEFT JOIN judgments jm ON jm.judge_id = j.judge_id"
            " LEFT JOIN gen g ON g.message_id = jm.message_id"
            " WHERE j.run_id = ? GROUP BY j.judge_id ORDER BY j.judge_id",
            [run_id, run_id],
        ).fetchall()
        return [JudgeCoverage(int(j), int(n), int(t)) for j, n, t in rows]

    def audit_judge(
        self, *, run_id: int, name: str, kind: str, model: str | None, prompt_hash: str | None
    ) -> int:
        """The run's audit judge for this model and prompt (made on first use): messages
        re-judged one at a time from the Audit page all go there, not to a judge per save."""
        rows = self.con.execute(
            "SELECT judge_id FROM judges WHERE run_id = ? AND kind = ?"
            " AND model IS NOT DISTINCT FROM ? AND prompt_hash IS NOT DISTINCT FROM ?"
            " AND json_extract_string(config, '$.audit') = 'true' ORDER BY judge_id LIMIT 1",
            [run_id, kind, model, prompt_hash],
        ).fetchall()
        if rows:
            return int(rows[0][0])
        return self.create_judge(
            run_id=run_id,
            name=name,
            kind=kind,
            model=model,
            prompt_hash=prompt_hash,
            config=orjson.dumps({"audit": True}).decode(),
        )

    def forget_judgments(self, judge_id: int, message_ids: list[int]) -> None:
        """Drop a judge's judgments and verdicts on these messages (before judging them again)."""
        for table in ("verdicts", "judgments"):
            self.con.execute(
                f"DELETE FROM {table} WHERE judge_id = ? AND list_contains(?, message_id)",
                [judge_id, message_ids],
            )

    def default_judge(self, run_id: int) -> int | None:
        """The run's original verdicts: its first judge."""
        row = self.con.execute(
            "SELECT min(judge_id) FROM judges WHERE run_id = ?", [run_id]
        ).fetchall()[0]
        return None if row[0] is None else int(row[0])

    # ----------------------------------------------------------------- reads for export/metrics
    def profiles_of(self, run_id: int) -> list[ProfileRow]:
        """The run's profiles in source order."""
        rows = self.con.execute(
            "SELECT profile_id, name, sex, address, age, bio_json FROM profiles WHERE run_id = ?"
            " ORDER BY profile_id",
            [run_id],
        ).fetchall()
        return [ProfileRow(*r) for r in rows]

    def attributes_of(self, run_id: int, profile_id: int | None = None) -> list[AttributeRow]:
        """The run's attributes by profile, in attr_id order; only ``profile_id``'s when given
        (one message's audit reads its profile, not the run's thousands)."""
        rows = self.con.execute(
            "SELECT profile_id, attr_id, key, value_json, domain, event, memory_statement"
            " FROM attributes WHERE run_id = ? AND (? IS NULL OR profile_id = ?)"
            " ORDER BY profile_id, attr_id",
            [run_id, profile_id, profile_id],
        ).fetchall()
        return list(map(AttributeRow._make, rows))

    def contexts_of(self, run_id: int) -> list[ContextRow]:
        """The run's contexts by profile, in source order."""
        rows = self.con.execute(
            "SELECT profile_id, ctx_idx, recipient, task, prompt FROM contexts WHERE run_id = ?"
            " ORDER BY profile_id, ctx_idx",
            [run_id],
        ).fetchall()
        return [ContextRow(*r) for r in rows]

    def persona_labels_of(self, run_id: int, profile_id: int) -> list[PersonaLabelRow]:
        """Every persona's label fractions of one profile."""
        rows = self.con.execute(
            "SELECT ctx_idx, persona, attr_id, necessary, private, unlabeled FROM persona_labels"
            " WHERE run_id = ? AND profile_id = ? ORDER BY ctx_idx, persona, attr_id",
            [run_id, profile_id],
        ).fetchall()
        return list(map(PersonaLabelRow._make, rows))

    def hard_labels_of(self, run_id: int, profile_id: int) -> list[HardLabelRow]:
        """The hard labels of one profile (sources that ship no fractions)."""
        rows = self.con.execute(
            "SELECT ctx_idx, attr_id, label FROM hard_labels WHERE run_id = ? AND profile_id = ?"
            " ORDER BY ctx_idx, attr_id",
            [run_id, profile_id],
        ).fetchall()
        return [HardLabelRow(c, a, _LABELS[lab]) for c, a, lab in rows]

    def messages_of(self, run_id: int, profile_id: int) -> list[MessageRow]:
        """The message slots of one profile, failed generations included."""
        rows = self.con.execute(
            "SELECT message_id, ctx_idx, trial, num_to_share, num_not_to_share, shared_json,"
            " prompt, text, status, error FROM messages WHERE run_id = ? AND profile_id = ?"
            " ORDER BY ctx_idx, num_to_share, num_not_to_share, trial",
            [run_id, profile_id],
        ).fetchall()
        return [
            MessageRow(mid, c, t, a, b, sj, p, x, _MESSAGE_STATUS[st], e)
            for mid, c, t, a, b, sj, p, x, st, e in rows
        ]

    def verdicts_of(self, judge_id: int, run_id: int, profile_id: int) -> list[VerdictRow]:
        """The verdicts of one judge on one profile's messages."""
        rows = self.con.execute(
            "SELECT v.message_id, v.attr_id, v.revealed, v.evidence FROM verdicts v"
            " JOIN messages m USING (message_id)"
            " WHERE v.judge_id = ? AND m.run_id = ? AND m.profile_id = ?"
            " ORDER BY v.message_id, v.attr_id",
            [judge_id, run_id, profile_id],
        ).fetchall()
        return list(map(VerdictRow._make, rows))

    # ----------------------------------------------------------------- metric inputs
    def leak_pairs(self, run_id: int, judge_id: int | None) -> dict[str, Any]:
        """Every labelled (profile, context, attribute) pair of a run with its fractions (or hard
        label) and the bit mask of full-memory trials whose message the judge found revealing."""
        return _plain_numpy(
            self.con.execute(_LEAK_PAIRS_SQL, [judge_id, run_id, run_id, run_id]).fetchnumpy()
        )

    def trial_masks(self, run_id: int, judge_id: int | None) -> dict[str, Any]:
        """Per (profile, context): bit masks of full-memory trials by what happened to them."""
        return _plain_numpy(self.con.execute(_TRIAL_MASKS_SQL, [judge_id, run_id]).fetchnumpy())

    def max_trial(self, run_id: int) -> int | None:
        row = self.con.execute(
            "SELECT max(trial) FROM messages WHERE run_id = ?", [run_id]
        ).fetchall()[0]
        return None if row[0] is None else int(row[0])

    def judge_info(self, judge_id: int) -> JudgeInfo:
        rows = self.con.execute(
            "SELECT judge_id, run_id, name, kind, model, prompt_hash, created_at FROM judges"
            " WHERE judge_id = ?",
            [judge_id],
        ).fetchall()
        if not rows:
            raise LookupError(f"no judge {judge_id} in {self.path}")
        return _judge_info(rows[0])

    # ----------------------------------------------------------------- judging
    def messages_to_judge(
        self,
        run_id: int,
        profile: str | None = None,
        context: int | None = None,
        trial: int | None = None,
        message_ids: list[int] | None = None,
        limit: int | None = None,
    ) -> list[MessageToJudge]:
        """The generated messages of a run matching the selection, in message_id order."""
        rows = self.con.execute(
            "SELECT m.message_id, m.profile_id, p.name, m.ctx_idx, m.trial, m.text"
            " FROM messages m JOIN profiles p USING (run_id, profile_id)"
            " WHERE m.run_id = ? AND m.status = 'ok'"
            " AND (? IS NULL OR p.name = ?) AND (? IS NULL OR m.ctx_idx = ?)"
            " AND (? IS NULL OR m.trial = ?)"
            " AND (? IS NULL OR list_contains(?, m.message_id))"
            " ORDER BY m.message_id LIMIT ?",
            [
                run_id,
                profile,
                profile,
                context,
                context,
                trial,
                trial,
                message_ids,
                message_ids,
                limit if limit is not None else 2**62,
            ],
        ).fetchall()
        return list(map(MessageToJudge._make, rows))

    def message_index(self, run_id: int) -> dict[tuple[str, int, int], int]:
        """{(profile name, ctx_idx, trial): message_id} of full-memory messages."""
        rows = self.con.execute(
            "SELECT p.name, m.ctx_idx, m.trial, m.message_id FROM messages m JOIN profiles p"
            " USING (run_id, profile_id) WHERE m.run_id = ? AND m.shared_json IS NULL",
            [run_id],
        ).fetchall()
        return {(n, c, t): int(mid) for n, c, t, mid in rows}

    def attribute_keys_by_profile(self, run_id: int) -> dict[str, list[AttributeKey]]:
        """{profile name: its attributes' ids and keys}."""
        out: dict[str, list[AttributeKey]] = {}
        for name, attr_id, key in self.con.execute(
            "SELECT p.name, a.attr_id, a.key FROM attributes a JOIN profiles p"
            " USING (run_id, profile_id) WHERE a.run_id = ? ORDER BY a.attr_id",
            [run_id],
        ).fetchall():
            out.setdefault(name, []).append(AttributeKey(attr_id, key))
        return out

    def message_detail(self, message_id: int) -> MessageDetail | None:
        """A message with its run, profile, context, prompt and status."""
        rows = self.con.execute(
            "SELECT m.message_id, m.run_id, m.profile_id, p.name AS profile, m.ctx_idx,"
            " c.recipient, c.task, m.trial, m.prompt, m.text, m.status, m.error"
            " FROM messages m JOIN profiles p USING (run_id, profile_id)"
            " JOIN contexts c USING (run_id, profile_id, ctx_idx) WHERE m.message_id = ?",
            [message_id],
        ).fetchall()
        if not rows:
            return None
        mid, run, pid, name, ctx, rcpt, task, trial, prompt, text, status, error = rows[0]
        return MessageDetail(
            mid,
            run,
            pid,
            name,
            ctx,
            rcpt,
            task,
            trial,
            prompt,
            text,
            _MESSAGE_STATUS[status],
            error,
        )

    def find_message(self, run_id: int, profile_id: int, ctx_idx: int, trial: int) -> int | None:
        rows = self.con.execute(
            "SELECT message_id FROM messages WHERE run_id = ? AND profile_id = ? AND ctx_idx = ?"
            " AND trial = ? AND shared_json IS NULL ORDER BY message_id LIMIT 1",
            [run_id, profile_id, ctx_idx, trial],
        ).fetchall()
        return int(rows[0][0]) if rows else None

    def counterparts(self, message_id: int) -> list[Counterpart]:
        """The same profile (matched by name), recipient, task and trial in every other run, one
        message per run (that run's lowest trial when it lacks this one), by run id."""
        rows = self.con.execute(
            "SELECT m2.run_id, m2.message_id, m2.trial"
            " FROM messages m JOIN profiles p USING (run_id, profile_id)"
            " JOIN contexts c USING (run_id, profile_id, ctx_idx)"
            " JOIN profiles p2 ON p2.name = p.name AND p2.run_id <> m.run_id"
            " JOIN contexts c2 ON c2.run_id = p2.run_id AND c2.profile_id = p2.profile_id"
            "  AND c2.recipient = c.recipient AND c2.task = c.task"
            " JOIN messages m2 ON m2.run_id = c2.run_id AND m2.profile_id = c2.profile_id"
            "  AND m2.ctx_idx = c2.ctx_idx AND m2.shared_json IS NULL"
            " WHERE m.message_id = ?"
            " QUALIFY row_number() OVER (PARTITION BY m2.run_id"
            "  ORDER BY m2.trial <> m.trial, m2.trial, m2.message_id) = 1"
            " ORDER BY m2.run_id",
            [message_id],
        ).fetchall()
        return list(map(Counterpart._make, rows))

    def message_verdicts(self, message_id: int) -> list[JudgeVerdict]:
        """Every judge's verdicts on this message."""
        rows = self.con.execute(
            "SELECT judge_id, attr_id, revealed, evidence FROM verdicts WHERE message_id = ?"
            " ORDER BY judge_id, attr_id",
            [message_id],
        ).fetchall()
        return list(map(JudgeVerdict._make, rows))

    def message_judgments(self, message_id: int) -> dict[int, Judgment]:
        """{judge_id: judgment} of every judge of this message."""
        rows = self.con.execute(
            "SELECT judge_id, status, raw FROM judgments WHERE message_id = ?", [message_id]
        ).fetchall()
        return {int(j): Judgment(_JUDGMENT_STATUS[s], r) for j, s, r in rows}

    def pair_labels(self, run_id: int, profile_id: int, ctx_idx: int) -> list[PairLabel]:
        """Every persona's fractions and every hard label of one context's attributes."""
        rows = [
            PairLabel(a, persona, n, p, u, None)
            for a, persona, n, p, u in self.con.execute(
                "SELECT attr_id, persona, necessary, private, unlabeled FROM persona_labels"
                " WHERE run_id = ? AND profile_id = ? AND ctx_idx = ?",
                [run_id, profile_id, ctx_idx],
            ).fetchall()
        ]
        rows += [
            PairLabel(a, None, None, None, None, _LABELS[lab])
            for a, lab in self.con.execute(
                "SELECT attr_id, label FROM hard_labels WHERE run_id = ? AND profile_id = ?"
                " AND ctx_idx = ?",
                [run_id, profile_id, ctx_idx],
            ).fetchall()
        ]
        return rows

    def pair_messages(
        self, run_id: int, profile_id: int, ctx_idx: int, attr_id: int, judge_id: int | None
    ) -> list[PairMessage]:
        """The messages of one (context, attribute) pair with one judge's verdict on it."""
        rows = self.con.execute(
            "SELECT m.message_id, m.trial, m.text, v.revealed, v.evidence FROM messages m"
            " LEFT JOIN verdicts v ON v.message_id = m.message_id AND v.judge_id = ?"
            " AND v.attr_id = ? WHERE m.run_id = ? AND m.profile_id = ? AND m.ctx_idx = ?"
            " ORDER BY m.trial",
            [judge_id, attr_id, run_id, profile_id, ctx_idx],
        ).fetchall()
        return list(map(PairMessage._make, rows))

    # ----------------------------------------------------------------- the runner
    def message_slots(self, run_id: int) -> dict[tuple[int, int, int, int | None], MessageSlot]:
        """{(profile_id, ctx_idx, trial, num_not_to_share or None): what the slot holds}."""
        rows = self.con.execute(
            "SELECT profile_id, ctx_idx, trial,"
            " CASE WHEN shared_json IS NULL THEN NULL ELSE num_not_to_share END, message_id, status"
            " FROM messages WHERE run_id = ?",
            [run_id],
        ).fetchall()
        return {(p, c, t, b): MessageSlot(m, _MESSAGE_STATUS[st]) for p, c, t, b, m, st in rows}

    def delete_failed_messages(self, run_id: int) -> int:
        with self.transaction():
            n = self.con.execute(
                "SELECT count(*) FROM messages WHERE run_id = ? AND status = 'failed'", [run_id]
            ).fetchall()[0][0]
            self.con.execute(
                "DELETE FROM messages WHERE run_id = ? AND status = 'failed'", [run_id]
            )
        return int(n)

    def delete_failed_judgments(self, judge_id: int) -> int:
        """Forget a judge's calls that failed (status ``error``) so they are judged again."""
        with self.transaction():
            n = self.con.execute(
                "SELECT count(*) FROM judgments WHERE judge_id = ? AND status = 'error'", [judge_id]
            ).fetchall()[0][0]
            self.con.execute(
                "DELETE FROM judgments WHERE judge_id = ? AND status = 'error'", [judge_id]
            )
        return int(n)

    def composition_messages(self, run_id: int, judge_id: int) -> list[CompositionMessage]:
        """Composition-experiment messages with a parsed judgment of ``judge_id``, in message order
        (a fixed order keeps sums over them the same to the last bit)."""
        rows = self.con.execute(
            "SELECT m.num_not_to_share, m.shared_json,"
            " coalesce(list(a.key) FILTER (WHERE v.revealed), []) FROM messages m"
            " JOIN judgments j ON j.message_id = m.message_id AND j.judge_id = ? AND j.status = 'ok'"
            " LEFT JOIN verdicts v ON v.message_id = m.message_id AND v.judge_id = j.judge_id"
            " LEFT JOIN attributes a ON a.run_id = m.run_id AND a.attr_id = v.attr_id"
            " WHERE m.run_id = ? AND m.shared_json IS NOT NULL AND m.status = 'ok'"
            " GROUP BY m.message_id, m.num_not_to_share, m.shared_json ORDER BY m.message_id",
            [judge_id, run_id],
        ).fetchall()
        return list(map(CompositionMessage._make, rows))

    def has_composition(self, run_id: int) -> bool:
        return bool(
            self.con.execute(
                "SELECT count(*) FROM messages WHERE run_id = ? AND shared_json IS NOT NULL",
                [run_id],
            ).fetchall()[0][0]
        )

    def delete_persona_labels(self, run_id: int) -> None:
        """A labelling pass rewrites its run's labels (call it inside a transaction)."""
        self.con.execute("DELETE FROM persona_labels WHERE run_id = ?", [run_id])

    def set_run_config(self, run_id: int, config: dict[str, Any]) -> None:
        self.con.execute(
            "UPDATE runs SET config = ? WHERE run_id = ?", [orjson.dumps(config).decode(), run_id]
        )

    def add_messages(self, run_id: int, rows: list[NewMessage]) -> None:
        """Append messages in one transaction; they get consecutive message ids."""
        if not rows:
            return
        with self.transaction():
            first = self.next_message_id()
            cols = list(zip(*rows))
            self.append(
                "messages",
                pa.table(
                    {
                        "message_id": pa.array(range(first, first + len(rows)), pa.int64()),
                        "run_id": pa.array([run_id] * len(rows), pa.int32()),
                        "profile_id": pa.array(cols[0], pa.int32()),
                        "ctx_idx": pa.array(cols[1], pa.int32()),
                        "trial": pa.array(cols[2], pa.int32()),
                        "num_to_share": pa.array(cols[3], pa.int32()),
                        "num_not_to_share": pa.array(cols[4], pa.int32()),
                        "shared_json": pa.array(cols[5], pa.string()),
                        "prompt": pa.array(cols[6], pa.string()),
                        "text": pa.array(cols[7], pa.string()),
                        "status": pa.array(cols[8], pa.string()),
                        "error": pa.array(cols[9], pa.string()),
                    }
                ),
            )

    def unjudged_messages(self, run_id: int, judge_id: int | None) -> list[MessageToJudge]:
        """Generated messages without a judgment of ``judge_id`` (all generated messages when
        there is no judge yet)."""
        rows = self.con.execute(
            "SELECT m.message_id, m.profile_id, p.name, m.ctx_idx, m.trial, m.text FROM messages m"
            " JOIN profiles p USING (run_id, profile_id)"
            " WHERE m.run_id = ? AND m.status = 'ok' AND NOT EXISTS (SELECT 1 FROM judgments j"
            " WHERE j.judge_id = ? AND j.message_id = m.message_id) ORDER BY m.message_id",
            [run_id, judge_id],
        ).fetchall()
        return list(map(MessageToJudge._make, rows))

    def label_columns(self, run_id: int) -> dict[str, Any]:
        """Every labelled pair of a run as columns: profile_id, ctx_idx, attr_id, necessary,
        private and hard (-2: derive from the fractions under a rule; else 1 share, 0 private,
        -1 ambiguous, as the source shipped it)."""
        return _plain_numpy(self.con.execute(_RUN_LABELS_SQL, [run_id, run_id]).fetchnumpy())

    def queue_cells(
        self, run_id: int, judge_id: int, vs: int | None, evidence: bool = False
    ) -> dict[str, Any]:
        """What a review queue looks at, as columns: the (message, attribute) verdicts of
        ``judge_id`` on the run's generated messages that say revealed, or that the judge ``vs``
        decided otherwise. message_id, profile_id, ctx_idx, attr_id, revealed, other (``vs``'s
        verdict: 1, 0, or -1 where it gave none) and, when asked, evidence."""
        sql = (
            "SELECT v.message_id, m.profile_id, m.ctx_idx, v.attr_id, v.revealed,"
            " coalesce(o.revealed::TINYINT, -1::TINYINT) AS other"
            + (", v.evidence" if evidence else "")
            + " FROM verdicts v"
            " JOIN messages m ON m.message_id = v.message_id AND m.run_id = ? AND m.status = 'ok'"
            " LEFT JOIN verdicts o ON o.judge_id = ? AND o.message_id = v.message_id"
            "  AND o.attr_id = v.attr_id"
            " WHERE v.judge_id = ? AND (v.revealed OR o.revealed <> v.revealed)"
        )
        return _plain_numpy(self.con.execute(sql, [run_id, vs, judge_id]).fetchnumpy())

    def labels_of_run(self, run_id: int) -> list[RunLabel]:
        """Every labelled pair of a run: combined fractions, or the source's hard label."""
        rows = self.con.execute(
            "SELECT profile_id, ctx_idx, attr_id, necessary, private, NULL FROM persona_labels"
            " WHERE run_id = ? AND persona = 'combined' UNION ALL"
            " SELECT profile_id, ctx_idx, attr_id, NULL, NULL, label FROM hard_labels"
            " WHERE run_id = ?",
            [run_id, run_id],
        ).fetchall()
        return [
            RunLabel(p, c, a, n, pr, None if h is None else _LABELS[h])
            for p, c, a, n, pr, h in rows
        ]

    def copy_labels(self, from_run: int, to_run: int) -> int:
        """Copy labels between runs, matched by profile name, recipient, task and attribute key."""
        params = [to_run, to_run, from_run]  # the SELECT's run, the target's profiles, the source
        match = """
            FROM {src} l
            JOIN profiles sp ON sp.run_id = l.run_id AND sp.profile_id = l.profile_id
            JOIN contexts sc ON sc.run_id = l.run_id AND sc.profile_id = l.profile_id
                 AND sc.ctx_idx = l.ctx_idx
            JOIN attributes sa ON sa.run_id = l.run_id AND sa.attr_id = l.attr_id
            JOIN profiles tp ON tp.run_id = ? AND tp.name = sp.name
            JOIN contexts tc ON tc.run_id = tp.run_id AND tc.profile_id = tp.profile_id
                 AND lower(tc.recipient) = lower(sc.recipient) AND tc.task = sc.task
            JOIN attributes ta ON ta.run_id = tp.run_id AND ta.profile_id = tp.profile_id
                 AND ta.key = sa.key
            WHERE l.run_id = ?"""
        self.con.execute(
            "INSERT INTO persona_labels SELECT ?, tp.profile_id, tc.ctx_idx, ta.attr_id, l.persona,"
            " l.necessary, l.private, l.unlabeled" + match.format(src="persona_labels"),
            params,
        )
        self.con.execute(
            "INSERT INTO hard_labels SELECT ?, tp.profile_id, tc.ctx_idx, ta.attr_id, l.label"
            + match.format(src="hard_labels"),
            params,
        )
        return int(
            self.con.execute(
                "SELECT (SELECT count(*) FROM persona_labels WHERE run_id = ?)"
                " + (SELECT count(*) FROM hard_labels WHERE run_id = ?)",
                [to_run, to_run],
            ).fetchall()[0][0]
        )

    def values_by_name(self, run_id: int) -> dict[tuple[str, str], str]:
        """{(profile name, attribute key): value JSON} of a run (e.g. an imported profiles file)."""
        rows = self.con.execute(
            "SELECT p.name, a.key, a.value_json FROM attributes a JOIN profiles p"
            " USING (run_id, profile_id) WHERE a.run_id = ? AND a.value_json IS NOT NULL",
            [run_id],
        ).fetchall()
        return {(n, k): v for n, k, v in rows}

    def agreement_pairs(self, judge_a: int, judge_b: int) -> dict[str, Any]:
        """Verdicts of two judges on the (message, attribute) pairs both decided, with the pair's
        label fractions (or hard label) and domain; messages a judge failed to parse are left out."""
        result = self.con.execute(
            """
            SELECT a.message_id, a.attr_id, a.revealed AS a_revealed, b.revealed AS b_revealed,
                   a.evidence AS a_evidence, b.evidence AS b_evidence, m.profile_id, m.ctx_idx,
                   m.trial, att.key, att.domain, pl.necessary, pl.private,
                   coalesce((CASE hl.label WHEN 'share' THEN 1 WHEN 'private' THEN 0
                             WHEN 'ambiguous' THEN -1 END), -2)::TINYINT AS hard
            FROM verdicts a
            JOIN verdicts b ON b.judge_id = ? AND b.message_id = a.message_id
                 AND b.attr_id = a.attr_id
            JOIN messages m ON m.message_id = a.message_id
            JOIN attributes att ON att.run_id = m.run_id AND att.attr_id = a.attr_id
            LEFT JOIN persona_labels pl ON pl.run_id = m.run_id AND pl.profile_id = m.profile_id
                 AND pl.ctx_idx = m.ctx_idx AND pl.attr_id = a.attr_id AND pl.persona = 'combined'
            LEFT JOIN hard_labels hl ON hl.run_id = m.run_id AND hl.profile_id = m.profile_id
                 AND hl.ctx_idx = m.ctx_idx AND hl.attr_id = a.attr_id
            WHERE a.judge_id = ?
              AND NOT EXISTS (SELECT 1 FROM judgments j WHERE j.message_id = a.message_id
                              AND j.judge_id IN (?, ?) AND j.status <> 'ok')
            ORDER BY a.message_id, a.attr_id""",
            [judge_b, judge_a, judge_a, judge_b],
        ).fetchnumpy()
        return _plain_numpy(result)

    def human_judge(self, run_id: int) -> int:
        """The run's human judge (made on first use): people's verdicts live there."""
        with self.transaction():
            rows = self.con.execute(
                "SELECT judge_id FROM judges WHERE run_id = ? AND kind = 'human'"
                " ORDER BY judge_id LIMIT 1",
                [run_id],
            ).fetchall()
            if rows:
                return int(rows[0][0])
            return self.create_judge(run_id=run_id, name="human verdicts", kind=JudgeKind.HUMAN)

    def set_human_verdict(
        self,
        judge_id: int,
        message_id: int,
        attr_id: int,
        revealed: bool,
        note: str | None,
        reviewer: str | None = None,
    ) -> None:
        """Record one person's decision on one (message, attribute): see
        :meth:`add_human_verdicts`."""
        self.add_human_verdicts(
            judge_id, [HumanVerdict(message_id, attr_id, revealed, reviewer, note)]
        )

    def add_human_verdicts(self, judge_id: int, rows: list[HumanVerdict]) -> int:
        """Append people's verdicts to the history, in one transaction; the latest of a pair
        supersedes the earlier ones (which stay in the history) and becomes the judge's verdict
        that metrics and agreement read. Returns the number recorded."""
        if not rows:
            return 0
        now = _now()
        with self.transaction():
            seq = int(
                self.con.execute("SELECT coalesce(max(seq), 0) FROM human_verdicts").fetchall()[0][
                    0
                ]
            )
            for i, r in enumerate(rows, start=1):
                self.con.execute(
                    "INSERT INTO human_verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        seq + i,
                        judge_id,
                        r.message_id,
                        r.attr_id,
                        r.revealed,
                        r.reviewer,
                        r.note,
                        r.created_at or now,
                    ],
                )
                self.con.execute(
                    "DELETE FROM verdicts WHERE judge_id = ? AND message_id = ? AND attr_id = ?",
                    [judge_id, r.message_id, r.attr_id],
                )
                self.con.execute(
                    "INSERT INTO verdicts VALUES (?, ?, ?, ?, ?)",
                    [judge_id, r.message_id, r.attr_id, r.revealed, r.note],
                )
            self.con.execute(
                "INSERT INTO judgments SELECT DISTINCT ?, m, 'ok', NULL FROM unnest(?) t(m)"
                " WHERE NOT EXISTS (SELECT 1 FROM judgments j WHERE j.judge_id = ?"
                " AND j.message_id = t.m)",
                [judge_id, [r.message_id for r in rows], judge_id],
            )
        return len(rows)

    def human_verdicts(self, judge_id: int, history: bool = False) -> list[HumanVerdictRow]:
        """A human judge's current verdicts (the latest per pair), or with ``history`` every
        verdict ever recorded, oldest first, each marked current or superseded."""
        rows = self.con.execute(
            """
            SELECT * EXCLUDE (seq) FROM (
                SELECT h.seq, h.message_id, p.name, m.ctx_idx, c.recipient, c.task, m.trial,
                       h.attr_id, a.key, h.revealed, h.reviewer, h.note, h.created_at,
                       h.seq = max(h.seq) OVER (PARTITION BY h.message_id, h.attr_id) AS current
                FROM human_verdicts h
                JOIN messages m ON m.message_id = h.message_id
                JOIN profiles p ON p.run_id = m.run_id AND p.profile_id = m.profile_id
                JOIN contexts c ON c.run_id = m.run_id AND c.profile_id = m.profile_id
                     AND c.ctx_idx = m.ctx_idx
                JOIN attributes a ON a.run_id = m.run_id AND a.attr_id = h.attr_id
                WHERE h.judge_id = ?)
            WHERE current OR ? ORDER BY seq""",
            [judge_id, history],
        ).fetchall()
        return list(map(HumanVerdictRow._make, rows))

    def human_judge_of(self, run_id: int) -> int | None:
        """The run's human judge, if people have recorded verdicts on it."""
        rows = self.con.execute(
            "SELECT min(judge_id) FROM judges WHERE run_id = ? AND kind = 'human'", [run_id]
        ).fetchall()
        return None if rows[0][0] is None else int(rows[0][0])

    # ----------------------------------------------------------------- call cache
    def cache_get(self, keys: list[str]) -> dict[str, CachedCompletion]:
        """The cached completions of those keys that are in the cache."""
        if not keys:
            return {}
        rows = self.con.execute(
            "SELECT key, response, reasoning, prompt_tokens, completion_tokens FROM llm_cache"
            " WHERE list_contains(?, key)",
            [keys],
        ).fetchall()
        return {k: CachedCompletion(r, z, p or 0, c or 0) for k, r, z, p, c in rows}

    def cache_put_many(self, rows: list[CachedCall]) -> None:
        """Store completed calls in one transaction; a key already there is replaced."""
        if not rows:
            return
        cols = list(zip(*rows))
        data = pa.table(
            {
                "key": pa.array(cols[0], pa.string()),
                "model": pa.array(cols[1], pa.string()),
                "purpose": pa.array(cols[2], pa.string()),
                "response": pa.array(cols[3], pa.string()),
                "reasoning": pa.array(cols[4], pa.string()),
                "prompt_tokens": pa.array(cols[5], pa.int32()),
                "completion_tokens": pa.array(cols[6], pa.int32()),
                "created_at": pa.array(cols[7], pa.timestamp("us")),
            }
        )
        with self.transaction():
            self.con.register("_cache_rows", data)
            try:
                self.con.execute("INSERT OR REPLACE INTO llm_cache SELECT * FROM _cache_rows")
            finally:
                self.con.unregister("_cache_rows")

    def judgments_of(self, judge_id: int) -> dict[int, Judgment]:
        """{message_id: judgment} of one judge."""
        rows = self.con.execute(
            "SELECT message_id, status, raw FROM judgments WHERE judge_id = ?", [judge_id]
        ).fetchall()
        return {int(m): Judgment(_JUDGMENT_STATUS[s], r) for m, s, r in rows}


class BulkAppender:
    """A bounded queue of (table, Arrow data) drained by one writer thread."""

    def __init__(self, store: Store, depth: int):
        self._store = store
        self._queue: queue.Queue = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._error is None:
                try:
                    for table, data in item:
                        self._store.append(table, data)
                except BaseException as exc:  # surfaced in the caller's thread
                    self._error = exc

    def put(self, batch: list[tuple[str, pa.Table]]) -> None:
        if self._error is not None:
            raise self._error
        self._queue.put(batch)

    def close(self, raise_error: bool = True) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if raise_error and self._error is not None:
            raise self._error


# Every labelled pair of a run (two run_id parameters): the combined fractions (hard = -2, derive
# the label under a rule) or the source's hard label (1 share, 0 private, -1 ambiguous).
_RUN_LABELS_SQL = """
    SELECT profile_id, ctx_idx, attr_id, necessary, private, -2::TINYINT AS hard
    FROM persona_labels WHERE run_id = ? AND persona = 'combined'
    UNION ALL
    SELECT profile_id, ctx_idx, attr_id, 0.0, 0.0,
           (CASE label WHEN 'share' THEN 1 WHEN 'private' THEN 0 ELSE -1 END)::TINYINT
    FROM hard_labels WHERE run_id = ?
"""

_LEAK_PAIRS_SQL = f"""
WITH rev AS (
    SELECT m.profile_id, m.ctx_idx, v.attr_id, bit_or(1::UBIGINT << m.trial) AS mask
    FROM verdicts v JOIN messages m USING (message_id)
    WHERE v.judge_id = ? AND m.run_id = ? AND v.revealed AND m.shared_json IS NULL
    GROUP BY ALL),
lab AS ({_RUN_LABELS_SQL})
SELECT lab.profile_id, lab.ctx_idx, lab.attr_id, lab.necessary, lab.private, lab.hard,
       coalesce(rev.mask, 0::UBIGINT) AS mask
FROM lab LEFT JOIN rev USING (profile_id, ctx_idx, attr_id)
"""

_TRIAL_MASKS_SQL = """
SELECT m.profile_id, m.ctx_idx,
    bit_or(1::UBIGINT << m.trial) AS trials,
    bit_or(CASE WHEN m.status = 'ok' AND j.status = 'ok' THEN 1::UBIGINT << m.trial
           ELSE 0::UBIGINT END) AS valid,
    bit_or(CASE WHEN m.status = 'ok' AND j.status = 'parse_failure' THEN 1::UBIGINT << m.trial
           ELSE 0::UBIGINT END) AS unparsed,
    bit_or(CASE WHEN m.status = 'ok' AND j.status = 'error' THEN 1::UBIGINT << m.trial
           ELSE 0::UBIGINT END) AS judge_error,
    bit_or(CASE WHEN m.status <> 'ok' THEN 1::UBIGINT << m.trial ELSE 0::UBIGINT END) AS failed,
    bit_or(CASE WHEN m.status = 'ok' AND j.status IS NULL THEN 1::UBIGINT << m.trial
           ELSE 0::UBIGINT END) AS unjudged
FROM messages m LEFT JOIN judgments j ON j.message_id = m.message_id AND j.judge_id = ?
WHERE m.run_id = ? AND m.shared_json IS NULL
GROUP BY ALL
"""


def _plain_numpy(columns: dict[str, Any]) -> dict[str, Any]:
    """fetchnumpy gives masked arrays where a column has NULLs: fill them with NaN or None."""
    import numpy as np

    out = {}
    for name, col in columns.items():
        if isinstance(col, np.ma.MaskedArray):
            if col.dtype.kind == "f":
                col = col.filled(np.nan)
            elif col.dtype.kind in "iub":
                col = np.ma.filled(col.astype(np.float64), np.nan) if col.mask.any() else col.data
            else:
                col = np.array(
                    [None if m else v for v, m in zip(col.data, np.ma.getmaskarray(col))],
                    dtype=object,
                )
        out[name] = col
    return out


# text from the database -> enum member, by dict lookup (cheaper than calling the enum per row)
_MESSAGE_STATUS = {m.value: m for m in MessageStatus}
_JUDGMENT_STATUS = {m.value: m for m in JudgmentStatus}
_LABELS = {m.value: m for m in Label}


def _judge_info(row: tuple) -> JudgeInfo:
    judge_id, run_id, name, kind, model, prompt_hash, created_at = row
    return JudgeInfo(judge_id, run_id, name, JudgeKind(kind), model, prompt_hash, created_at)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)
