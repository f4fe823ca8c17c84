"""Processes as /proc shows them (Linux): whether one is alive, which ones another started, and
which outlive a deadline. For the tests of workers that must end with their parent."""

from __future__ import annotations

import time
from pathlib import Path

HAS_PROC = Path("/proc/self/stat").exists()


def alive(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie no one reaped has ended)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def children(pid: int) -> list[int]:
    """The processes ``pid`` started and that are still its own (an import's readers)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def outlived(pids: list[int], seconds: float) -> list[int]:
    """Those of ``pids`` still running after ``seconds``."""
    deadline = time.monotonic() + seconds
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [p for p in pids if alive(p)]
