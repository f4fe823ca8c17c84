"""Questions of one's own, safely: SQL over documented read-only views of a database, run in a
sandbox that a visitor of a served app may use.

The sandbox is a DuckDB instance of its own, in memory, that attaches the database file
read-only, defines the views (:data:`VIEWS`) over it, and then locks itself: no file system or
network access (no ``read_csv('/etc/...')``, ``ATTACH``, ``COPY ... TO`` or ``EXPORT``), no
extension installed or loaded, its configuration frozen, one thread, a memory limit. Before a
query runs it is parsed, and refused unless it is one SELECT (CTEs, joins and subqueries
welcome) that reads only the views and its own CTEs and calls no table function and no
function that tells about the server (settings, databases, files). A query stops after a time
limit, and at most ``max_rows`` rows come back.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa

from cimem.errors import CimemError
from cimem.store.lake import attach_lake
from cimem.store.location import is_lake, parse_lake, shown, sql_text

ATTACHED = "cimem_store"
MAX_ROWS = 10_000
MAX_BYTES = 20_000_000  # of a result: 10,000 rows of long texts would be a gigabyte to draw
TIME_LIMIT = 10.0  # seconds
MEMORY_LIMIT = "1GB"
BATCH_ROWS = 256  # rows fetched at a time, so a result stops at its byte limit


@dataclass(frozen=True)
class View:
    """A documented view: its name, what a row is, its SQL, and how its rows are narrowed to
    one run (a condition with one ``?``)."""

    name: str
    row: str
    sql: str
    order: str  # the columns whose order ``view`` gives its rows in (the documented order)
    of_run: str = "run_id = ?"
    older: str | None = None  # the SQL for a database made before some of the columns existed


_OF_RUN_BY_JUDGE = "judge_id IN (SELECT judge_id FROM judges WHERE run_id = ?)"


def _v(
    name: str,
    row: str,
    columns: str,
    source: str,
    order: str,
    of_run: str = "run_id = ?",
    newer: dict[str, str] | None = None,
) -> View:
    """A view of ``columns`` of ``source``, and ``newer`` columns (name -> type) that an older
    database lacks: there they read as NULL (the sandbox opens a database read-only, so it
    cannot bring it up to date)."""
    added = ", ".join(newer or {})
    sql = f"SELECT {columns}{', ' + added if added else ''} FROM {ATTACHED}.{source}"
    nulls = ", ".join(f"NULL::{t} AS {n}" for n, t in (newer or {}).items())
    older = f"SELECT {columns}, {nulls} FROM {ATTACHED}.{source}" if newer else None
    return View(name, row, sql, order, of_run, older)


VIEWS: tuple[View, ...] = (
    _v(
        "runs",
        "a run (an imported file or a run cimem made)",
        "run_id, name, kind, source_format, regexp_extract(coalesce(source, ''), '[^/\\\\]*$')"
        " AS source_file, content_hash AS sha256, model, prompt_set, level, memory_format,"
        " n_trials, simulated, created_at",
        "runs",
        "run_id",
    ),
    _v(
        "profiles",
        "a person of a run",
        "run_id, profile_id, name, sex, address, age",
        "profiles",
        "run_id, profile_id",
    ),
    _v(
        "attributes",
        "a memory of a person",
        "run_id, profile_id, attr_id, key, value_json, domain, event, memory_statement",
        "attributes",
        "run_id, profile_id, attr_id",
    ),
    _v(
        "contexts",
        "a task of a person: recipient and purpose",
        "run_id, profile_id, ctx_idx, recipient, task",
        "contexts",
        "run_id, profile_id, ctx_idx",
    ),
    _v(
        "messages",
        "a message the model wrote for one task, one sample (trial)",
        "message_id, run_id, profile_id, ctx_idx, trial, prompt, text, status, error",
        "messages",
        "message_id",
        newer={
            "finish_reason": "VARCHAR",
            "prompt_tokens": "INTEGER",
            "completion_tokens": "INTEGER",
        },
    ),
    _v(
        "judges",
        "a judge of a run (imported verdicts, an LLM, the offline judge, people)",
        "judge_id, run_id, name, kind, model, prompt_hash, created_at",
        "judges",
        "judge_id",
    ),
    _v(
        "judgments",
        "a judge's reply on a message: ok, parse_failure or error; reply: what the judge said"
        " (or the error) where it failed, NULL where the source kept nothing",
        "judge_id, message_id, status, CASE WHEN status <> 'ok' THEN raw END AS reply",
        "judgments",
        "judge_id, message_id",
        _OF_RUN_BY_JUDGE,
    ),
    _v(
        "verdicts",
        "a judge's yes/no on one (message, attribute), with its evidence",
        "judge_id, message_id, attr_id, revealed, evidence",
        "verdicts",
        "judge_id, message_id, attr_id",
        _OF_RUN_BY_JUDGE,
    ),
    _v(
        "labels",
        "one persona's fractions for a (task, attribute): necessary, private, unlabeled",
        "run_id, profile_id, ctx_idx, attr_id, persona, necessary, private, unlabeled",
        "persona_labels",
        "run_id, profile_id, ctx_idx, attr_id, persona",
    ),
    _v(
        "hard_labels",
        "a source's own label for a (task, attribute): share, private or ambiguous",
        "run_id, profile_id, ctx_idx, attr_id, label",
        "hard_labels",
        "run_id, profile_id, ctx_idx, attr_id",
    ),
    _v(
        "human_verdicts",
        "a person's verdict on one (message, attribute), every one kept in order (seq);"
        " adjudication: it settles reviewers' disagreement",
        "seq, judge_id, message_id, attr_id, revealed, reviewer, note, created_at",
        "human_verdicts",
        "seq",
        _OF_RUN_BY_JUDGE,
        newer={"adjudication": "BOOLEAN"},
    ),
)
EXAMPLE_QUERY = (
    "SELECT r.name AS run, count(*) AS messages\n"
    "FROM runs r JOIN messages m USING (run_id)\n"
    "GROUP BY r.name ORDER BY messages DESC"
)
"""The first cell a visitor sees: a question over two views, answered at once."""
NEW_CELL_QUERY = "SELECT * FROM runs"
LEAK_CELLS = "leak_cells"  # registered per query when asked for: a run's per-cell leak table

# functions that say something about the server rather than the data
_DENIED_FUNCTIONS = ("current_setting", "getvariable", "getenv", "version", "current_database")
_TABLE_FUNCTIONS = frozenset({"range", "generate_series", "unnest"})  # numbers and lists only
_DENIED_PREFIXES = ("duckdb_", "pragma_", "read_", "sniff_", "parquet_", "glob", "which_")


class QueryRefused(CimemError):
    """A query the sandbox will not run: it says why and what is allowed."""


@dataclass(frozen=True)
class QueryResult:
    """What a query gave: its rows (at most the limit), whether there were more, how long."""

    frame: pd.DataFrame
    truncated: bool
    seconds: float


def check_query(sql: str, tables: frozenset[str]) -> None:
    """Refuse (QueryRefused) anything but one SELECT over ``tables`` and its own CTEs."""
    if not sql.strip():
        raise QueryRefused("the query is empty: write one SELECT over the views")
    parser = duckdb.connect(":memory:")
    try:
        statements = parser.extract_statements(sql)
        (serialized,) = parser.execute("SELECT json_serialize_sql(?)", [sql]).fetchall()[0]
        tree = json.loads(serialized)
    except duckdb.Error as exc:
        raise QueryRefused(f"the query does not parse: {exc}") from None
    finally:
        parser.close()
    if len(statements) != 1 or tree.get("error"):
        raise QueryRefused(
            "only one SELECT statement is run (no PRAGMA, SET, ATTACH, COPY, CREATE, INSERT)"
        )
    ctes = set(_cte_names(tree))
    for node in _nodes(tree):
        _check_node(node, tables | ctes)


def _nodes(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for v in value.values():
            yield from _nodes(v)
    elif isinstance(value, list):
        for v in value:
            yield from _nodes(v)


def _cte_names(tree: dict[str, Any]) -> Iterator[str]:
    for node in _nodes(tree):
        for entry in node.get("cte_map", {}).get("map", []) if "cte_map" in node else []:
            yield str(entry.get("key", "")).lower()


def _listed(tables: set[str] | frozenset[str]) -> str:
    """The views a query may read, as an error lists them: ``leak_cells`` too, which a page
    (the sidebar's run) or ``cimem.open(...).sql(query, run=N)`` adds when a query names it."""
    extra = "" if LEAK_CELLS in tables else f", and {LEAK_CELLS} (a run's per-cell leak table)"
    return ", ".join(sorted(tables)) + extra


def _check_node(node: dict[str, Any], tables: set[str] | frozenset[str]) -> None:
    kind = node.get("type")
    if kind == "SHOW_REF":
        raise QueryRefused(
            "SHOW, DESCRIBE and SUMMARIZE are not run (they read the database's layout); the"
            " views and their columns are listed on the page"
        )
    if kind == "BASE_TABLE":
        name = str(node.get("table_name", "")).lower()
        if node.get("schema_name") or node.get("catalog_name") or name not in tables:
            shown = ".".join(
                x for x in (node.get("catalog_name"), node.get("schema_name"), name) if x
            )
            raise QueryRefused(f"no table {shown!r}: the views are {_listed(tables)}")
    elif kind == "TABLE_FUNCTION":
        call = node.get("function") or {}
        if str(call.get("function_name", "")).lower() not in _TABLE_FUNCTIONS:
            raise QueryRefused(
                "table functions other than "
                + ", ".join(sorted(_TABLE_FUNCTIONS))
                + " are not run (read_csv, glob, duckdb_settings ... read the server)"
            )
    elif node.get("class") == "FUNCTION":
        name = str(node.get("function_name", "")).lower()
        if name in _DENIED_FUNCTIONS or name.startswith(_DENIED_PREFIXES):
            raise QueryRefused(f"the function {name} is not run here (it reads the server)")


class Sandbox:
    """The views of one database file, for queries from anyone (see the module's docstring).
    Used as a context manager: the file is attached while it is open, and let go on close."""

    def __init__(self, path: str, extra: Mapping[str, pd.DataFrame] | None = None) -> None:
        self.con = duckdb.connect(":memory:", config={"threads": 1})
        self.data_folder: str | None = None  # a lake's, which errors never show
        try:
            if is_lake(str(path)):
                attach_lake(self.con, parse_lake(str(path)), ATTACHED, True, shown(str(path)))
                self.data_folder = self._lake_data_folder()
            else:
                self.con.execute(f"ATTACH {sql_text(str(path))} AS {ATTACHED} (READ_ONLY)")
            for v in VIEWS:
                self._create(v)
            for name, frame in (extra or {}).items():
                self.con.register(name, frame)
            if self.data_folder is not None:  # the lake reads its own Parquet files, nothing else
                folder = sql_text(self.data_folder)
                self.con.execute(f"SET allowed_directories = [{folder}]")
            for setting in (
                "SET enable_external_access = false",
                "SET autoinstall_known_extensions = false",
                "SET autoload_known_extensions = false",
                f"SET memory_limit = '{MEMORY_LIMIT}'",
                "SET lock_configuration = true",
            ):
                self.con.execute(setting)
        except BaseException:
            self.con.close()
            raise
        self.tables = frozenset(v.name for v in VIEWS) | frozenset(extra or {})

    def _lake_data_folder(self) -> str:
        """The attached lake's data folder, as DuckLake keeps it (a folder: it ends with "/")."""
        found = self.con.execute(
            f"SELECT value FROM __ducklake_metadata_{ATTACHED}.ducklake_metadata"
            " WHERE key = 'data_path'"
        ).fetchone()
        folder = str(found[0]) if found else ""
        return folder if folder.endswith("/") else folder + "/"

    def _create(self, view: View) -> None:
        try:
            self.con.execute(f"CREATE VIEW {view.name} AS {view.sql}")
        except duckdb.BinderException:
            if view.older is None:
                raise
            self.con.execute(f"CREATE VIEW {view.name} AS {view.older}")

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.con.close()

    def columns(self) -> dict[str, list[tuple[str, str]]]:
        """Each table's columns and their types, as a query sees them."""
        return {
            name: [(str(c), str(t)) for c, t, *_ in self.con.execute(f"DESCRIBE {name}").fetchall()]
            for name in sorted(self.tables)
        }

    def view(self, name: str, run_id: int | None = None) -> pd.DataFrame:
        """A whole view, or its rows of one run, in the view's documented order."""
        view = next((v for v in VIEWS if v.name == name), None)
        if view is None:
            raise QueryRefused(f"no view {name!r}: the views are {', '.join(sorted(self.tables))}")
        where = "" if run_id is None else f" WHERE {view.of_run}"
        sql = f"SELECT * FROM {view.name}{where} ORDER BY {view.order}"
        return self.con.execute(sql, [] if run_id is None else [run_id]).df()

    def query(
        self,
        sql: str,
        max_rows: int | None = MAX_ROWS,
        time_limit: float | None = TIME_LIMIT,
        max_bytes: int | None = MAX_BYTES,
    ) -> QueryResult:
        """The query's first ``max_rows`` rows (None: all); QueryRefused for a query it will not
        run, one that fails, one that runs past ``time_limit`` seconds or whose result passes
        ``max_bytes`` (None: no limit)."""
        check_query(sql, self.tables)
        timer = threading.Timer(time_limit or 0, self.con.interrupt)
        start = time.monotonic()
        if time_limit is not None:
            timer.start()
        try:
            rel = self.con.sql(sql)
            frame = _fetch(
                self.con, rel if max_rows is None else rel.limit(max_rows + 1), max_bytes
            )
        except duckdb.InterruptException:
            raise QueryRefused(f"the query ran past the time limit of {time_limit:g} s") from None
        except duckdb.OutOfMemoryException:
            raise QueryRefused(
                f"the query needs more than the {MEMORY_LIMIT} of memory a query may use: select"
                " fewer or shorter columns, or aggregate"
            ) from None
        except duckdb.Error as exc:
            said = str(exc)
            if self.data_folder:  # a visitor never learns where the lake keeps its files
                said = said.replace(self.data_folder, "<the lake's data folder>/")
            raise QueryRefused(f"the query failed: {said}") from None
        finally:
            timer.cancel()
        seconds = time.monotonic() - start
        if max_rows is not None and len(frame) > max_rows:
            return QueryResult(frame.head(max_rows), True, seconds)
        return QueryResult(frame, False, seconds)


def _fetch(
    con: duckdb.DuckDBPyConnection, rel: duckdb.DuckDBPyRelation, max_bytes: int | None
) -> pd.DataFrame:
    """The relation's rows, a batch at a time, refused once they pass ``max_bytes``; turned into
    pandas as DuckDB does (a HUGEINT sum a float, as everywhere else)."""
    if max_bytes is None:
        whole: pd.DataFrame = rel.df()
        return whole
    reader = rel.to_arrow_reader(BATCH_ROWS)
    batches, size = [], 0
    for batch in reader:
        size += batch.nbytes
        if size > max_bytes:
            raise QueryRefused(
                f"the result passes {max_bytes / 1e6:g} MB, more than a page draws: select fewer"
                " or shorter columns (left(text, 200) for a message), or fewer rows"
            )
        batches.append(batch)
    frame: pd.DataFrame = con.from_arrow(pa.Table.from_batches(batches, schema=reader.schema)).df()
    return frame
