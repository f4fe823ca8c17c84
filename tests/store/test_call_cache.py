"""The call cache: a journal line per completed call, merged into the database in batches and on
the next open (a process killed before merging loses nothing)."""

import orjson

from cimem.store import CachedCompletion, Store
from cimem.store.call_cache import CallCache, journal_path


def test_put_get_flush_in_batches(tmp_path):
    with Store.open(tmp_path / "c.duckdb") as store:
        cache = CallCache(store, batch=3)
        cache.put("k1", "m", "judge", "{}", None, 10, 5)
        cache.put("k2", "m", "judge", '{"a": "x"}', "thought", 11, 6)
        assert store.cache_get(["k1", "k2"]) == {}  # not merged yet ...
        assert cache.get(["k1", "k2", "k3"]) == {
            "k1": ("{}", None, 10, 5),
            "k2": ('{"a": "x"}', "thought", 11, 6),
        }
        assert len(journal_path(store).read_bytes().splitlines()) == 2  # ... but on disk
        cache.put("k3", "m", "judge", "[]", None, 1, 1)  # the batch is full: merged
        assert set(store.cache_get(["k1", "k2", "k3"])) == {"k1", "k2", "k3"}
        assert journal_path(store).read_bytes() == b""
        cache.put("k4", "m", "generate", "hello", None, 1, 1)
        cache.close()
        assert store.cache_get(["k4"])["k4"].response == "hello"
        assert not journal_path(store).exists()


def test_open_merges_a_journal_left_by_a_killed_process(tmp_path):
    db = tmp_path / "k.duckdb"
    Store.open(db).close()
    line = orjson.dumps(["kx", "m", "generate", "paid for", None, 3, 4, "2026-01-01T00:00:00"])
    (tmp_path / "k.duckdb.calls").write_bytes(line + b"\n" + line[:20])  # a torn last line
    with Store.open(db) as store:
        assert store.cache_get(["kx"]) == {"kx": CachedCompletion("paid for", None, 3, 4)}
        assert not journal_path(store).exists()
    with Store.open(db, read_only=True) as store:
        assert store.table_counts()["llm_cache"] == 1
