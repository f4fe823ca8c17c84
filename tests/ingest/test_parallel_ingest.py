"""An official file imported by several processes writes exactly what one process writes: every
table, row for row, ids and all; an error in a later span names the file's line and writes
nothing."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cimem.errors import InputError
from cimem.ingest import ingest_file
from cimem.store import Store

from conftest import shared_file
from fixtures import small_profile, write_jsonl

TABLES = {
    "profiles": "run_id, profile_id, name, bio_json",
    "attributes": "run_id, profile_id, attr_id, key, value_json, domain",
    "contexts": "run_id, profile_id, ctx_idx, recipient, task",
    "persona_labels": "run_id, profile_id, ctx_idx, attr_id, persona, necessary, private",
    "messages": "message_id, run_id, profile_id, ctx_idx, trial, text, status",
    "judgments": "judge_id, message_id, status, raw",
    "verdicts": "judge_id, message_id, attr_id, revealed, evidence",
}


def contents(db) -> dict[str, list[tuple]]:
    with Store.open(db, read_only=True) as store:
        return {
            t: store.con.execute(f"SELECT {cols} FROM {t} ORDER BY ALL").fetchall()
            for t, cols in TABLES.items()
        } | {"runs": store.con.execute("SELECT kind, n_trials FROM runs").fetchall()}


@pytest.fixture
def nine(tmp_path):
    return write_jsonl(tmp_path / "nine.jsonl", [small_profile(f"P{i}") for i in range(9)])


@pytest.mark.parametrize("readers", [2, 3])
def test_several_readers_write_what_one_writes(nine, tmp_path, readers):
    one, many = tmp_path / "one.duckdb", tmp_path / "many.duckdb"
    with Store.open(one) as store:
        first = ingest_file(store, nine, readers=1)
    with Store.open(many) as store:
        # an earlier run first: the new run's ids start past it, as they would alone
        ingest_file(store, write_jsonl(tmp_path / "before.jsonl", [small_profile("Z")]))
        store.delete_run(1)
        second = ingest_file(store, nine, readers=readers)
    assert (second.profiles, second.messages, second.verdicts) == (
        first.profiles,
        first.messages,
        first.verdicts,
    )
    a, b = contents(one), contents(many)
    assert a["runs"] == b["runs"]
    for table in TABLES:
        shift = {"message_id", "run_id", "judge_id"}  # the second database used some already
        names = TABLES[table].split(", ")
        keep = [i for i, n in enumerate(names) if n not in shift]
        assert [tuple(r[i] for i in keep) for r in a[table]] == [
            tuple(r[i] for i in keep) for r in b[table]
        ], table
    assert len(b["messages"]) == len({r[0] for r in b["messages"]})  # ids stay unique


def _personas_vary(profiles: list[dict]) -> list[dict]:
    """Profiles whose labellers differ: one without a persona, one with a new one first, one
    with its labels in another order (each profile's persona names differ from the others')."""
    for i, obj in enumerate(profiles):
        for ctx in obj["contexts"]:
            labels = [k for k in ctx if k.startswith("labels_")]
            if i % 3 == 0:
                del ctx[labels[0]]
            elif i % 3 == 1:
                ctx_items = list(ctx.items())
                ctx.clear()
                ctx["labels_someone_new"] = ctx_items[2][1]
                ctx.update(reversed(ctx_items))
    return profiles


def test_profiles_with_different_labellers_read_apart_write_what_one_writes(tmp_path, monkeypatch):
    monkeypatch.setattr("cimem.ingest.parallel.SPANS_PER_READER", 1)  # profiles share a span
    varied = write_jsonl(
        tmp_path / "varied.jsonl", _personas_vary([small_profile(f"P{i}") for i in range(9)])
    )
    one, many = tmp_path / "one.duckdb", tmp_path / "many.duckdb"
    for db, readers in ((one, 1), (many, 2)):
        with Store.open(db) as store:
            ingest_file(store, varied, readers=readers)
    a, b = contents(one), contents(many)
    assert a == b
    personas = {r[4] for r in a["persona_labels"]}
    assert "someone_new" in personas and len(personas) == 5


def test_the_real_run_output_read_apart_writes_what_one_process_writes(tmp_path):
    """results_sample.jsonl: two profiles with three trials, each profile's line a span."""
    sample = shared_file("results_sample.jsonl")
    one, many = tmp_path / "one.duckdb", tmp_path / "many.duckdb"
    for db, readers in ((one, 1), (many, 2)):
        with Store.open(db) as store:
            ingest_file(store, sample, readers=readers)
    a, b = contents(one), contents(many)
    assert a == b and len(a["profiles"]) == 2 and a["runs"] == [("results", 3)]


