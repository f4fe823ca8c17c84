"""kill -9 of an import and of a re-judging in the middle of their write to a lake: the process
is killed once it has written Parquet files of its write and before it committed, so the lake
holds files no snapshot names. Nothing of the killed write is seen, the same command run again
stores it once, and the numbers equal the same work done into a file. `compact` deletes the
files the killed writes left once they are a day old."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lakes import cimem, differences, numbers
from processes import children, outlived

from cimem.store import Store
from cimem.store.location import parse_lake

from conftest import REPO

pytestmark = pytest.mark.slow

IMPORT = "ingest {file} --name judged"
JUDGE = "judge --run judged --offline --name offline"


def parquet_files(folder: Path) -> set[Path]:
    return set(folder.rglob("*.parquet"))


def referenced_files(db: str) -> int:
    """Files the lake's catalog names: data and delete files, live or kept for time travel."""
    catalog = "__ducklake_metadata_cimem_lake"
    with Store.open(db, read_only=True) as store:
        return sum(
            int(store.con.execute(f"SELECT count(*) FROM {catalog}.{table}").fetchone()[0])
            for table in ("ducklake_data_file", "ducklake_delete_file")
        )


def killed_mid_write(db: str, args: str, folder: Path) -> bool:
    """Start ``args``; kill it -9 as soon as a new Parquet file of its write appears. False
    when it finished first."""
    before = parquet_files(folder)
    proc = subprocess.Popen(
        [sys.executable, "-m", "cimem", *args.split(), "--db", db],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        if parquet_files(folder) - before:
            readers = children(proc.pid)
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            assert not outlived(readers, 10.0), f"{args}: its readers outlived it"
            return proc.returncode == -signal.SIGKILL
        time.sleep(0.002)
    proc.kill()
    return False


def runs(db: str) -> list[dict]:
    """The lake's runs (none while it has no cimem tables yet)."""
    done = subprocess.run(
        [sys.executable, "-m", "cimem", "runs", "--json", "--db", db],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    if done.returncode != 0 and "no cimem tables in this lake yet" in done.stderr:
        return []
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def kill_until_mid_write(db: str, args: str, folder: Path, tries: int = 3) -> None:
    """Kill ``args`` mid-write (a few tries: the write can finish between two looks)."""
    for _ in range(tries):
        state = runs(db)
        if killed_mid_write(db, args, folder):
            assert runs(db) == state  # nothing of the killed write is seen
            assert len(parquet_files(folder)) > referenced_files(db)  # it was writing
            return
    pytest.fail(f"{args} finished before a kill could land in its write ({tries} tries)")


def test_an_import_and_a_judge_killed_mid_write_lose_nothing_and_write_nothing_twice(
    full_run, lake, tmp_path
):
    folder = Path(parse_lake(lake).data_path or "")
    steps = [IMPORT.format(file=full_run.judged), JUDGE]
    file_db = str(tmp_path / "lab.duckdb")
    for step in steps:
        cimem(file_db, step)
    for step in steps:
        kill_until_mid_write(lake, step, folder)
        cimem(lake, step)  # run again, as a person would after the crash
    [run] = runs(lake)
    assert run["name"] == "judged" and run["judges"] == 2
    with Store.open(lake, read_only=True) as store:
        ids = store.con.execute("SELECT count(*), count(DISTINCT message_id) FROM messages")
        total, distinct = ids.fetchone()
    assert total == distinct == run["messages"]
    on_lake, on_file = numbers(lake), numbers(file_db)
    assert on_lake == on_file, list(differences(on_lake, on_file))[:10]
    left = len(parquet_files(folder)) - referenced_files(lake)
    assert left > 0
    assert "0 files of killed writes deleted" in cimem(lake, "compact")  # too young yet
    day_ago = time.time() - 2 * 86400
    for path in parquet_files(folder):
        os.utime(path, (day_ago, day_ago))
    said = cimem(lake, "compact --keep-days 7")
    assert f"{left} file{'s' * (left != 1)} of killed writes deleted" in said, said
    assert len(parquet_files(folder)) == referenced_files(lake)
    assert numbers(lake) == on_file
