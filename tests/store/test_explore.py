"""The query sandbox: the views answer questions; a visitor's SQL reaches nothing else (no file,
no other database, no setting, no extension, no write), stops at its time limit and returns at
most its row limit."""

import pandas as pd
import pytest

import cimem
from cimem.store import Store
from cimem.store.explore import VIEWS, QueryRefused, Sandbox, check_query

ATTACKS = [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM glob('/*')",
    "SELECT * FROM cimem_store.llm_cache",
    "SELECT * FROM llm_cache",
    "SELECT * FROM duckdb_databases()",
    "SELECT * FROM duckdb_settings()",
    "SELECT current_setting('memory_limit')",
    "ATTACH '/tmp/other.duckdb' AS other",
    "COPY (SELECT * FROM runs) TO '/tmp/stolen.csv'",
    "EXPORT DATABASE '/tmp/stolen'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "PRAGMA database_list",
    "CREATE TABLE t AS SELECT 1",
    "DELETE FROM runs",
    "SELECT 1; SELECT 2",
    "SELECT * FROM 'https://example.com/data.csv'",
    "SELECT * FROM runs WHERE name IN (SELECT name FROM cimem_store.judges)",
    "WITH x AS (SELECT * FROM read_parquet('/etc/x')) SELECT * FROM x",
]


@pytest.fixture(scope="module")
def box(demo_db):
    with Sandbox(demo_db) as sandbox:
        yield sandbox


@pytest.mark.parametrize("sql", ATTACKS)
def test_what_reaches_beyond_the_views_is_refused(box, sql, tmp_path):
    with pytest.raises(QueryRefused):
        box.query(sql)


def test_the_sandbox_is_locked_even_without_the_check(box):
    """The parse check aside, the instance itself can reach no file and change no setting."""
    for sql in ("SELECT * FROM read_csv('/etc/passwd')", "SET enable_external_access = true"):
        with pytest.raises(Exception, match="(?i)permission|cannot change|disabled"):
            box.con.execute(sql)


def test_questions_over_the_views(box):
    res = box.query(
        "WITH leaked AS (SELECT judge_id, count(*) AS n FROM verdicts WHERE revealed"
        " GROUP BY ALL) SELECT j.name, l.n FROM judges j JOIN leaked l USING (judge_id)"
        " ORDER BY l.n DESC"
    )
    assert len(res.frame) > 0 and list(res.frame.columns) == ["name", "n"]
    assert res.frame["n"].is_monotonic_decreasing and not res.truncated
    assert box.query("SELECT * FROM range(3)").frame.shape == (3, 1)


def test_the_row_and_time_limits(box):
    res = box.query("SELECT * FROM verdicts", max_rows=10)
    assert len(res.frame) == 10 and res.truncated
    with pytest.raises(QueryRefused, match="time limit"):
        box.query("SELECT count(*) FROM verdicts a, verdicts b, verdicts c", time_limit=0.5)


def test_runs_show_a_source_file_by_its_name_only(box):
    files = box.query("SELECT source_file FROM runs").frame["source_file"]
    assert files.str.len().gt(0).all() and not files.str.contains("/").any()


def test_every_view_is_documented_and_readable(box):
    columns = box.columns()
    for v in VIEWS:
        assert v.row and columns[v.name], v.name
        box.query(f"SELECT * FROM {v.name} LIMIT 1")


def test_a_refusal_says_what_is_allowed():
    with pytest.raises(QueryRefused, match="the views are .*messages.*runs"):
        check_query("SELECT * FROM secrets", frozenset({"runs", "messages"}))
    with pytest.raises(QueryRefused, match="empty"):
        check_query("  ", frozenset())


def test_the_python_api_reads_the_same_views(demo_db):
    db = cimem.open(demo_db)
    runs = db.runs()
    assert len(runs) == 3 and "source_file" in runs.columns
    one = db.verdicts(1)
    with Store.open(demo_db, read_only=True) as store:
        judges = {j.judge_id for j in store.judges(1)}
    assert set(one["judge_id"]) <= judges and len(one) < len(db.verdicts())
    cells = db.leak_cells(1)
    by_sql = db.sql("SELECT sum(leaks) AS leaks FROM leak_cells WHERE in_violation", run=1)
    assert by_sql["leaks"][0] == cells.loc[cells["in_violation"], "leaks"].sum()
    assert isinstance(db.messages(1), pd.DataFrame)


def test_the_file_is_let_go_between_calls(demo_db, tmp_path):
    import shutil

    copy = tmp_path / "copy.duckdb"
    shutil.copy(demo_db, copy)
    cimem.open(copy).runs()
    with Store.open(copy) as store:  # opens for writing: nothing holds the file
        store.rename_run(1, "renamed")
    assert "renamed" in set(cimem.open(copy).runs()["name"])


def test_an_older_database_read_only_shows_the_newer_columns_as_null(tmp_path):
    """A database made before messages kept their finish reason: the sandbox (read-only, so it
    cannot migrate it) still builds every view, the newer columns empty."""
    from test_schema_migration import version_3_database

    old = version_3_database(tmp_path)
    with Sandbox(str(old)) as box:
        frame = box.query("SELECT finish_reason, prompt_tokens FROM messages").frame
    assert len(frame) > 0 and frame.isna().all().all()
    with Sandbox(str(old)) as box:  # the file is untouched: still version 3
        assert "finish_reason" in dict(box.columns()["messages"])
    with Store.open(old, read_only=True) as store:
        assert store.con.execute("SELECT version FROM schema_info").fetchone()[0] == 3


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW ALL TABLES",
        "SHOW DATABASES",
        "DESCRIBE runs",
        "SUMMARIZE verdicts",
        "FROM (SHOW TABLES)",
    ],
)
def test_the_layout_of_the_database_is_not_shown(box, sql):
    with pytest.raises(QueryRefused, match="SHOW, DESCRIBE and SUMMARIZE"):
        box.query(sql)


def test_a_result_stops_at_its_byte_limit(box):
    with pytest.raises(QueryRefused, match="passes 1 MB"):
        box.query("SELECT repeat('x', 10000) AS s FROM range(1000)", max_bytes=1_000_000)
    assert len(box.query("SELECT repeat('x', 100) AS s FROM range(1000)").frame) == 1000


def test_every_view_gives_its_rows_in_its_documented_order(demo_db):
    db = cimem.open(demo_db)
    for v in VIEWS:
        frame = getattr(db, v.name)()
        keys = [c.strip() for c in v.order.split(",")]
        assert frame[keys].equals(frame[keys].sort_values(keys, kind="stable")), v.name
        if v.name != "runs":
            one = getattr(db, v.name)(1)
            assert one[keys].equals(one[keys].sort_values(keys, kind="stable")), v.name
    cells = db.leak_cells(1)
    assert cells[["ctx", "attr"]].equals(cells[["ctx", "attr"]].sort_values(["ctx", "attr"]))
