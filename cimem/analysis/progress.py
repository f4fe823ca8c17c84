"""A run being made: whether the process making it still runs, how far it has come, and when it
will be done at its pace so far (read from ``run_progress``, which `cimem run` writes with each
stored part of the run)."""

from __future__ import annotations

import math
import socket
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from cimem.store import RunProgress
from cimem.store.connection import now
from cimem.store.waiting import process_running


class RunState(StrEnum):
    MAKING = "being made"  # its process runs (on this machine), or wrote lately (on another)
    STOPPED = "stopped"  # unfinished, and its process is gone
    FINISHED = "finished"


QUIET_HOURS = 2.0  # a process on another machine silent this long is taken as stopped


def this_host() -> str:
    return socket.gethostname()


def process_runs(pid: int, host: str) -> bool | None:
    """Whether process ``pid`` of ``host`` runs: None when ``host`` is another machine."""
    return process_running(pid) if host == this_host() else None


@dataclass(frozen=True)
class RunMaking:
    """A run's progress as a reader sees it."""

    run_id: int
    state: RunState
    pid: int
    host: str
    total: int
    done: int
    failed: int
    cost: float
    started_at: datetime
    updated_at: datetime
    seconds_left: float | None  # at this process's pace so far; None before its first part

    @property
    def share(self) -> float:
        return self.done / self.total if self.total else 1.0

    def sentence(self) -> str:
        """One line: what the run has, what it failed, what it cost, and what is left.

        >>> at = datetime(2026, 1, 1, 10)
        >>> RunMaking(3, RunState.MAKING, 42, "lab", 200, 50, 2, 0.5, at, at, 630.0).sentence()
        'run 3 is being made (process 42 on lab): 50 of 200 messages (25%), 2 calls failed, $0.5000 so far, about 11 min left'
        """
        text = (
            f"run {self.run_id} is {self.state} (process {self.pid} on {self.host}):"
            f" {self.done:,} of {self.total:,} messages ({self.share:.0%}),"
            f" {self.failed:,} call{'' if self.failed == 1 else 's'} failed,"
            f" ${self.cost:.4f} so far"
        )
        if self.state == RunState.STOPPED:
            return text + f"; continue it with: python -m cimem run --resume {self.run_id}"
        if self.state == RunState.MAKING and self.seconds_left is not None:
            return text + f", about {_duration(self.seconds_left)} left"
        return text


def _duration(seconds: float) -> str:
    """Time left, in whole minutes rounded up, or hours past an hour and a half.

    >>> _duration(40), _duration(630), _duration(7300)
    ('1 min', '11 min', '2.0 h')
    """
    if seconds >= 5400:
        return f"{seconds / 3600:.1f} h"
    return f"{max(1, math.ceil(seconds / 60))} min"


def state_of(row: RunProgress, at: datetime | None = None) -> RunState:
    """Finished, being made (its process runs; on another machine: it wrote within
    :data:`QUIET_HOURS` of ``at``, default now), or stopped."""
    if row.finished_at is not None:
        return RunState.FINISHED
    runs = process_runs(row.pid, row.host)
    if runs is None:
        runs = ((at or now()) - row.updated_at).total_seconds() < QUIET_HOURS * 3600
    return RunState.MAKING if runs else RunState.STOPPED


def making(row: RunProgress, at: datetime | None = None) -> RunMaking:
    """The run's progress as of ``at`` (default: now), its state, and its time left at this
    process's pace: the messages it stored since it began, over the time since it began."""
    state = state_of(row, at or now())
    made = row.done - row.done_at_start
    elapsed = (row.updated_at - row.started_at).total_seconds()
    left = None
    if state == RunState.MAKING and made > 0 and elapsed > 0:
        left = (row.total - row.done) * elapsed / made
    return RunMaking(
        row.run_id,
        state,
        row.pid,
        row.host,
        row.total,
        row.done,
        row.failed,
        row.cost,
        row.started_at,
        row.updated_at,
        left,
    )
