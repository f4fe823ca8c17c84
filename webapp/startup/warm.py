"""What a fresh server does before its first visitor asks: the leak cubes of the runs a visit opens
with (the default selection, a few runs whatever the database holds), built in a background thread as the server starts
(``webapp.startup.serve``). Building a cube reads every verdict of its run (about 0.15 s for a
60-profile run), the biggest part of a first page's wait.

No Streamlit cache here: this runs before the Streamlit runtime exists. ``webapp.cache`` takes a
warm cube once (its own cache keeps it from then on); the warm thread reaches the database through
:func:`webapp.connection.shared`, as the pages do, so they share one.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from cimem.analysis.cube import LeakCube, cube_from_store
from cimem.analysis.leaderboard import default_selection
from cimem.store.location import is_lake
from webapp.connection import file_version, shared

log = logging.getLogger(__name__)
_cubes: dict[tuple[str, float, int], LeakCube] = {}
_warming: dict[str, threading.Event] = {}


def start(path: str) -> threading.Thread | None:
    """Build the cubes of the runs a visit of ``path`` opens with, under their original judges,
    in a daemon thread; nothing when the file does not exist yet (the demo is built on first
    use)."""
    if not (is_lake(path) or Path(path).exists()) or path in _warming:
        return None
    _warming[path] = threading.Event()
    thread = threading.Thread(target=_warm, args=(path,), name="cimem-warm", daemon=True)
    thread.start()
    return thread


def _warm(path: str) -> None:
    try:
        version = file_version(path)
        with shared(path).reading() as store:
            for run_id in default_selection(store.list_runs()):
                _cubes[(path, version, run_id)] = cube_from_store(store, run_id, None)
    except Exception:  # a warm start is an optimisation: the page builds what is missing
        log.warning("warming %s failed; pages build their cubes on first use", path, exc_info=True)
    finally:
        _warming[path].set()


def take_cube(path: str, version: float, run_id: int, judge_id: int | None) -> LeakCube | None:
    """The warm cube of a run under its original judge (``judge_id`` None), once; waits for a
    warm start of ``path`` still running (it is building the same cubes)."""
    event = _warming.get(path)
    if judge_id is not None or event is None:
        return None
    event.wait(timeout=120)
    for key in [k for k in _cubes if k[0] == path and k[1] != version]:
        del _cubes[key]  # the file changed since: those cubes would never be taken
    return _cubes.pop((path, version, run_id), None)
