"""The call cache: a journal line per completed call, merged into the database in batches and on
the next open (a process killed before merging loses nothing)."""

import subprocess
import sys
import warnings

import orjson
import pytest

from cimem.store import CachedCompletion, Store
from cimem.store.call_cache import CallCache, JournalWarning, check_line, journal_path

from fixtures import small_profile, write_jsonl


def test_put_get_flush_in_batches(tmp_path):
    with Store.open(tmp_path / "c.duckdb") as store:
        cache = CallCache(store, batch=3)
        cache.put("k1", "m", "judge", "{}", None, 10, 5)
        cache.put("k2", "m", "judge", '{"a": "x"}', "thought", 11, 6, "length")
        assert store.cache_get(["k1", "k2"]) == {}  # not merged yet ...
        assert cache.get(["k1", "k2", "k3"]) == {
            "k1": ("{}", None, 10, 5, None),
            "k2": ('{"a": "x"}', "thought", 11, 6, "length"),
        }
        assert len(journal_path(store).read_bytes().splitlines()) == 2  # ... but on disk
        cache.put("k3", "m", "judge", "[]", None, 1, 1)  # the batch is full: merged
        assert set(store.cache_get(["k1", "k2", "k3"])) == {"k1", "k2", "k3"}
        assert store.cache_get(["k2"])["k2"].finish_reason == "length"  # kept in the table
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


def _line(key="a" * 64, at="2026-01-01T00:00:00", pt=3, ct=4):
    return orjson.dumps([key, "m", "generate", f"reply {key[:4]}", None, pt, ct, at])


def test_damaged_journal_lines_are_set_aside_and_the_database_opens(tmp_path):
    db = tmp_path / "j.duckdb"
    Store.open(db).close()
    good = [_line("a" * 64), _line("b" * 64)]
    bad = [
        _line("c" * 64, at="not-a-time"),
        b'"abcdefgh"',  # an 8-character string unpacks into 8 fields
        _line("d" * 64, pt=1.5),
        _line("e" * 64, ct=-1),
        b'{"a": 1}',
        b"\xff\xfe not json",
    ]
    journal = tmp_path / "j.duckdb.calls"
    lines = [good[0], *bad[:3], good[1], *bad[3:], good[1][:25]]  # ... and a torn last line
    journal.write_bytes(b"\n".join(lines))
    with pytest.warns(JournalWarning, match=r"7 lines of the call journal could not be read"):
        store = Store.open(db)
    with store:
        assert set(store.cache_get(["a" * 64, "b" * 64, "c" * 64])) == {"a" * 64, "b" * 64}
    assert not journal.exists()
    rejected = [
        orjson.loads(x) for x in (tmp_path / "j.duckdb.calls.rejected").read_bytes().splitlines()
    ]
    assert [r["line"] for r in rejected] == [2, 3, 4, 6, 7, 8, 9]
    assert "created_at" in rejected[0]["problem"] and "JSON list" in rejected[1]["problem"]
    assert "prompt_tokens" in rejected[2]["problem"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reported once: the next open is silent
        Store.open(db).close()


def test_check_line_accepts_what_the_cache_writes(tmp_path):
    with Store.open(tmp_path / "w.duckdb") as store:
        cache = CallCache(store, batch=100)
        cache.put("f" * 64, "m", "judge", "{}", "why", 10, 5, "stop")
        row = check_line(journal_path(store).read_bytes().splitlines()[0])
        assert row[:7] == ("f" * 64, "m", "judge", "{}", "why", 10, 5)
        assert row.finish_reason == "stop"
        cache.close()


def test_a_journal_line_of_an_older_cimem_has_no_finish_reason_and_is_merged(tmp_path):
    row = check_line(_line())  # eight fields: written before the finish reason was kept
    assert row.finish_reason is None and row.prompt_tokens == 3
    with pytest.raises(ValueError, match="expected a string or null"):
        check_line(orjson.dumps([*orjson.loads(_line()), 7]))


def test_cli_reports_rejected_journal_lines_once(tmp_path):
    db = tmp_path / "c.duckdb"
    Store.open(db).close()
    (tmp_path / "c.duckdb.calls").write_bytes(_line("g" * 64, at="nope") + b"\n")
    source = write_jsonl(tmp_path / "p.jsonl", [small_profile()])
    # a command that writes merges the journal (one that only reads leaves it)
    cmd = [sys.executable, "-m", "cimem", "ingest", str(source), "--db", str(db)]
    first = subprocess.run(cmd, capture_output=True, text=True)
    assert first.returncode == 0
    assert first.stderr.count("\n") == 1
    assert first.stderr.startswith(f"warning: {db}.calls: 1 line of the call journal")
    assert "Traceback" not in first.stderr
    again = subprocess.run(cmd, capture_output=True, text=True)
    assert again.returncode == 0 and again.stderr == ""
