"""The LLM call cache: every completed call is on disk at once, cheaply.

A completed call is appended to the process's journal file next to the database (``DB.calls.PID``,
one JSON line, one ``write`` system call: it survives Ctrl-C, kill -9 and crashes of the process)
and merged into the database's ``llm_cache`` table in batches, after which the journal is emptied;
while the process has let the database go for its calls (:meth:`~cimem.store.connection.Database.released`),
the calls wait in the journal. Opening the database for writing merges the journals of stopped
processes (and an older ``DB.calls``), so a resumed run finds every call it paid for; a journal of
a process still running is its own, so two processes calling at once never cut each other's.
Writing each call into DuckDB at once cost 1.6 ms per call; the journal line costs microseconds.

Each line is checked when merged: a damaged line never stops the database from opening; it is set
aside in ``DB.calls.rejected`` with its line number, and the command that merged it says how many.
"""

from __future__ import annotations

import glob
import os
import warnings
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

import orjson
import pyarrow as pa

from cimem.store.connection import Database
from cimem.store.rows import CachedCall, CachedCompletion
from cimem.store.schema import LLM_CACHE_SCHEMA
from cimem.store.waiting import process_running

BATCH = 256
# A file replaces a key by its key; a lake has no keys, so it adds only the calls it lacks (two
# writers adding one call at once keep both rows: the same completion, read once).
_PUT_SQL = {
    False: "INSERT OR REPLACE INTO llm_cache ({names}) SELECT {names} FROM _cache_rows",
    True: "INSERT INTO llm_cache ({names}) SELECT {names} FROM _cache_rows c"
    " WHERE NOT EXISTS (SELECT 1 FROM llm_cache l WHERE l.key = c.key)",
}


class CacheTable(Protocol):
    """What the journal needs of the database: its path and the cache table's two statements
    (:class:`CallCacheTable`'s; tests give a stand-in)."""

    path: str

    @property
    def local_path(self) -> str: ...

    @property
    def is_released(self) -> bool: ...

    def released(self) -> AbstractContextManager[None]: ...

    def cache_get(self, keys: list[str]) -> dict[str, CachedCompletion]: ...

    def cache_put_many(self, rows: list[CachedCall]) -> None: ...


class CallCacheTable(Database):
    """The ``llm_cache`` table; opening the database for writing merges a stopped process's
    journal into it."""

    def _after_open(self) -> None:
        super()._after_open()
        recover(self)  # calls a stopped process completed but had not merged yet

    def _after_retake(self) -> None:
        super()._after_retake()
        # other processes' stopped journals; this one's calls are merged by its open call cache
        recover(self, own=False)

    def cache_get(self, keys: list[str]) -> dict[str, CachedCompletion]:
        """The cached completions of those keys that are in the cache."""
        if not keys:
            return {}
        rows = self.con.execute(
            "SELECT key, response, reasoning, prompt_tokens, completion_tokens, finish_reason"
            " FROM llm_cache WHERE list_contains(?, key)"
            " ORDER BY key, created_at DESC",  # a lake's key twice: the first stored is kept
            [keys],
        ).fetchall()
        return {
            key: CachedCompletion(
                response=response,
                reasoning=reasoning,
                prompt_tokens=prompt_tokens or 0,
                completion_tokens=completion_tokens or 0,
                finish_reason=finish_reason,
            )
            for key, response, reasoning, prompt_tokens, completion_tokens, finish_reason in rows
        }

    def cache_put_many(self, rows: list[CachedCall]) -> None:
        """Store completed calls in one transaction; a key already there is replaced."""
        if not rows:
            return
        data = pa.table(
            {f.name: pa.array([getattr(r, f.name) for r in rows], f.type) for f in LLM_CACHE_SCHEMA}
        )
        names = ", ".join(LLM_CACHE_SCHEMA.names)

        def put() -> None:
            self.con.register("_cache_rows", data)
            try:
                self.con.execute(_PUT_SQL[self.lake].format(names=names))
            finally:
                self.con.unregister("_cache_rows")

        self.write(put, f"{self.shown_path}: storing {len(rows)} completed calls")


def journal_path(store: CacheTable) -> Path | None:
    """This process's journal of the database's calls (None in memory)."""
    if store.path == ":memory:":
        return None
    return Path(f"{store.local_path}.calls.{os.getpid()}")


def stopped_journals(store: CacheTable, own: bool = True) -> list[Path]:
    """The journals to merge: an older ``DB.calls``, this process's (with ``own``), and those of
    processes that are no longer running."""
    if store.path == ":memory:":
        return []
    base = Path(store.local_path + ".calls")
    found = [base] if base.exists() else []
    for path in sorted(base.parent.glob(glob.escape(base.name) + ".*")):
        pid = path.name[len(base.name) + 1 :]
        mine = pid.isdigit() and int(pid) == os.getpid()
        if pid.isdigit() and ((mine and own) or not (mine or process_running(int(pid)))):
            found.append(path)
    return found


class JournalWarning(UserWarning):
    """Journal lines set aside when merging: the command that merged them reports them once."""


@dataclass(frozen=True)
class Recovery:
    """What merging a journal did: calls merged, and lines set aside in ``DB.calls.rejected``."""

    merged: int = 0
    rejected: int = 0
    rejected_path: Path | None = None

    def message(self, journal: Path) -> str | None:
        if not self.rejected:
            return None
        return (
            f"{journal}: {self.rejected} line{'s' if self.rejected > 1 else ''} of the call"
            f" journal could not be read and {'were' if self.rejected > 1 else 'was'} set aside"
            f" in {self.rejected_path} (with line numbers); {self.merged} calls merged. A call"
            " whose line was set aside is made again (and paid again) when needed."
        )


