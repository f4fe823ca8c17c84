"""Giving back the memory DuckDB keeps of what it read. DuckDB holds every block it has read in
its buffer pool until its memory limit is reached (80% of the machine by default): a command that
reads every run of a lab's database one run at a time would otherwise grow by each run's blocks
(about 14 MiB per 60-profile run) although it keeps nothing of them."""

from __future__ import annotations

import duckdb

from cimem.store.connection import Database

# below what DuckDB keeps pinned: it evicts every block it can, then refuses the limit
_LOW_LIMIT = "1MB"


class MemoryRelease(Database):
    """:meth:`release_cache` between runs of a command over many runs."""

    _limit_as_opened: str | None = None  # DuckDB's limit before the first release, as it says it

    def release_cache(self) -> None:
        """Evict the blocks DuckDB cached (they are read again when needed) by lowering its
        memory limit for a moment. For a command's own connection only: a connection shared by
        threads (the app's) could see another thread's query refused while the limit is low."""
        with self._lock:
            if self._limit_as_opened is None:
                self._limit_as_opened = str(self._scalar("SELECT current_setting('memory_limit')"))
            try:
                self.con.execute(f"SET memory_limit = '{_LOW_LIMIT}'")
            except duckdb.OutOfMemoryException:
                pass  # expected: it evicted what it could, and what is pinned stays
            finally:
                # SET, not RESET: DuckDB 1.5.5's RESET names the old limit but keeps the low one.
                # The limit is said rounded (18.8 GiB), so it comes back within that rounding,
                # the same after every release.
                self.con.execute("SET memory_limit = ?", [self._limit_as_opened])