def test_an_error_in_a_later_span_names_its_line_and_writes_nothing(nine, tmp_path, monkeypatch):
    handed = tmp_path / "handed"  # where the readers leave their tables for this process
    handed.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(handed))
    lines = nine.read_bytes().splitlines(keepends=True)
    lines[7] = b'{"bio": {"name": 3}}\n'
    nine.write_bytes(b"".join(lines))
    db = tmp_path / "bad.duckdb"
    with Store.open(db) as store:
        before = store.table_counts()
        with pytest.raises(InputError, match=r"nine\.jsonl: line 8: "):
            ingest_file(store, nine, readers=3)
        assert store.table_counts() == before
    assert list(handed.iterdir()) == []
    with Store.open(tmp_path / "good.duckdb") as store:
        write_jsonl(nine, [small_profile(f"P{i}") for i in range(9)])
        assert ingest_file(store, nine, readers=3).profiles == 9
    assert list(handed.iterdir()) == []


def test_an_import_removes_the_folders_of_imports_that_were_killed(nine, tmp_path, monkeypatch):
    handed = tmp_path / "handed"
    handed.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(handed))
    ended = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        text=True,
        capture_output=True,
        check=True,
    )
    killed = handed / f"cimem-ingest-{int(ended.stdout)}-x1"  # its process is gone
    running = handed / f"cimem-ingest-{os.getpid()}-x2"  # another import of a live process
    for folder in (killed, running):
        folder.mkdir()
        (folder / "0-verdicts.arrow").write_bytes(b"left")
    with Store.open(tmp_path / "db.duckdb") as store:
        assert ingest_file(store, nine, readers=2).profiles == 9
    assert sorted(handed.iterdir()) == [running]


def test_a_reader_builds_its_tables_without_importing_pandas(tmp_path):
    """pyarrow would import pandas in each reader only to ask whether its values are pandas
    objects; the readers refuse the import and still build every table."""
    code = (
        "import sys\n"
        "from cimem.ingest.parallel import _start_reader\n"
        "from cimem.ingest.official import read_official\n"
        "from cimem.ingest.writer import RunWriter\n"
        "_start_reader()\n"
        "writer = RunWriter.detached(1, 1)\n"
        f"tables = [t for r in read_official(__import__('pathlib').Path({str(tmp_path / 'p.jsonl')!r}))"
        " for t in writer.tables(r)]\n"
        "try:\n"
        "    import pandas\n"
        "except ImportError:\n"
        "    print(len(tables), 'pandas' in sys.modules)\n"
    )
    write_jsonl(tmp_path / "p.jsonl", [small_profile("P")])
    repo = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo
    )
    assert out.stdout.split() == ["7", "False"]  # no hard labels in the official format


def test_only_a_programs_main_thread_reads_with_several_processes(tmp_path, monkeypatch):
    import threading

    import cimem.ingest.files as files

    big = write_jsonl(tmp_path / "big.jsonl", [small_profile("P")])
    monkeypatch.setattr(files, "PARALLEL_BYTES", 1)
    assert files.readers_for(big) >= 1
    seen: list[int] = []
    thread = threading.Thread(target=lambda: seen.append(files.readers_for(big)))
    thread.start()
    thread.join()
    assert seen == [1]  # a server's script thread: forking it could copy a held lock
