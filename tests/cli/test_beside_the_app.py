"""The command line and the app on one database at once: while the app reads the file through
its share (visitors' reads in a loop, as a served app's cache misses) every command works, each
writing command's result shows on the app's next rerun without a restart, and a `cimem run`
killed halfway shows in the app as stopped with its stored part's numbers, then resumes to the
end without repeating a call."""

from __future__ import annotations

import csv
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from apptest import PAGES, no_exception, open_page
from llm_server import HUNG, FakeLLM
from llm_world import World

from cimem.analysis.cube import cube_from_store
from cimem.store import Store
from webapp import connection

from conftest import REPO
from fixtures import runner_profiles, small_profile, write_jsonl

pytestmark = pytest.mark.slow


def cli(db: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cimem", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=timeout,
        env={**os.environ, "CIMEM_DB_WAIT": "60"},
    )


@contextmanager
def visitors(db: Path) -> Iterator[list[int]]:
    """The app's share of the file read over and over (each read a cache miss that opens the
    file), as visitors of a served app do; yields the count of reads done."""
    done, stop = [0], threading.Event()
    share = connection.shared(str(db))

    def read() -> None:
        while not stop.is_set():
            with share.reading() as store:
                for run_id in store.run_ids()[:2]:
                    cube_from_store(store, run_id, None)
            done[0] += 1
            time.sleep(0.02)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    try:
        yield done
    finally:
        stop.set()
        thread.join(30)


@pytest.fixture
def lab(demo_db, tmp_path) -> Path:
    path = tmp_path / "lab.duckdb"
    shutil.copy(demo_db, path)
    return path


def test_every_command_works_while_the_app_reads_and_the_app_sees_what_they_wrote(
    lab, tmp_path, monkeypatch
):
    at = open_page(str(lab), PAGES[5], monkeypatch)  # the Data page lists the runs
    no_exception(at)
    runs_before = run_choices(at)
    new_file = write_jsonl(tmp_path / "new.jsonl", [small_profile("Newcomer")])
    with visitors(lab) as reads:
        for args in (
            ["metrics", "--json"],
            ["growth", "--run", "1"],
            ["audit-queue", "--run", "1"],
            ["export", "--run", "1", "--out", str(tmp_path / "out.jsonl")],
            ["runs"],
            ["runs", "--leaderboard"],
            ["ingest", str(new_file), "--name", "newcomer"],
            ["judge", "--run", "1", "--offline", "--name", "second opinion"],
            ["agreement", "--run", "1"],
            ["audit-sample", "--run", "1", "--size", "10", "--out", str(tmp_path / "s.csv")],
        ):
            out = cli(lab, *args)
            assert out.returncode == 0, (args, out.stderr)
            assert "Traceback" not in out.stderr
        rows = list(csv.DictReader((tmp_path / "s.csv").open()))
        for r in rows:
            r["revealed"] = "yes"
        with (tmp_path / "filled.csv").open("w", newline="") as f:
            w = csv.DictWriter(f, rows[0].keys())
            w.writeheader()
            w.writerows(rows)
        out = cli(lab, "human", "import", str(tmp_path / "filled.csv"), "--run", "1")
        assert out.returncode == 0, out.stderr
        assert reads[0] > 5  # the app read all along
    # the app's next rerun shows what the commands wrote, without a restart
    at.run()
    no_exception(at)
    new = [r for r in run_choices(at) if r not in runs_before]
    assert len(new) == 1 and new[0].endswith(": newcomer"), new
    with Store.open(lab, read_only=True) as store:
        judges = [j.name for j in store.judges(1)]
        assert "second opinion" in judges
        assert store.human_verdicts(store.find_human_judge(1))
    at.switch_page(PAGES[3]).run()  # Audit: its judge picker offers the new judge
    no_exception(at)


def run_choices(at) -> list[str]:
    """The runs the Data page offers, as it names them."""
    box = next(s for s in at.selectbox if s.label == "Run")
    return list(box.options)


def held_run(profiles: Path, server: FakeLLM, db: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cimem", "run", "--db", str(db), "--profiles", str(profiles)]
        + ["--model", "gen-m", "--base-url", server.base_url, "--trials", "3"]
        + ["--concurrency", "4", "--timeout", "600", "--chunk", "8", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "CIMEM_DB_WAIT": "60"},
    )


def test_a_run_killed_and_resumed_while_the_app_reads(tmp_path, monkeypatch):
    db = tmp_path / "made.duckdb"
    labels = write_jsonl(tmp_path / "profiles.jsonl", runner_profiles(2, 4))
    world = World()
    world.hold_after = 12  # of 24 generations; later ones hang until the process is killed
    with FakeLLM(world) as server:
        proc = held_run(labels, server, db)
        deadline = time.monotonic() + 120
        while not any(r.status == HUNG for r in server.log):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)
        time.sleep(1.0)
        with visitors(db) as reads:
            resume_while_read(proc, server, world, db, reads, monkeypatch)
    with Store.open(db, read_only=True) as store:
        (row,) = store.run_progress(1)
        assert row.done == row.total == 24 and row.finished_at is not None
        assert store.table_counts()["messages"] == 24


def resume_while_read(proc, server, world, db: Path, reads: list[int], monkeypatch) -> None:
    """The app shows the run being made, then stopped, with its stored part's numbers; a
    resume while the app reads finishes it, calling only what the cache lacks."""
    # the app shows the run being made, with its stored part
    at = open_page(str(db), PAGES[5], monkeypatch)
    no_exception(at)
    being_made = [p.text.replace("\\", "") for p in at.get("progress")]
    assert any("run 1 is being made" in t and "8 of 24 messages" in t for t in being_made), (
        being_made
    )
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    at.run()
    no_exception(at)
    stopped = [p.text.replace("\\", "") for p in at.get("progress")]
    assert any("run 1 is stopped" in t and "--resume 1" in t for t in stopped), stopped
    at.switch_page(PAGES[0]).run()  # Overview: the stored part's numbers, said to be so
    no_exception(at)
    assert any("over the 8 messages stored so far" in i.value for i in at.info)
    world.hold_after = None
    calls_before = len(server.log)
    out = subprocess.run(
        [sys.executable, "-m", "cimem", "run", "--db", str(db), "--resume", "1"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert reads[0] > 5
    # 16 messages left: 4 the killed part had answered came from the cache, 12 were called
    assert len([r for r in server.log[calls_before:] if r.status == 200]) == 12
    at.switch_page(PAGES[5]).run()
    no_exception(at)
    assert not at.get("progress")  # finished: nothing being made
