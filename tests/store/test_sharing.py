"""Sharing one database file between processes: a process waits while another holds it (then
names the holder), lets it go during long model calls (:meth:`Store.released`), and a
:class:`SharedDatabase` holds it only while a thread reads or writes, its reads side by side and
its writes alone."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from cimem.errors import CimemError
from cimem.ingest import ingest_file
from cimem.store import DatabaseBusy, DatabaseReleased, Store
from cimem.store.sharing import SharedDatabase

from fixtures import small_profile, write_jsonl

HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], read_only=sys.argv[2] == "ro")
print("held", flush=True)
time.sleep(float(sys.argv[3]))
con.close()
"""


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "s.duckdb"
    with Store.open(path) as store:
        ingest_file(store, write_jsonl(tmp_path / "a.jsonl", [small_profile()]), name="a")
    return path


def hold(path: Path, seconds: float, mode: str = "rw") -> subprocess.Popen:
    """Another process holding the file (read-write or read-only) for ``seconds``."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path), mode, str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def can_write_elsewhere(path: Path) -> bool:
    """Whether another process can open the file for writing now."""
    code = f"import duckdb; duckdb.connect({str(path)!r}).close()"
    return subprocess.run([sys.executable, "-c", code], capture_output=True).returncode == 0


def test_opening_waits_for_another_process_then_names_it(db):
    told: list[str] = []
    proc = hold(db, 1.0)
    start = time.monotonic()
    with Store.open(db, wait=30, on_wait=told.append) as store:
        waited = time.monotonic() - start
        assert store.run_ids() == [1]
    proc.wait()
    assert 0.3 < waited < 20, waited
    assert told == [f"open in another process (PID {proc.pid})"]
    proc = hold(db, 30)
    try:
        with pytest.raises(DatabaseBusy, match=rf"PID {proc.pid}\) for longer than the 0.3 s"):
            Store.open(db, wait=0.3)
    finally:
        proc.kill()
        proc.wait()


def test_readers_of_two_processes_read_side_by_side(db):
    proc = hold(db, 30, mode="ro")
    try:
        start = time.monotonic()
        with Store.open(db, read_only=True, wait=0) as store:
            assert store.run_ids() == [1]
        assert time.monotonic() - start < 5
    finally:
        proc.kill()
        proc.wait()


def test_released_lets_another_process_write_and_takes_the_file_back(db):
    with Store.open(db) as store:
        assert not can_write_elsewhere(db)
        with store.released():
            assert store.is_released
            assert can_write_elsewhere(db)
            with pytest.raises(DatabaseReleased, match="used while this process had let it go"):
                store.run_ids()
        assert not store.is_released and store.run_ids() == [1]
        assert not can_write_elsewhere(db)
        with store.transaction(), store.released():  # inside a transaction: kept
            assert not store.is_released and store.run_ids() == [1]


def test_a_shared_database_is_let_go_between_uses(db):
    shared = SharedDatabase(str(db), linger=0, wait=5)
    with shared.reading() as store:
        assert store.run_ids() == [1]
        assert not can_write_elsewhere(db)
    assert not shared.is_open and can_write_elsewhere(db)
    with shared.writing() as store:
        store.rename_run(1, "renamed")
    assert not shared.is_open
    with Store.open(db, read_only=True) as other:
        assert other.list_runs()[0].name == "renamed"


def test_a_read_lingers_then_lets_go(db):
    shared = SharedDatabase(str(db), linger=0.3, wait=5)
    with shared.reading():
        pass
    assert shared.is_open  # a read following closely shares the opening
    deadline = time.monotonic() + 10
    while shared.is_open and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not shared.is_open


def test_reads_of_threads_go_side_by_side_and_a_write_waits_for_them(db):
    shared = SharedDatabase(str(db), linger=0, wait=10)
    inside, release = threading.Barrier(3), threading.Event()
    events: list[str] = []

    def read(name: str) -> None:
        with shared.reading() as store:
            store.run_ids()
            inside.wait()  # both readers are in at once
            release.wait()
            events.append(f"{name} done")

    def write() -> None:
        with shared.writing() as store:
            events.append("write")
            store.rename_run(1, "w")

    readers = [threading.Thread(target=read, args=(n,)) for n in ("r1", "r2")]
    for t in readers:
        t.start()
    inside.wait()
    writer = threading.Thread(target=write)
    writer.start()
    time.sleep(0.3)
    assert events == []  # the write waits for the reads
    release.set()
    for t in [*readers, writer]:
        t.join(10)
    assert events[-1] == "write" and sorted(events[:2]) == ["r1 done", "r2 done"]


def test_a_waiting_write_goes_before_new_reads(db):
    shared = SharedDatabase(str(db), linger=0, wait=10)
    first_in, release = threading.Event(), threading.Event()
    order: list[str] = []

    def long_read() -> None:
        with shared.reading():
            first_in.set()
            release.wait()

    def write() -> None:
        with shared.writing():
            order.append("write")

    def late_read() -> None:
        with shared.reading():
            order.append("read")

    threads = [threading.Thread(target=long_read)]
    threads[0].start()
    first_in.wait()
    threads.append(threading.Thread(target=write))
    threads[1].start()
    time.sleep(0.2)  # the write is waiting
    threads.append(threading.Thread(target=late_read))
    threads[2].start()
    time.sleep(0.2)
    release.set()
    for t in threads:
        t.join(10)
    assert order == ["write", "read"]


def test_a_write_inside_the_same_threads_read_is_refused_and_a_read_inside_a_write_goes(db):
    shared = SharedDatabase(str(db), linger=0, wait=1)
    with shared.reading(), pytest.raises(RuntimeError, match="a write inside this thread's read"):
        with shared.writing():
            pass
    with shared.writing() as w:
        w.rename_run(1, "inside")
        with shared.reading() as r:
            assert r.list_runs()[0].name == "inside"
    assert not shared.is_open


def test_reads_go_on_beside_a_long_write_and_see_only_what_it_committed(db):
    shared = SharedDatabase(str(db), linger=0, wait=10)
    inside, release = threading.Event(), threading.Event()

    def long_import() -> None:
        with shared.writing() as store, store.transaction():
            store.rename_run(1, "half done")
            inside.set()
            release.wait()

    writer = threading.Thread(target=long_import)
    writer.start()
    inside.wait()
    start = time.monotonic()
    with shared.reading() as store:  # another visitor browses meanwhile
        assert store.list_runs()[0].name == "a"  # the last committed state
    assert time.monotonic() - start < 5
    assert not can_write_elsewhere(db)  # no other process while the write lasts
    release.set()
    writer.join(10)
    with shared.reading() as store:
        assert store.list_runs()[0].name == "half done"


def test_a_shared_database_waits_for_another_process(db):
    proc = hold(db, 1.0)
    shared = SharedDatabase(str(db), linger=0, wait=30)
    with shared.reading() as store:
        assert store.run_ids() == [1]
    proc.wait()
    proc = hold(db, 30)
    try:
        quick = SharedDatabase(str(db), linger=0, wait=0.2)
        with pytest.raises(CimemError, match=f"PID {proc.pid}"), quick.reading():
            pass
    finally:
        proc.kill()
        proc.wait()


WRITE = """
import sys, time
from cimem.store import Store
t = time.monotonic()
with Store.open(sys.argv[1], wait=60) as store:
    print(f"{time.monotonic() - t:.3f}", flush=True)
    store.rename_run(1, "written")
