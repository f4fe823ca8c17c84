"""The warm start: the default database's cubes are built as the server starts and handed to the
first page that asks, once, exactly as the page would have built them."""

import logging

import numpy as np

from cimem.analysis.cube import cube_from_store
from cimem.ingest import ingest_file
from cimem.store import Store
from webapp import connection
from webapp.startup import warm

from fixtures import small_profile, write_jsonl


def test_warm_cubes_are_the_pages_cubes_handed_over_once(tmp_path):
    db = tmp_path / "w.duckdb"
    with Store.open(db) as store:
        for name in ("a", "b"):
            ingest_file(store, write_jsonl(tmp_path / f"{name}.jsonl", [small_profile(name)]))
    path = str(db)
    thread = warm.start(path)
    assert thread is not None and warm.start(path) is None  # once per database
    thread.join(timeout=60)
    version = connection.file_version(path)
    for run in (1, 2):
        assert warm.take_cube(path, version, run, judge_id=1) is None  # a chosen judge: built
        got = warm.take_cube(path, version, run, None)
        with connection.shared(path).reading() as store:
            want = cube_from_store(store, run, None)
        assert got is not None and got.run == want.run and got.judge == want.judge
        assert np.array_equal(got.pair_mask, want.pair_mask)
        assert np.array_equal(got.ctx_valid, want.ctx_valid)
        assert warm.take_cube(path, version, run, None) is None  # handed over once
    assert warm.take_cube(path, version + 1, 1, None) is None
    assert connection.shared(path) is connection.shared(path)  # one share per database


def test_a_missing_or_broken_database_warms_nothing_and_says_so(tmp_path, caplog):
    assert warm.start(str(tmp_path / "absent.duckdb")) is None
    broken = tmp_path / "broken.duckdb"
    broken.write_text("not a database")
    with caplog.at_level(logging.WARNING, logger="webapp.startup.warm"):
        thread = warm.start(str(broken))
        assert thread is not None
        thread.join(timeout=60)
    assert "pages build their cubes on first use" in caplog.text
    assert warm.take_cube(str(broken), connection.file_version(str(broken)), 1, None) is None


def test_cubes_of_a_file_that_changed_since_are_forgotten(tmp_path):
    db = tmp_path / "changed.duckdb"
    with Store.open(db) as store:
        ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile("a")]))
    path = str(db)
    thread = warm.start(path)
    assert thread is not None
    thread.join(timeout=60)
    later = connection.file_version(path) + 1  # as if a write came after the warm start
    assert warm.take_cube(path, later, 1, None) is None
    assert not [k for k in warm._cubes if k[0] == path]
