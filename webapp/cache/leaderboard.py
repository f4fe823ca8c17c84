"""Cached reads of the leaderboard of every run: how each run was made (cheap: one grouped read)
and runs' numbers under their original verdicts, read one run at a time (a cube in memory at a
time, so reading tens of runs does not hold them all) and kept for every visitor: once anyone
has computed a run's numbers under some options, the leaderboard shows them to all."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable

from cimem.analysis.leaderboard import Entry, entries, run_metrics
from cimem.analysis.metrics import MetricOptions, RunMetrics
from webapp.cache import registry
from webapp.cache.records import run_contents
from webapp.cache.scope import DbScope
from webapp.connection import reading_at

KEPT_OPTIONS = 8  # (database, options) pairs whose numbers are kept
_LOCK = threading.Lock()
# per (database path, options): run -> (what the run held when computed, its numbers)
Known = OrderedDict[tuple[str, "MetricOptions"], dict[int, tuple[str, "RunMetrics"]]]


@registry.data_read(show_spinner=False, max_entries=16)
def board_entries(db: DbScope) -> list[Entry]:
    """Every run of the database as the leaderboard lists it, before its numbers."""
    with reading_at(db.path) as store:
        return entries(store.leaderboard_facts())


@registry.shared_read(show_spinner=False)
def _known() -> Known:
    return OrderedDict()


def board_metrics_known(db: DbScope, opts: MetricOptions) -> dict[int, RunMetrics]:
    """The runs' numbers computed so far under ``opts`` (by any visitor), of the runs that hold
    what they held then (:func:`~webapp.cache.records.run_contents`): a command that adds to one
    run, or a new run, leaves the others' numbers in place."""
    contents = run_contents(db)
    with _LOCK:
        kept = _known().get((db.path, opts), {})
        return {r: m for r, (held, m) in kept.items() if contents.get(r) == held}


def board_metrics(
    db: DbScope,
    opts: MetricOptions,
    run_ids: Iterable[int],
    progress: Callable[[int, int], None] | None = None,
) -> dict[int, RunMetrics]:
    """Compute the numbers of these runs not yet known, one run at a time (``progress(done,
    total)`` after each), keep them, and return every known one."""
    contents = run_contents(db)
    todo = [r for r in run_ids if r not in board_metrics_known(db, opts)]
    for i, run_id in enumerate(todo):
        with reading_at(db.path) as store:  # one run at a time: a writer may come in between
            result = run_metrics(store, [run_id], opts)
        with _LOCK:
            known = _known()
            kept = known.setdefault((db.path, opts), {})
            kept.update({r: (contents.get(r, ""), m) for r, m in result.items()})
            known.move_to_end((db.path, opts))
            while len(known) > KEPT_OPTIONS:
                known.popitem(last=False)
        if progress is not None:
            progress(i + 1, len(todo))
    return board_metrics_known(db, opts)
