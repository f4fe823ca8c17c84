"""The store: schema, transactions, run lookup and deletion."""

import inspect

import pyarrow as pa
import pytest

import cimem.store
from cimem.ingest import ingest_file
from cimem.store import rows
from cimem.store.database import SCHEMA_VERSION, DatabaseBusy, Store

from fixtures import hold_database, small_profile, write_jsonl


def test_the_package_exports_every_row_type_of_rows():
    defined = {
        n
        for n, obj in vars(rows).items()
        if inspect.isclass(obj) and obj.__module__ == rows.__name__
    }
    assert sorted(rows.__all__) == sorted(defined)
    assert all(
        n in cimem.store.__all__ and getattr(cimem.store, n) is getattr(rows, n) for n in defined
    )


def test_new_database_has_schema_and_no_runs(store: Store):
    assert store.schema_version() == SCHEMA_VERSION
    assert store.list_runs() == []
    assert set(store.table_counts().values()) == {0}


def test_transaction_rolls_back_everything(store: Store):
    with pytest.raises(RuntimeError):
        with store.transaction():
            store.create_run(
                name="x", kind="results", source_format="official", source=None, content_hash=None
            )
            raise RuntimeError("boom")
    assert store.table_counts()["runs"] == 0


def test_bulk_append_rejects_unknown_tables(store: Store):
    with pytest.raises(ValueError):
        store.append("runs; DROP TABLE runs", pa.table({"a": [1]}))


def _threads(store: Store) -> int:
    return store.con.execute("SELECT current_setting('threads')").fetchall()[0][0]


def test_an_appender_limits_duckdbs_threads_only_while_it_appends(store: Store):
    store.con.execute("SET threads = 3")
    with store.transaction(), store.bulk_appender(threads=1):
        assert _threads(store) == 1
    assert _threads(store) == 3
    with pytest.raises(ValueError), store.transaction(), store.bulk_appender(threads=1) as app:
        app.put([("runs; DROP TABLE runs", pa.table({"a": [1]}))])
        app.close()
    assert _threads(store) == 3


def test_an_append_moves_the_id_columns_it_is_told_to(store: Store):
    row = {"judge_id": [1], "message_id": [5], "attr_id": [2], "revealed": [True]}
    data = pa.table(row | {"evidence": pa.array([None], pa.string())})
    store.append("verdicts", data, shift={"message_id": 10, "attr_id": 100, "profile_id": 7})
    got = store.con.execute("SELECT judge_id, message_id, attr_id FROM verdicts").fetchall()
    assert got == [(1, 15, 102)]


def test_resolve_run_by_id_and_name_and_delete(store: Store, tmp_path):
    a = ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile("A")]), name="first")
    b = ingest_file(store, write_jsonl(tmp_path / "b.jsonl", [small_profile("B")]), name="second")
    assert store.resolve_run(str(a.run_id)) == a.run_id
    assert store.resolve_run("second") == b.run_id
    with pytest.raises(LookupError, match="no run 'third'.*first"):
        store.resolve_run("third")
    before = store.table_counts()
    store.delete_run(a.run_id)
    after = store.table_counts()
    assert [r.name for r in store.list_runs()] == ["second"]
    assert after["verdicts"] == before["verdicts"] // 2
    assert after["messages"] == before["messages"] // 2


def test_reopen_keeps_data(tmp_path):
    path = tmp_path / "db.duckdb"
    with Store.open(path) as s:
        ingest_file(s, write_jsonl(tmp_path / "a.jsonl", [small_profile()]))
    with Store.open(path, read_only=True) as s:
        assert len(s.list_runs()) == 1


def test_a_database_held_elsewhere_gives_a_clear_error(tmp_path):
    db = tmp_path / "held.duckdb"
    proc = hold_database(db)
    try:
        with pytest.raises(DatabaseBusy, match=r"open in another process \(PID \d+\)"):
            Store.open(db)
    finally:
        proc.stdin.close()
        proc.wait()
    Store.open(db).close()  # free again once the other process is gone
