"""Cursors and the write lock: another thread's cursor reads the last committed state, writes of
different cursors never interleave, a write never lands inside another's transaction (and is
not rolled back with it), and a transaction inside another joins it."""

from __future__ import annotations

import threading

import pytest

from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import small_profile, write_jsonl


@pytest.fixture
def two(tmp_path):
    with Store.open(tmp_path / "c.duckdb") as root:
        run = ingest_file(root, write_jsonl(tmp_path / "a.jsonl", [small_profile()]), name="a")
        yield root, root.cursor(), run.run_id


def names(store: Store) -> dict[int, str]:
    return {r.run_id: r.name for r in store.list_runs()}


def test_a_cursor_reads_only_what_another_has_committed(two):
    a, b, run = two
    with a.transaction():
        a.rename_run(run, "inside")
        assert names(a)[run] == "inside"
        assert names(b)[run] == "a"  # not committed yet
    assert names(b)[run] == "inside"


def test_a_write_waits_for_another_cursors_transaction_and_survives_its_rollback(two):
    a, b, run = two
    inside, release, renamed = threading.Event(), threading.Event(), threading.Event()

    def long_write() -> None:
        with pytest.raises(RuntimeError), a.transaction():
            a.rename_run(run, "doomed")
            inside.set()
            release.wait()
            raise RuntimeError("the import fails")

    def rename() -> None:
        b.rename_run(run, "renamed")
        renamed.set()

    t1 = threading.Thread(target=long_write)
    t1.start()
    inside.wait()
    t2 = threading.Thread(target=rename)
    t2.start()
    t2.join(0.5)
    assert not renamed.is_set()  # it waits for the lock, outside the other's transaction
    release.set()
    t1.join()
    t2.join()
    assert names(a)[run] == "renamed" and names(b)[run] == "renamed"


def test_a_transaction_inside_another_joins_it(two):
    a, _, run = two
    with pytest.raises(KeyError), a.transaction():
        a.rename_run(run, "first")  # rename_run opens its own transaction: it joins
        with a.transaction():
            a.rename_run(run, "second")
        raise KeyError("outer fails")
    assert names(a)[run] == "a"  # everything rolled back together
