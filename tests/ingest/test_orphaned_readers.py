"""A pool of forked readers whose parent is killed outright (kill -9 of a stuck import) ends
with it: its workers exit within a few seconds instead of waiting forever on a pipe they hold
themselves. Without cimem's initializer the same workers are still alive (the test can fail)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from processes import HAS_PROC, alive, outlived

from cimem.child_processes import PARENT_POLL_SECONDS

from conftest import REPO

POOL = """
import multiprocessing, os, time
from concurrent.futures import ProcessPoolExecutor
from cimem.child_processes import end_with_parent

def wait(_):
    time.sleep(0.5)
    return os.getpid()

if __name__ == "__main__":
    start = end_with_parent if {watched} else None
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(2, mp_context=context, initializer=start) as pool:
        print(*sorted(set(pool.map(wait, range(4)))), flush=True)
        time.sleep(600)  # a stuck import: killed here
"""


def workers_after_their_parent_is_killed(tmp_path: Path, watched: bool) -> list[int]:
    """The pool's workers still alive a while after its process was killed with SIGKILL."""
    script = tmp_path / "pool.py"
    script.write_text(POOL.format(watched=watched))
    proc = subprocess.Popen(
        [sys.executable, str(script)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    workers = [int(pid) for pid in proc.stdout.readline().split()]
    assert workers and all(alive(pid) for pid in workers)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    left = outlived(workers, 20 * PARENT_POLL_SECONDS)
    for pid in left:  # the control's workers: not left to the machine
        os.kill(pid, signal.SIGKILL)
    return left


@pytest.mark.skipif(not HAS_PROC, reason="reads processes from /proc")
def test_readers_end_soon_after_their_import_is_killed(tmp_path: Path):
    assert workers_after_their_parent_is_killed(tmp_path, watched=True) == []


@pytest.mark.skipif(not HAS_PROC, reason="reads processes from /proc")
def test_without_the_watch_the_readers_outlive_their_import(tmp_path: Path):
    assert workers_after_their_parent_is_killed(tmp_path, watched=False) != []
