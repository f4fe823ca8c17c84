"""Databases, their WAL and the call journal are created 0600, whatever the umask the process
started with: checked on a `cimem run` killed halfway (all three files on disk) and on the
database a finished run leaves."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time

from llm_server import HUNG, FakeLLM
from llm_world import World

from conftest import REPO
from fixtures import runner_profiles, write_jsonl


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def run_cli(db, profiles, url: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cimem", "run", "--db", str(db), "--profiles", str(profiles)]
        + ["--model", "gen-m", "--base-url", url, "--trials", "2", "--concurrency", "2"]
        + ["--timeout", "600", "--judge-model", "judge-m"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.umask(0o022),  # a permissive umask: files would be 0644
    )


def test_a_killed_run_leaves_only_private_files(tmp_path):
    profiles = write_jsonl(tmp_path / "profiles.jsonl", runner_profiles(2, 3))
    db = tmp_path / "run.duckdb"
    world = World()
    world.hold_after = 4
    with FakeLLM(world) as server:
        proc = run_cli(db, profiles, server.base_url)
        while not any(r.status == HUNG for r in server.log):
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        time.sleep(1.0)  # the completed answers reach the journal
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    files = {p.name: mode(p) for p in tmp_path.iterdir() if p.name.startswith("run.duckdb")}
    assert {"run.duckdb", f"run.duckdb.calls.{proc.pid}"} <= set(files), files
    assert files == {name: 0o600 for name in files}, {k: oct(v) for k, v in files.items()}


def test_a_finished_run_leaves_a_private_database(tmp_path):
    profiles = write_jsonl(tmp_path / "profiles.jsonl", runner_profiles(1, 2))
    db = tmp_path / "done.duckdb"
    with FakeLLM(World()) as server:
        proc = run_cli(db, profiles, server.base_url)
        out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith("done.duckdb")]
    assert "done.duckdb" in leftovers
    assert all(mode(tmp_path / name) == 0o600 for name in leftovers), leftovers
