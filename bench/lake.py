"""A lake over PostgreSQL against a file, on this machine: PostgreSQL on loopback started by
`bash scripts/lake start`, the lake's data folder on the local disk.

(1) Writers at once: N processes (standing for N machines), each importing its own copy of the
fabricated run (``--profiles`` profiles x 5 trials) into one lake; rows/s of each (messages and
verdicts stored per second of its import), writes run again after a conflict, rows lost (what the
imports said they stored minus what the lake holds) and message ids given twice. The baseline:
one import into a file (a second writer of a file waits for the first: DuckDB's file lock).
(2) Cold metrics: `python -m cimem metrics --run 1 --json` in a fresh process, on the lake and on
a file holding the same run, median of ``--reps``, and the ratio (goal: the lake within 1.5x).

    python bench/lake.py [--writers 3] [--profiles 10] [--reps 3]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import queue
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, fabricated

sys.path.insert(0, str(REPO))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_postgres(folder: Path, port: int) -> None:
    done = subprocess.run(
        ["bash", "scripts/lake", "start", str(folder), str(port)],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        sys.exit(done.stderr)


def new_lake(folder: Path, port: int, name: str) -> str:
    subprocess.run(
        ["psql", "-h", "127.0.0.1", "-p", str(port), "-U", "cimem", "-d", "postgres", "-qc"]
        + [f"CREATE DATABASE {name}"],
        check=True,
    )
    files = folder / "files" / name
    files.mkdir(parents=True)
    return (
        f"ducklake:postgres:dbname={name} host=127.0.0.1 port={port} user=cimem data_path={files}"
    )


def copies(source: Path, n: int, folder: Path) -> list[Path]:
    """``n`` copies of the run, each with other bytes (an import refuses a file seen before)."""
    out = []
    for i in range(n):
        path = folder / f"copy{i}.jsonl"
        shutil.copy(source, path)
        with path.open("a") as f:
            f.write("\n" * (i + 1))
        out.append(path)
    return out


def import_one(db: str, path: str, start: float, out: multiprocessing.Queue) -> None:
    """One writer: wait for the common start, import, report rows, seconds and retries."""
    from cimem.ingest.importer import ingest_file
    from cimem.store import Store
    from cimem.store.lake import RETRIED

    with Store.open(db) as store:
        time.sleep(max(0.0, start - time.time()))
        t = time.perf_counter()
        done = ingest_file(store, path)
        seconds = time.perf_counter() - t
    out.put((done.messages + done.verdicts, seconds, RETRIED[0]))


def writers(db: str, files: list[Path]) -> list[tuple[int, float, int]]:
    ctx = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue = ctx.Queue()
    start = time.time() + 3.0  # every process opened the lake before any writes
    procs = [ctx.Process(target=import_one, args=(db, str(f), start, out)) for f in files]
    for p in procs:
        p.start()
    found: list[tuple[int, float, int]] = []
    while len(found) < len(procs):
        try:
            found.append(out.get(timeout=5))
        except queue.Empty:
            if any(p.exitcode not in (None, 0) for p in procs):
                sys.exit("a writer failed (its error is above)")
    for p in procs:
        p.join()
    return found


def stored(db: str) -> tuple[int, int]:
    """Messages and verdicts the database holds, and message ids given twice."""
    from cimem.store import Store

    with Store.open(db, read_only=True) as store:
        counts = store.table_counts()
        ids = store.con.execute("SELECT count(*) - count(DISTINCT message_id) FROM messages")
        twice = int(ids.fetchall()[0][0])
    return counts["messages"] + counts["verdicts"], twice


def cold_metrics(db: str, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "cimem", "metrics", "--run", "1", "--json", "--db", db],
            cwd=REPO,
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--writers", type=int, default=3)
    ap.add_argument("--profiles", type=int, default=10)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    source = fabricated(args.profiles)
    folder = Path(tempfile.mkdtemp(prefix="cimem-bench-lake-"))
    os.chmod(folder, 0o755)
    port = free_port()
    start_postgres(folder, port)
    try:
        report(args, source, folder, port)
    finally:
        subprocess.run(["bash", "scripts/lake", "stop", str(folder)], cwd=REPO)
        shutil.rmtree(folder, ignore_errors=True)


def report(args: argparse.Namespace, source: Path, folder: Path, port: int) -> None:
    files = copies(source, args.writers, folder)
    file_db = str(folder / "one.duckdb")
    ((rows, seconds, _),) = writers(file_db, files[:1])
    print(f"{source.name}: {rows:,} rows (messages and verdicts) per import; {os.cpu_count()} CPUs")
    print(f"file, 1 writer: {rows / seconds:,.0f} rows/s ({seconds:.1f} s)")
    for n in range(1, args.writers + 1):
        lake = new_lake(folder, port, f"bench_{n}")
        found = writers(lake, files[:n])
        wall = max(s for _, s, _ in found)  # they started at one moment
        held, twice = stored(lake)
        each = ", ".join(f"{r / s:,.0f}" for r, s, _ in found)
        print(
            f"lake, {n} writer(s) at once: rows/s each {each}; together {sum(r for r, _, _ in found) / wall:,.0f}"
            f" rows/s ({wall:.1f} s); writes retried {sum(x for _, _, x in found)};"
            f" rows lost {sum(r for r, _, _ in found) - held}; message ids given twice {twice}"
        )
    lake = new_lake(folder, port, "bench_metrics")
    writers(lake, files[:1])
    on_file, on_lake = cold_metrics(file_db, args.reps), cold_metrics(lake, args.reps)
    print(
        f"cold metrics --run 1 (median of {args.reps}): file {on_file:.2f} s, lake {on_lake:.2f} s"
        f" ({on_lake / on_file:.2f}x the file)"
    )


if __name__ == "__main__":
    main()