def check_line(line: bytes) -> CachedCall:
    """One journal line as a cache row, or ValueError saying what is wrong with it."""
    try:
        fields = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if type(fields) is not list or len(fields) not in (len(_FIELDS) - 1, len(_FIELDS)):
        raise ValueError(
            f"expected a JSON list of {len(_FIELDS)} fields ({len(_FIELDS) - 1} without the"
            " finish reason)"
        )
    if len(fields) < len(_FIELDS):
        fields = [*fields, None]  # a line of a cimem that did not keep the finish reason
    for (name, kinds), value in zip(_FIELDS, fields):
        if type(value) not in kinds:
            raise ValueError(f"field {name}: expected {_KIND_NAMES[kinds]}, got {value!r:.40}")
    key, model, purpose, response, reasoning, pt, ct, at, finish_reason = fields
    if not key:
        raise ValueError("field key: expected a non-empty string")
    for name, n in (("prompt_tokens", pt), ("completion_tokens", ct)):
        if not 0 <= n <= _INT32_MAX:
            raise ValueError(f"field {name}: expected 0 to {_INT32_MAX}, got {n}")
    try:
        when = datetime.fromisoformat(at)
    except ValueError:
        raise ValueError(f"field created_at: expected an ISO time, got {at!r:.40}") from None
    return CachedCall(
        key=key,
        model=model,
        purpose=purpose,
        response=response,
        reasoning=reasoning,
        prompt_tokens=pt,
        completion_tokens=ct,
        created_at=when.replace(tzinfo=None),
        finish_reason=finish_reason,
    )


_INT32_MAX = 2**31 - 1
_FIELDS = (
    ("key", (str,)),
    ("model", (str, type(None))),
    ("purpose", (str,)),
    ("response", (str,)),
    ("reasoning", (str, type(None))),
    ("prompt_tokens", (int,)),
    ("completion_tokens", (int,)),
    ("created_at", (str,)),
    ("finish_reason", (str, type(None))),  # absent from lines written before version 4
)
_KIND_NAMES = {
    (str,): "a string",
    (str, type(None)): "a string or null",
    (int,): "an integer",
}


def recover(store: CacheTable, own: bool = True) -> Recovery:
    """Merge the journals left by stopped processes (:func:`stopped_journals`) into the
    database."""
    merged = Recovery()
    for path in stopped_journals(store, own):
        done = recover_journal(store, path)
        merged = Recovery(
            merged.merged + done.merged,
            merged.rejected + done.rejected,
            done.rejected_path or merged.rejected_path,
        )
    return merged


def recover_journal(store: CacheTable, path: Path) -> Recovery:
    """Merge one journal into the database. Each line is checked; a line that is not a complete
    call (torn by a crash mid-write, or damaged) is set aside in ``DB.calls.rejected`` with its
    line number and reported once through a :class:`JournalWarning`, so the database always
    opens."""
    rows: list[CachedCall] = []
    rejected: list[bytes] = []
    for lineno, line in enumerate(path.read_bytes().splitlines(), 1):
        if not line.strip():
            continue
        try:
            rows.append(check_line(line))
        except ValueError as exc:
            text = line[:2000].decode("utf-8", "replace")
            rejected.append(
                orjson.dumps({"line": lineno, "problem": str(exc), "text": text}) + b"\n"
            )
    store.cache_put_many(list({r.key: r for r in rows}.values()))  # a key twice: the last wins
    aside = None
    if rejected:
        aside = Path(store.local_path + ".calls.rejected")
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            os.write(fd, b"".join(rejected))
        finally:
            os.close(fd)
    path.unlink()
    result = Recovery(len(rows), len(rejected), aside)
    notice = result.message(path)
    if notice:
        warnings.warn(notice, JournalWarning, stacklevel=2)
    return result


class CallCache:
    """Look calls up; record completed ones (journal at once, database in batches)."""

    def __init__(self, store: CacheTable, batch: int = BATCH):
        self.store, self.batch = store, batch
        self.path = journal_path(store)
        self.pending: dict[str, CachedCall] = {}
        self._fd: int | None = None

    def get(self, keys: list[str]) -> dict[str, CachedCompletion]:
        found = self.store.cache_get(keys)
        for k in keys:
            if k in self.pending:
                found[k] = self.pending[k].completion()
        return found

    def put(
        self,
        key: str,
        model: str,
        purpose: str,
        response: str,
        reasoning: str | None,
        prompt_tokens: int,
        completion_tokens: int,
        finish_reason: str | None = None,
    ) -> None:
        row = CachedCall(
            key=key,
            model=model,
            purpose=purpose,
            response=response,
            reasoning=reasoning,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            created_at=datetime.now(UTC).replace(tzinfo=None),
            finish_reason=finish_reason,
        )
        if self.path is None:
            self.store.cache_put_many([row])
            return
        if self._fd is None:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        line = [*row[:7], row.created_at.isoformat(), row.finish_reason]
        os.write(self._fd, orjson.dumps(line) + b"\n")
        self.pending[key] = row
        if len(self.pending) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Merge the pending calls into the database, then empty the journal (not while the
        database is let go: they wait in the journal, merged when it is taken again)."""
        if not self.pending or self.store.is_released:
            return
        self.store.cache_put_many(list(self.pending.values()))
        self.pending.clear()
        if self._fd is not None:
            os.ftruncate(self._fd, 0)

    def close(self) -> None:
        self.flush()
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
            if self.path is not None and self.path.exists() and self.path.stat().st_size == 0:
                self.path.unlink()

    def __enter__(self) -> CallCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