"""


def test_a_stream_of_reads_does_not_keep_another_process_from_writing(db):
    shared = SharedDatabase(str(db), linger=0.5, wait=30)
    stop = threading.Event()

    def visitor() -> None:  # a read at least every 0.1 s: the linger alone would never end
        while not stop.is_set():
            with shared.reading() as store:
                store.list_runs()
                time.sleep(0.05)
            time.sleep(0.01)

    visitors = [threading.Thread(target=visitor) for _ in range(3)]
    for t in visitors:
        t.start()
    try:
        time.sleep(0.3)
        out = subprocess.run(
            [sys.executable, "-c", WRITE, str(db)], capture_output=True, text=True, timeout=120
        )
    finally:
        stop.set()
        for t in visitors:
            t.join(30)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 10, out.stdout  # it got its turn (it may wait 60 s)
    assert not list(db.parent.glob("*.wants-write.*"))  # its flag went with it
    with shared.reading() as store:
        assert store.list_runs()[0].name == "written"


def test_a_sandbox_read_waits_for_a_write_and_holds_the_next_one_back(db):
    """reading_file keeps the file open read-only: a sandbox (another DuckDB instance) attaches
    it beside; a write of this process in progress is waited for, and a new one waits for it."""
    from cimem.store.explore import Sandbox

    shared = SharedDatabase(str(db), linger=0, wait=10)
    inside, release, order = threading.Event(), threading.Event(), []

    def write(name: str) -> None:
        with shared.writing() as store, store.transaction():
            store.rename_run(1, name)
            inside.set()
            release.wait(10)
        order.append(f"wrote {name}")

    first = threading.Thread(target=write, args=("first",))
    first.start()
    inside.wait()
    threading.Timer(0.3, release.set).start()
    with shared.reading_file(), Sandbox(str(db)) as box:  # after the write: it sees it
        order.append("sandbox")
        assert box.query("SELECT name FROM runs").frame["name"][0] == "first"
        second = threading.Thread(target=write, args=("second",))
        second.start()
        time.sleep(0.3)  # the second write waits for the sandbox
        assert order == ["wrote first", "sandbox"]
    second.join(10)
    assert order == ["wrote first", "sandbox", "wrote second"]
