"""One process's share of a database file that other processes use too.

DuckDB lets one process write a file, or several processes read it, never both at once. A server
that kept the file open all day would lock every command out of it, so a :class:`SharedDatabase`
holds the file only while a thread of this process uses it: the first :meth:`~SharedDatabase.reading`
or :meth:`~SharedDatabase.writing` opens it (waiting while another process holds it), and the last
one out closes it, after a short linger for reads so that reads following each other closely share
one opening. Reads open the file read-only, so commands that only read (``cimem metrics``) run
beside them; a write opens it for writing once this process's read-only reads are done, and it is
closed as soon as the last hold ends, so a command waiting to write gets its turn. While it is
open for writing, this process's reads go on beside the writes on their own cursors (each reads
the last committed state), and its writes take turns through the store's write lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path

from cimem.store.database import DatabaseBusy, Store
from cimem.store.location import is_lake
from cimem.store.waiting import default_wait, writers_waiting

LINGER = 0.5  # seconds a read-only opening outlives its last read
WRITER_POLL = 0.02  # seconds between looks for another process waiting to write


class Mode(StrEnum):
    READ = "read"
    WRITE = "write"


class SharedDatabase:
    """A database file held only while this process's threads read or write it.

    >>> import tempfile; path = Path(tempfile.mkdtemp()) / "s.duckdb"
    >>> shared = SharedDatabase(str(path), create=True, linger=0)
    >>> with shared.reading() as store:
    ...     store.run_ids()
    []
    >>> shared.is_open  # let go: another process may write it now
    False
    """

    def __init__(
        self,
        path: str,
        *,
        wait: float | None = None,
        linger: float = LINGER,
        create: bool = False,
    ):
        self.path = path
        self.wait = default_wait() if wait is None else wait
        self.linger, self.create = linger, create
        self._cond = threading.Condition()
        self._root: Store | None = None
        self._mode: Mode | None = None
        self._holds = 0  # reads and writes under way, over all threads
        self._writers_waiting = 0  # new reads wait for them (a writer is never starved)
        self._depth = threading.local()  # this thread's holds, nested ones included
        self._generation = 0  # counts openings: a linger's timer closes only its own
        self._prepared = False  # checked, created or migrated once

    @property
    def is_open(self) -> bool:
        """Whether this process holds the file now (a read, a write, or a read's linger)."""
        with self._cond:
            return self._root is not None

    @contextmanager
    def reading(self) -> Iterator[Store]:
        """The database to read, on a cursor of its own (it reads the last committed state):
        other processes may read it too meanwhile, none may write it."""
        store = self._acquire(Mode.READ)
        try:
            yield store
        finally:
            self._release(store)

    @contextmanager
    def reading_file(self) -> Iterator[Store]:
        """Like :meth:`reading`, with the file open read-only throughout (waiting for this
        process's writes to end, holding its next ones back): another DuckDB instance of this
        process may then attach the file read-only too, which DuckDB refuses while it is open
        for writing (the store's query sandbox does)."""
        store = self._acquire(Mode.READ, file_read_only=True)
        try:
            yield store
        finally:
            self._release(store)

    @contextmanager
    def writing(self) -> Iterator[Store]:
        """The database to write, on a cursor of its own: no other process may use the file
        meanwhile; this process's reads go on beside (reading what is committed), its writes take
        turns (:meth:`Store.transaction`). Not inside this thread's read-only read."""
        store = self._acquire(Mode.WRITE)
        try:
            yield store
        finally:
            self._release(store)

    def _held_here(self) -> int:
        return int(getattr(self._depth, "n", 0))

    def _acquire(self, mode: Mode, file_read_only: bool = False) -> Store:
        with self._cond:
            if mode == Mode.WRITE and self._mode == Mode.READ and self._held_here():
                raise RuntimeError(f"{self.path}: a write inside this thread's read")
            self._wait_turn(mode, file_read_only)
            if mode == Mode.WRITE:
                self._open(Mode.WRITE)
            elif self._root is None:
                self._open(Mode.READ)
            return self._enter(self._root_store().cursor())

    def _wait_turn(self, mode: Mode, file_read_only: bool = False) -> None:
        """Wait (the condition held) until this process's holds allow ``mode``: a write while
        the file is open for writing or nobody holds it (read-only readers cannot be turned into
        writers); a read while it is open for writing (not for a ``file_read_only`` read), or
        while no write waits (unless this thread reads already)."""
        deadline = time.monotonic() + self.wait

        def free() -> bool:
            if self._mode == Mode.WRITE:
                return not file_read_only
            if mode == Mode.WRITE:
                return self._holds == 0
            return not self._writers_waiting or self._held_here() > 0

        self._writers_waiting += mode == Mode.WRITE
        try:
            while not free():
                left = deadline - time.monotonic()
                if left <= 0:
                    raise DatabaseBusy(
                        self.path, f"in use by this server for longer than {self.wait:g} s"
                    )
                self._cond.wait(left)
            if mode == Mode.READ and self._mode != Mode.WRITE and not self._held_here():
                self._let_writer_in(deadline)
        finally:
            self._writers_waiting -= mode == Mode.WRITE

    def _let_writer_in(self, deadline: float) -> None:
        """While another process waits to write the file, hold new reads back (up to the wait)
        so that this process's reads end, the file is let go and the writer gets its turn: a
        stream of reads must not keep a command out."""
        while writers_waiting(self.path) and time.monotonic() < deadline:
            if self._holds == 0 and self._root is not None:
                self._close()
            self._cond.wait(WRITER_POLL)

    def _open(self, mode: Mode) -> None:
        """Open the file in ``mode`` unless it is open so already (the condition held)."""
        if self._root is not None and self._mode == mode:
            return
        self._close()
        if not self._prepared:  # checked, created or migrated, and a journal merged, once
            if Path(self.path).exists() or self.create:
                Store.open(self.path, create_folders=False, wait=self.wait).close()
                self._prepared = True
        self._root = Store.open(
            self.path,
            read_only=mode == Mode.READ,
            create_folders=False,
            wait=self.wait,
            check=False,
        )
        self._mode = mode
        self._generation += 1

    def _root_store(self) -> Store:
        assert self._root is not None
        return self._root

    def _enter(self, store: Store) -> Store:
        self._holds += 1
        self._depth.n = self._held_here() + 1
        return store

    def _release(self, store: Store) -> None:
        with self._cond:
            self._holds -= 1
            self._depth.n = self._held_here() - 1
            store.close()  # the hold's own cursor
            if self._holds == 0 and self._root is not None:
                if self._mode == Mode.WRITE or writers_waiting(self.path):
                    self._close()  # written, or wanted: the file is let go at once
                else:
                    self._linger()
            self._cond.notify_all()

    def _linger(self) -> None:
        if self.linger <= 0:
            self._close()
            return
        generation = self._generation

        def close_if_idle() -> None:
            with self._cond:
                if self._holds == 0 and self._generation == generation:
                    self._close()

        timer = threading.Timer(self.linger, close_if_idle)
        # not a daemon: a process that ends within the linger waits for it, so the file is
        # closed before the interpreter goes (DuckDB's threads must not outlive it)
        timer.daemon = False
        timer.start()

    def _close(self) -> None:
        if self._root is not None:
            self._root.close()
        self._root, self._mode = None, None
        self._generation += 1


class SharedLake(SharedDatabase):
    """A lake held by this process all day: a lake has no file lock to let go (other processes
    and machines read and write it meanwhile, each transaction on its own snapshot), and opening
    it costs about a quarter of a second (extensions, the catalog's connection), so it is opened
    once, for writing, and every read or write takes a cursor of its own."""

    def _wait_turn(self, mode: Mode, file_read_only: bool = False) -> None:
        """Nothing to wait for: this process's reads and writes go on side by side."""

    def _open(self, mode: Mode) -> None:
        if self._root is None:
            self._root = Store.open(self.path, wait=self.wait)
            self._mode = Mode.WRITE
            self._prepared = True

    def _release(self, store: Store) -> None:
        with self._cond:
            self._holds -= 1
            self._depth.n = self._held_here() - 1
            store.close()  # the hold's own cursor; the lake stays attached
            self._cond.notify_all()

    def snapshot(self) -> int:
        """The lake's current snapshot: it changes with every commit of any writer."""
        with self.reading() as store:
            return store.lake_snapshot()


def share(path: str, *, create: bool = False) -> SharedDatabase:
    """This process's share of a database: a file's (held only while used) or a lake's."""
    return SharedLake(path) if is_lake(path) else SharedDatabase(path, create=create)
