"""Bulk appends on a background thread: parsing the next record overlaps with writing this one
(DuckDB releases the GIL while it appends)."""

from __future__ import annotations

import queue
import threading
from collections.abc import Mapping
from typing import Protocol

import pyarrow as pa


class Appends(Protocol):
    """What the appender needs of the database: its bulk append."""

    def append(
        self, table: str, data: pa.Table, shift: Mapping[str, int] | None = None
    ) -> None: ...


_Batch = tuple[list[tuple[str, pa.Table]], Mapping[str, int] | None]


class BulkAppender:
    """A bounded queue of (table, Arrow data) drained by one writer thread."""

    def __init__(self, store: Appends, depth: int):
        self._store = store
        self._queue: queue.Queue[_Batch | None] = queue.Queue(maxsize=depth)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if self._error is None:
                batch, shift = item
                try:
                    for table, data in batch:
                        self._store.append(table, data, shift)
                except BaseException as exc:  # surfaced in the caller's thread
                    self._error = exc

    def put(
        self, batch: list[tuple[str, pa.Table]], shift: Mapping[str, int] | None = None
    ) -> None:
        """Append the tables (their id columns moved by ``shift``, see :meth:`Database.append`)."""
        if self._error is not None:
            raise self._error
        self._queue.put((batch, shift))

    def close(self, raise_error: bool = True) -> None:
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if raise_error and self._error is not None:
            raise self._error
