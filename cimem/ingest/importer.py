"""Importing a file: every source format becomes the same records, written to the store in one transaction.

``ingest_file`` detects the format (or takes it), streams the file through its reader, and writes
each profile as it comes. A failure anywhere rolls the whole import back; a file whose content hash
is already in the database is not imported again.
"""

from __future__ import annotations

import gc
import hashlib
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from cimem.ingest.files import COMPRESSION_ERRORS, open_maybe_gzip, readers_for, require_file
from cimem.ingest.formats import SourceFormat, source_format
from cimem.ingest.inspect_log import continue_inspect_run
from cimem.ingest.official import empty_file
from cimem.ingest.parallel import span_tables
from cimem.ingest.readers import detect_format, open_reader
from cimem.ingest.records import ProfileRecord, Progress, Told
from cimem.ingest.writer import RunWriter
from cimem.store import Store
from cimem.store.appender import BulkAppender
from cimem.store.lake import retry_conflicts


@dataclass(frozen=True)
class IngestResult:
    """What an import did: the run it made (or found), and how much it wrote."""

    run_id: int
    name: str
    created: bool  # False when the same content was already imported
    source_format: str
    profiles: int = 0
    messages: int = 0
    verdicts: int = 0
    judges_added: int = 0  # an Inspect log of a run imported before: its new REVEAL scores


def file_sha256(path: Path) -> str:
    """The SHA-256 of the file's content, decompressed when it is gzip: a gzipped copy of a file
    imported before is the same run (a gzip stream that cannot be read is hashed as it is; its
    reader then says what is wrong)."""
    try:
        with open_maybe_gzip(path) as f:
            return _sha256(f)
    except COMPRESSION_ERRORS:
        with path.open("rb") as f:
            return _sha256(f)


def _sha256(f: IO[bytes]) -> str:
    digest = hashlib.sha256()
    for chunk in iter(lambda: f.read(1 << 20), b""):
        digest.update(chunk)
    return digest.hexdigest()


def ingest_file(
    store: Store,
    path: str | Path,
    *,
    name: str | None = None,
    model: str | None = None,
    fmt: SourceFormat | str | None = None,
    progress: Progress | None = None,
    simulated: bool | None = None,
    level: int | None = None,
    readers: int | None = None,
    source: str | None = None,
    told: Told | None = None,
) -> IngestResult:
    """Import one file as a new run; all or nothing. Returns the run (new or already present).
    An official file of 64 MB or more is read by one process per core (``readers``). ``source``:
    the file's name as the run records it, when ``path`` is a copy (an upload's own name).
    ``told``: what made the run, as the person importing it says (the file may not). On a lake,
    an import that met another writer's change when it committed is made again (bounded)."""
    kwargs: dict[str, Any] = {
        "name": name,
        "model": model,
        "fmt": fmt,
        "progress": progress,
        "simulated": simulated,
        "level": level,
        "readers": readers,
        "source": source,
        "told": told,
    }
    if not store.lake:
        return _ingest_once(store, path, **kwargs)
    return retry_conflicts(
        lambda: _ingest_once(store, path, **kwargs), f"{path}: importing into {store.shown_path}"
    )


def _ingest_once(
    store: Store,
    path: str | Path,
    *,
    name: str | None,
    model: str | None,
    fmt: SourceFormat | str | None,
    progress: Progress | None,
    simulated: bool | None,
    level: int | None,
    readers: int | None,
    source: str | None,
    told: Told | None,
) -> IngestResult:
    """One try of :func:`ingest_file`."""
    path = Path(path)
    require_file(path)
    fmt = source_format(fmt) if fmt else detect_format(path)
    continued = _continued(store, path) if fmt is SourceFormat.INSPECT else None
    if continued is not None:
        return continued
    digest: dict[str, str] = {}
    hasher = threading.Thread(target=lambda: digest.setdefault("h", file_sha256(path)), daemon=True)
    hasher.start()
    meta, records = open_reader(path, fmt, progress, model)
    told = (told or Told()).joined(name=name, model=model, level=level, simulated=simulated)
    told.apply(meta)
    writer = RunWriter(store)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of short-lived JSON objects: cyclic GC passes only cost time here
    try:
        with store.transaction():
            run_id = writer.start(meta, source=source or str(path))
            if fmt is not SourceFormat.OFFICIAL:
                readers = 1
            _write_records(store, writer, path, records, readers, progress)
            if meta.after is not None:
                writer.n_verdicts += meta.after(store, run_id)
            hasher.join()
            existing = store.find_run_by_hash(digest["h"])
            if existing is not None:
                raise _AlreadyImported(existing.run_id, existing.name)
            writer.finish(digest["h"])
    finally:
        if gc_was_enabled:
            gc.enable()
    return IngestResult(
        run_id=run_id,
        name=meta.name,
        created=True,
        source_format=fmt,
        profiles=writer.n_profiles,
        messages=writer.n_messages,
        verdicts=writer.n_verdicts,
    )


def _continued(store: Store, path: Path) -> IngestResult | None:
    """An Inspect log of a run imported before: its new REVEAL scores added as judges."""
    found = continue_inspect_run(store, path)
    if found is None:
        return None
    return IngestResult(
        run_id=found.run_id,
        name=found.name,
        created=False,
        source_format=SourceFormat.INSPECT,
        verdicts=found.verdicts,
        judges_added=found.judges,
    )


def _write_records(
    store: Store,
    writer: RunWriter,
    path: Path,
    records: Iterable[ProfileRecord],
    readers: int | None,
    progress: Progress | None,
) -> None:
    """Every record's tables appended, read here or (an official file read from the middle) by
    several processes."""
    readers = readers_for(path) if readers is None else readers
    with store.bulk_appender(threads=1 if readers > 1 else None) as appender:
        if readers > 1:
            _write_in_parallel(appender, writer, path, readers, progress)
            return
        for rec in records:
            appender.put(writer.tables(rec))


def _write_in_parallel(
    appender: BulkAppender, writer: RunWriter, path: Path, readers: int, progress: Progress | None
) -> None:
    """An official file's spans read by ``readers`` processes (:mod:`cimem.ingest.parallel`),
    appended in file order with their ids moved past the spans before them."""
    total = path.stat().st_size
    for part in span_tables(path, writer.run_id, writer.judge_id, readers):
        appender.put(part.tables, shift=writer.offsets(part.counts.messages))
        writer.absorb(part.counts)
        if progress:
            progress(part.end, total)
    if not writer.n_profiles:
        raise empty_file(path)


class _AlreadyImported(Exception):
    def __init__(self, run_id: int, name: str):
        self.run_id, self.name = run_id, name


def ingest_or_find(store: Store, path: str | Path, **kwargs: Any) -> IngestResult:
    """Like :func:`ingest_file`, but a file already imported returns its run with created=False."""
    try:
        return ingest_file(store, path, **kwargs)
    except _AlreadyImported as dup:
        return IngestResult(
            run_id=dup.run_id,
            name=dup.name,
            created=False,
            source_format=kwargs.get("fmt") or detect_format(Path(path)),
        )
