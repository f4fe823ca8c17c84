"""`release_cache` gives back the blocks DuckDB cached of what a command read (a command over
every run of a lab's database would otherwise grow by each run's blocks) and leaves the memory
limit as it was."""

from __future__ import annotations

from cimem.analysis.cube import cube_from_store
from cimem.store import Store


def cached_bytes(store: Store) -> int:
    return int(
        store.con.execute("SELECT sum(memory_usage_bytes) FROM duckdb_memory()").fetchone()[0]
    )


def limit(store: Store) -> str:
    return str(store.con.execute("SELECT current_setting('memory_limit')").fetchone()[0])


def test_release_gives_back_what_reading_a_run_cached(full_run):
    with Store.open(full_run.db, read_only=True) as store:
        before = limit(store)
        cube_from_store(store, 1)
        held = cached_bytes(store)
        store.release_cache()
        assert held > 4 * 2**20 and cached_bytes(store) < held / 4
        after = limit(store)
        assert after.split()[1] == before.split()[1]  # the unit, then the number within rounding
        assert abs(float(after.split()[0]) - float(before.split()[0])) < 0.11
        store.release_cache()
        store.release_cache()
        assert limit(store) == after  # no drift however many runs are read
        assert cube_from_store(store, 1).n_trials == 5  # read again from the file
