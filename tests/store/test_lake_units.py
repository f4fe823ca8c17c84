"""The lake's parts on their own: locations, bounded retries of conflicting writes, ids that no
two writers share, and clear one-line errors (a lake not there, a password never shown)."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import duckdb
import pytest

from cimem import paths
from cimem.store import Store
from cimem.store.lake import WriteConflict, retry_conflicts
from cimem.store.location import LakeRefused, parse_lake

from conftest import REPO

CONFLICT = "TransactionContext Error: Failed to commit: Transaction conflict - another transaction"


def test_a_conflicting_write_is_run_again_until_it_commits():
    tries = []

    def write() -> str:
        tries.append(1)
        if len(tries) < 4:
            raise duckdb.TransactionException(CONFLICT)
        return "committed"

    assert retry_conflicts(write, "a test write") == "committed"
    assert len(tries) == 4


def test_a_write_that_always_conflicts_gives_up_and_names_itself():
    tries = []

    def write() -> None:
        tries.append(1)
        raise duckdb.TransactionException(CONFLICT)

    with pytest.raises(WriteConflict, match="recording verdicts: gave up after 3 tries"):
        retry_conflicts(write, "recording verdicts", attempts=3)
    assert len(tries) == 3


def test_other_errors_are_not_retried():
    tries = []

    def write() -> None:
        tries.append(1)
        raise duckdb.ConstraintException("NOT NULL constraint failed")

    with pytest.raises(duckdb.ConstraintException):
        retry_conflicts(write, "a test write")
    assert len(tries) == 1


def test_only_a_lake_over_postgres_is_taken():
    with pytest.raises(LakeRefused, match="expected a lake over PostgreSQL"):
        parse_lake("ducklake:sqlite:lake.sqlite")


def test_a_visitor_cannot_name_a_lake_in_the_url(tmp_path):
    with pytest.raises(paths.PathRefused):
        paths.confine("ducklake:postgres:dbname=cimem host=10.0.0.1", tmp_path, (".duckdb",))


def cimem(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cimem", *args], capture_output=True, text=True, cwd=REPO
    )


def test_a_lake_not_there_is_one_line_without_its_password(tmp_path: Path):
    from app_server import free_port

    lake = f"ducklake:postgres:dbname=x host=127.0.0.1 port={free_port()} password=hunter2"
    done = cimem("runs", "--db", lake)
    assert done.returncode == 2
    assert done.stderr.startswith("error: lake x: the lake's catalog, PostgreSQL at 127.0.0.1:")
    assert "cannot be reached" in done.stderr and "Traceback" not in done.stderr
    assert "hunter2" not in done.stderr and done.stderr.count("\n") == 1


def test_reading_a_lake_without_cimems_tables_says_how_to_make_them(lake):
    done = cimem("metrics", "--db", lake)
    assert done.returncode == 2
    assert "no cimem tables in this lake yet" in done.stderr


def test_writers_at_once_never_get_the_same_ids(lake):
    stores = [Store.open(lake) for _ in range(3)]
    taken: list[list[int]] = [[] for _ in stores]

    def take(i: int) -> None:
        for _ in range(15):
            first = stores[i].reserve_ids("message", 10)
            taken[i].extend(range(first, first + 10))

    threads = [threading.Thread(target=take, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in stores:
        s.close()
    every = [x for ids in taken for x in ids]
    assert len(every) == 450 and len(set(every)) == 450


def test_the_query_sandbox_reads_a_lake_and_refuses_its_catalog(lake, tmp_path):
    from cimem.store.explore import QueryRefused, Sandbox

    from fixtures import small_profile, write_jsonl

    source = write_jsonl(tmp_path / "a.jsonl", [small_profile("Ada")])
    done = cimem("ingest", str(source), "--db", lake)
    assert done.returncode == 0, done.stderr
    folder = parse_lake(lake).data_path
    with Sandbox(lake) as box:
        assert box.query("SELECT count(*) AS n FROM runs").frame["n"].tolist() == [1]
        # the views' data, read from the lake's Parquet files (file access stays off otherwise)
        messages = box.query("SELECT * FROM messages").frame
        assert len(messages) > 0 and messages["text"].notna().all()
        assert len(box.query("SELECT * FROM verdicts").frame) > 0
        for hostile in (
            "SELECT * FROM postgres_query('__ducklake_metadata_cimem_store', 'SELECT 1')",
            "SELECT * FROM __ducklake_metadata_cimem_store.ducklake_snapshot",
            "SELECT * FROM ducklake_snapshots('cimem_store')",
            f"SELECT * FROM read_parquet('{folder}/**/*.parquet')",
        ):
            with pytest.raises(QueryRefused) as refused:
                box.query(hostile)
            assert str(folder) not in str(refused.value).replace(hostile, "")


def test_a_notebook_opens_a_lake_as_it_opens_a_file(lake, tmp_path):
    import cimem as library  # (cimem here is the command)

    from fixtures import small_profile, write_jsonl

    source = write_jsonl(tmp_path / "a.jsonl", [small_profile("Ada"), small_profile("Bo")])
    assert cimem("ingest", str(source), "--db", lake).returncode == 0
    db = library.open(lake)
    assert db.runs()["run_id"].tolist() == [1]
    assert len(db.messages(1)) > 0 and len(db.verdicts(1)) > 0
    cells = db.leak_cells(1)
    counted = db.sql("SELECT count(*) AS n FROM leak_cells", run=1)["n"].tolist()
    assert counted == [len(cells)] and len(cells) > 0


def joins_on_the_run_alone(con, sql: str, params: list) -> list[str]:
    """The joins of ``sql``'s plan that pair rows by their run alone (every message of a run
    with every attribute of it) or by nothing: what a lake's plan, with no table statistics,
    can choose where a file's would not."""
    import json

    (row,) = con.execute("EXPLAIN (FORMAT json) " + sql, params).fetchall()
    found: list[str] = []

    def walk(node: dict) -> None:
        conditions = node.get("extra_info", {}).get("Conditions")
        if node["name"] == "CROSS_PRODUCT" or conditions in (
            "run_id = run_id",
            ["run_id = run_id"],
        ):
            found.append(f"{node['name']} {conditions}")
        for child in node.get("children", []):
            walk(child)

    for top in json.loads(row[1]):
        walk(top)
    return found


def test_two_judges_agreement_never_pairs_a_runs_messages_with_its_attributes(lake, tmp_path):
    """The agreement read (the report's judges table, `agreement`) on a lake: its plan joined
    every message of the run to every attribute of it before the verdicts (5 minutes and 21 GB
    for a report on a lake of 60-profile runs)."""
    from cimem.store.cube_reads import _AGREEMENT_SQL

    from fixtures import small_profile, write_jsonl

    source = write_jsonl(tmp_path / "a.jsonl", [small_profile("Ada"), small_profile("Bo")])
    assert cimem("ingest", str(source), "--db", lake).returncode == 0
    assert cimem("judge", "--run", "1", "--offline", "--db", lake).returncode == 0
    with Store.open(lake, read_only=True) as store:
        assert joins_on_the_run_alone(store.con, _AGREEMENT_SQL, [2, 1, 1, 2]) == []
        assert len(store.agreement_pairs(1, 2).message_id) > 0
