"""Work started in the background before anyone asks for it (Growth's next curves, the Leaks
page's other colouring and each domain's page), kept under the key the page will ask by.

One worker, so a prefetch never takes both cores. No Streamlit here: the warm visit waits on this
pool before it says the server is ready.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

PREFETCH_KEPT = 64  # the oldest unused results beyond these are forgotten

_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cimem-prefetch")
_lock = threading.Lock()
_started: dict[Hashable, Future[Any]] = {}


def ahead(key: Hashable) -> Future[Any] | None:
    """The work started in the background under ``key``, done or under way, if any."""
    with _lock:
        return _started.get(key)


def claim(key: Hashable) -> Future[Any] | None:
    """The work started in the background under ``key`` for a caller that needs it now: under
    way or done; None when there is none, or when it had not begun, which is then taken off the
    queue (made at once by the caller, it does not wait behind the work queued before it: a
    Leaks page queues ten domains' pages)."""
    with _lock:
        started = _started.get(key)
        if started is not None and started.cancel():
            del _started[key]
            return None
        return started


def start(key: Hashable, make: Callable[..., Any], *args: Any) -> None:
    """Run make(*args) on the one background worker, kept under ``key`` (unless there already);
    the oldest unused results are forgotten."""
    with _lock:
        if key in _started:
            return
        while len(_started) >= PREFETCH_KEPT:
            _started.pop(next(iter(_started))).cancel()
        _started[key] = _pool.submit(make, *args)


def started() -> dict[Hashable, Future[Any]]:
    """A copy of everything started in the background, by key."""
    with _lock:
        return dict(_started)


def forget(key: Hashable) -> None:
    """Drop what was started under ``key`` (its result, or its place in the queue)."""
    with _lock:
        found = _started.pop(key, None)
    if found is not None:
        found.cancel()


def wait_for_prefetch(timeout: float) -> bool:
    """Wait until everything started in the background is made (the server's own first visit
    is not over before that); False when ``timeout`` seconds were not enough."""
    with _lock:
        pending = list(_started.values())
    _, not_done = wait(pending, timeout=timeout)
    return not not_done
