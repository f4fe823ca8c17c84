"""The app and the command line on one database file: what holding the file only briefly costs,
and how long each side waits for the other.

DuckDB lets one process write a file or several read it. cimem's processes hold the file only
while they read or write (cimem.store.sharing, Store.released), so this prints:

(1) opening the lab's database: read-only, for writing, and closing after a small write (its
    checkpoint), against a query on a connection already open;
(2) a page's cache miss (a run's cube read) on a fresh opening, against the same read on a
    connection kept open (what a server holding the file all day would pay);
(3) a command's wait to write while an app process serves visitors (threads reading cubes through
    its share, as cache misses do, with short pauses between): each write timed from asking for
    the file until it has it, against the same write with no app;
(4) an app read's wait while a command writes: a read asked for while `cimem ingest` of a
    60-profile run holds the file.

    python bench/sharing.py                      # the 20 x 60-profile lab database
    python bench/sharing.py --runs 40 --profiles 10 --visitors 4
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, fabricated, lab_database

sys.path.insert(0, str(REPO))

APP = """
import random, sys, threading, time
from cimem.analysis.cube import cube_from_store
from cimem.store.sharing import SharedDatabase
path, visitors = sys.argv[1], int(sys.argv[2])
share = SharedDatabase(path, wait=120)
with share.reading() as store:
    runs = store.run_ids()
done = [0]
def visit(seed):
    rng = random.Random(seed)
    while True:
        with share.reading() as store:
            cube_from_store(store, rng.choice(runs), None)
        done[0] += 1
        time.sleep(rng.uniform(0.05, 0.3))  # a person between clicks is slower still
for i in range(visitors):
    threading.Thread(target=visit, args=(i,), daemon=True).start()
print("serving", flush=True)
time.sleep(3600)
"""


def median_ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.0f} ms"


def spread(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"median {median_ms(values)}, 95th {1000 * p95:.0f} ms, max {1000 * ordered[-1]:.0f} ms"


def opening(path: Path, reps: int) -> None:
    from cimem.store import Store

    ro, rw, close_after_write, query = [], [], [], []
    for _ in range(reps):
        t = time.perf_counter()
        s = Store.open(path, read_only=True, check=False)
        ro.append(time.perf_counter() - t)
        t = time.perf_counter()
        s.run_ids()
        query.append(time.perf_counter() - t)
        s.close()
        t = time.perf_counter()
        s = Store.open(path, check=False)
        rw.append(time.perf_counter() - t)
        name = s.list_runs()[0].name
        s.rename_run(1, name)
        t = time.perf_counter()
        s.close()
        close_after_write.append(time.perf_counter() - t)
    print(
        f"(1) opening, median of {reps}: read-only {median_ms(ro)}, for writing {median_ms(rw)},"
        f" closing after a small write {median_ms(close_after_write)}; a query on the open"
        f" connection {median_ms(query)}"
    )


def cache_miss(path: Path, reps: int) -> None:
    from cimem.analysis.cube import cube_from_store
    from cimem.store import Store

    fresh, kept = [], []
    for _ in range(reps):
        t = time.perf_counter()
        with Store.open(path, read_only=True, check=False) as s:
            cube_from_store(s, 1, None)
        fresh.append(time.perf_counter() - t)
    with Store.open(path, read_only=True, check=False) as s:
        cube_from_store(s, 1, None)
        for _ in range(reps):
            t = time.perf_counter()
            cube_from_store(s, 1, None)
            kept.append(time.perf_counter() - t)
    extra = statistics.median(fresh) - statistics.median(kept)
    print(
        f"(2) a cache miss (run 1's cube), median of {reps}: on a fresh opening"
        f" {median_ms(fresh)}, on a connection kept open {median_ms(kept)}: the brief hold adds"
        f" {1000 * extra:.0f} ms"
    )


def timed_writes(path: Path, reps: int) -> list[float]:
    """Seconds from asking for the file to having it, for ``reps`` small writes."""
    from cimem.store import Store

    waits = []
    for _ in range(reps):
        t = time.perf_counter()
        with Store.open(path, wait=120, check=False) as s:
            waits.append(time.perf_counter() - t)
            s.rename_run(1, s.list_runs()[0].name)
        time.sleep(0.1)
    return waits


def writes_beside_the_app(path: Path, visitors: int, reps: int) -> None:
    alone = timed_writes(path, reps)
    app = subprocess.Popen(
        [sys.executable, "-c", APP, str(path), str(visitors)],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert app.stdout is not None and app.stdout.readline().strip() == "serving"
        time.sleep(2)
        beside = timed_writes(path, reps)
    finally:
        app.kill()
        app.wait()
    print(
        f"(3) a command's write, {reps} times: alone {spread(alone)}; beside an app with"
        f" {visitors} visitors reading cubes {spread(beside)}"
    )


def read_during_ingest(path: Path) -> None:
    from cimem.store.sharing import SharedDatabase

    source = fabricated(60, seed=2)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "copy.duckdb"
        db.write_bytes(path.read_bytes())
        ingest = subprocess.Popen(
            [sys.executable, "-m", "cimem", "ingest", str(source), "--db", str(db)],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1.0)  # it holds the file now
        t = time.perf_counter()
        with SharedDatabase(str(db), wait=300).reading() as store:
            waited = time.perf_counter() - t
            store.run_ids()
        ingest.wait()
    print(
        f"(4) an app read asked for 1 s into `cimem ingest` of a 60-profile run waited"
        f" {waited:.1f} s (until the import was committed)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--profiles", type=int, default=60)
    ap.add_argument("--visitors", type=int, default=4)
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    path = lab_database(args.runs, args.profiles)
    size = path.stat().st_size / 1e6
    print(f"database {path} ({size:.0f} MB)\n")
    opening(path, args.reps)
    cache_miss(path, max(5, args.reps // 2))
    writes_beside_the_app(path, args.visitors, args.reps)
    read_during_ingest(path)


if __name__ == "__main__":
    main()
