"""Worker processes that end with the process that started them.

A pool's workers (the parallel readers of an import, of a file's cube) wait on a pipe for work.
Forked, each holds that pipe's writing end as well, so when their parent is killed outright
(``kill -9`` of a stuck import) the pipe never closes and they wait forever: two per killed
import were found alive hours later, 100-130 MB each, one holding the lake's PostgreSQL session
"idle in transaction" through a socket it inherited. A thread in each worker watches its parent
and ends the worker once it is gone (polling: Linux's parent-death signal follows the thread
that forked, which may end long before the process does).
"""

from __future__ import annotations

import os
import threading
import time

PARENT_POLL_SECONDS = 0.5  # how soon a worker notices its parent is gone


def end_with_parent() -> None:
    """A pool's initializer: from now on this worker exits as soon as its parent has ended."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)  # nothing to tidy: the parent that wanted the work is gone

    threading.Thread(target=watch, name="cimem-parent-watch", daemon=True).start()
