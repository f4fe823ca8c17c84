"""Importers: every source format becomes the same records, written to the store in one transaction.

``ingest_file`` detects the format (or takes it), streams the file through its reader, and writes
each profile as it comes. A failure anywhere rolls the whole import back; a file whose content hash
is already in the database is not imported again.
"""

from __future__ import annotations

import gc
import hashlib
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import orjson
import pyarrow as pa

from ..errors import CimemError, InputError
from ..store import Store
from .records import ProfileRecord, Progress, RunMeta

FORMATS = ("official", "profiles", "hf", "persistbench")


@dataclass(frozen=True)
class IngestResult:
    """What an import did: the run it made (or found), and how much it wrote."""

    run_id: int
    name: str
    created: bool            # False when the same content was already imported
    source_format: str
    profiles: int = 0
    messages: int = 0
    verdicts: int = 0


def detect_format(path: Path) -> str:
    """The source format of ``path``, from its extension and first bytes."""
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".csv"):
        return "hf"
    from .official import open_maybe_gzip

    with open_maybe_gzip(path) as f:
        head = f.read(4096)
    if not head.strip():
        raise InputError(str(path), "line 1", "(file)", "a non-empty results, profiles, Hugging Face "
                         "or PersistBench file", got="an empty file")
    if b"\x00" in head:
        raise InputError(str(path), "byte 1", "(file)", "a text (JSON/JSONL/CSV) or Parquet file",
                         got="binary data")
    first = head.lstrip()[:1]
    if first == b"[":
        return "profiles"
    if suffix == ".json" and first == b"{":
        return "persistbench" if b'"metadata"' in _read_prefix(path, 1 << 16) else "profiles"
    if first == b"{":
        line = _first_line(path)
        if b'"adv_reveal_prompt"' in line or (b'"attribute"' in line and b'"label"' in line
                                              and b'"information_attributes"' not in line):
            return "hf"
        return "official"
    raise InputError(str(path), "line 1", "(file)", "JSON lines, a JSON document, CSV or Parquet",
                     got=repr(head[:40]))


def _read_prefix(path: Path, n: int) -> bytes:
    from .official import open_maybe_gzip

    with open_maybe_gzip(path) as f:
        return f.read(n)


def _first_line(path: Path) -> bytes:
    from .official import open_maybe_gzip

    with open_maybe_gzip(path) as f:
        for line in f:
            if line.strip():
                return line
    return b""


def open_reader(path: Path, fmt: str, progress: Progress | None, model: str | None = None
                ) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    """The run metadata and the profile records of a file in format ``fmt``."""
    if fmt == "official":
        from .official import read_official
        meta = RunMeta(name=path.stem, kind="results", source_format="official",
                       prompt_set="official", memory_format="official",
                       judge=_official_judge())
        return meta, read_official(path, progress)
    if fmt == "profiles":
        from .profiles import read_profiles
        return read_profiles(path, progress)
    if fmt == "hf":
        from .hf import read_hf
        return read_hf(path, progress)
    if fmt == "persistbench":
        from .persistbench import read_persistbench
        return read_persistbench(path, progress, model)
    raise CimemError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


def _official_judge():
    from .records import JudgeMeta
    return JudgeMeta(name="original verdicts", kind="imported",
                     config={"note": "verdicts as stored in the official run-output file"})


def file_sha256(path: Path) -> str:
    with path.open("rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def ingest_file(store: Store, path: str | Path, *, name: str | None = None,
                model: str | None = None, fmt: str | None = None,
                progress: Progress | None = None, simulated: bool | None = None,
                level: int | None = None) -> IngestResult:
    """Import one file as a new run; all or nothing. Returns the run (new or already present)."""
    path = Path(path)
    if not path.is_file():
        raise CimemError(f"{path}: no such file")
    fmt = fmt or detect_format(path)
    digest: dict[str, str] = {}
    hasher = threading.Thread(target=lambda: digest.setdefault("h", file_sha256(path)), daemon=True)
    hasher.start()
    meta, records = open_reader(path, fmt, progress, model)
    if name:
        meta.name = name
    if model:
        meta.model = model
    if simulated is not None:
        meta.simulated = simulated
    if level is not None:
        meta.level = level
    writer = _RunWriter(store)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # millions of short-lived JSON objects: cyclic GC passes only cost time here
    try:
        with store.transaction():
            run_id = writer.start(meta, source=str(path))
            with store.bulk_appender() as appender:
                for rec in records:
                    appender.put(writer.tables(rec))
            hasher.join()
            existing = store.run_by_hash(digest["h"])
            if existing is not None:
                raise _AlreadyImported(*existing)
            writer.finish(digest["h"])
    finally:
        if gc_was_enabled:
            gc.enable()
    return IngestResult(run_id=run_id, name=meta.name, created=True, source_format=fmt,
                        profiles=writer.n_profiles, messages=writer.n_messages,
                        verdicts=writer.n_verdicts)


class _AlreadyImported(Exception):
    def __init__(self, run_id: int, name: str):
        self.run_id, self.name = run_id, name


def ingest_or_find(store: Store, path: str | Path, **kwargs) -> IngestResult:
    """Like :func:`ingest_file`, but a file already imported returns its run with created=False."""
    try:
        return ingest_file(store, path, **kwargs)
    except _AlreadyImported as dup:
        return IngestResult(run_id=dup.run_id, name=dup.name, created=False,
                            source_format=kwargs.get("fmt") or detect_format(Path(path)))


class _RunWriter:
    """Writes profile records of one run, turning local indices into database ids."""

    def __init__(self, store: Store):
        self.store = store
        self.n_profiles = self.n_messages = self.n_verdicts = 0
        self.next_attr = 0
        self.max_trials = 0
        self.has_messages = self.has_labels = False

    def start(self, meta: RunMeta, source: str) -> int:
        self.meta = meta
        self.run_id = self.store.create_run(
            name=meta.name, kind=meta.kind, source_format=meta.source_format, source=source,
            content_hash=None, model=meta.model, prompt_set=meta.prompt_set, level=meta.level,
            memory_format=meta.memory_format, simulated=meta.simulated,
            config=orjson.dumps(meta.config).decode())
        self.judge_id = None
        if meta.judge is not None:
            j = meta.judge
            self.judge_id = self.store.create_judge(
                run_id=self.run_id, name=j.name, kind=j.kind, model=j.model,
                prompt_hash=j.prompt_hash, config=orjson.dumps(j.config).decode())
        self.next_message = self.store.next_message_id()
        return self.run_id

    def tables(self, rec: ProfileRecord) -> list[tuple[str, pa.Table]]:
        """The Arrow tables of one profile record, with database ids; counts what it wrote."""
        run, pid = self.run_id, self.n_profiles
        out: list[tuple[str, pa.Table]] = []
        out.append(("profiles", pa.table({
            "run_id": [run], "profile_id": [pid], "name": [rec.name], "sex": [rec.sex],
            "address": [rec.address], "age": [rec.age], "bio_json": [rec.bio_json]})))
        a0 = self.next_attr
        n_attr = len(rec.attributes)
        if n_attr:
            out.append(("attributes", pa.table({
                "run_id": np.full(n_attr, run, np.int32), "profile_id": np.full(n_attr, pid, np.int32),
                "attr_id": np.arange(a0, a0 + n_attr, dtype=np.int32),
                "key": [a.key for a in rec.attributes],
                "value_json": pa.array([a.value_json for a in rec.attributes], pa.string()),
                "domain": pa.array([a.domain for a in rec.attributes], pa.string()),
                "event": pa.array([a.event for a in rec.attributes], pa.string()),
                "memory_statement": pa.array([a.memory_statement for a in rec.attributes], pa.string()),
            })))
        n_ctx = len(rec.contexts)
        if n_ctx:
            out.append(("contexts", pa.table({
                "run_id": np.full(n_ctx, run, np.int32), "profile_id": np.full(n_ctx, pid, np.int32),
                "ctx_idx": np.arange(n_ctx, dtype=np.int32),
                "recipient": [c[0] for c in rec.contexts], "task": [c[1] for c in rec.contexts],
                "prompt": pa.array([c[2] for c in rec.contexts], pa.string())})))
        pl = rec.persona_labels
        if pl and len(pl["attr_idx"]):
            n = len(pl["attr_idx"])
            fr = pl["fractions"]
            out.append(("persona_labels", pa.table({
                "run_id": np.full(n, run, np.int32), "profile_id": np.full(n, pid, np.int32),
                "ctx_idx": pl["ctx_idx"], "attr_id": pl["attr_idx"] + a0,
                "persona": pa.array(pl["persona"], pa.string()).dictionary_encode(),
                "necessary": fr[:, 0], "private": fr[:, 1], "unlabeled": fr[:, 2]})))
            self.has_labels = True
        hl = rec.hard_labels
        if hl and len(hl["attr_idx"]):
            n = len(hl["attr_idx"])
            out.append(("hard_labels", pa.table({
                "run_id": np.full(n, run, np.int32), "profile_id": np.full(n, pid, np.int32),
                "ctx_idx": np.asarray(hl["ctx_idx"], np.int32),
                "attr_id": np.asarray(hl["attr_idx"], np.int32) + a0,
                "label": pa.array(hl["label"], pa.string())})))
            self.has_labels = True
        m0 = self.next_message
        n_msg = rec.n_messages
        if n_msg:
            m = rec.messages
            out.append(("messages", pa.table({
                "message_id": np.arange(m0, m0 + n_msg, dtype=np.int64),
                "run_id": np.full(n_msg, run, np.int32), "profile_id": np.full(n_msg, pid, np.int32),
                "ctx_idx": pa.array(m["ctx_idx"], pa.int32()), "trial": pa.array(m["trial"], pa.int32()),
                "num_to_share": pa.array(m["num_to_share"], pa.int32()),
                "num_not_to_share": pa.array(m["num_not_to_share"], pa.int32()),
                "shared_json": pa.array(m["shared_json"], pa.string()),
                "prompt": pa.array(m["prompt"], pa.string()), "text": pa.array(m["text"], pa.string()),
                "status": pa.array(m["status"], pa.string()),
                "error": pa.array(m["error"], pa.string())})))
            self.has_messages = True
            self.max_trials = max(self.max_trials, _trials_per_context(m))
        j = rec.judgments
        if j and j["msg_idx"]:
            self._need_judge()
            n = len(j["msg_idx"])
            out.append(("judgments", pa.table({
                "judge_id": np.full(n, self.judge_id, np.int32),
                "message_id": np.asarray(j["msg_idx"], np.int64) + m0,
                "status": pa.array(j["status"], pa.string()), "raw": pa.array(j["raw"], pa.string())})))
        v = rec.verdicts
        if v and len(v["msg_idx"]):
            self._need_judge()
            n = len(v["msg_idx"])
            out.append(("verdicts", pa.table({
                "judge_id": np.full(n, self.judge_id, np.int32),
                "message_id": np.asarray(v["msg_idx"], np.int64) + m0,
                "attr_id": np.asarray(v["attr_idx"], np.int32) + a0,
                "revealed": np.asarray(v["revealed"], np.bool_),
                "evidence": pa.array(v["evidence"], pa.string())})))
            self.n_verdicts += n
        self.next_attr += n_attr
        self.next_message += n_msg
        self.n_messages += n_msg
        self.n_profiles += 1
        return out

    def _need_judge(self) -> None:
        if self.judge_id is None:
            raise RuntimeError("importer produced verdicts without declaring a judge")

    def finish(self, content_hash: str) -> None:
        self.store.finish_run(self.run_id, content_hash=content_hash,
                              n_trials=self.max_trials if self.has_messages else None,
                              kind=self.meta.kind if self.has_messages or self.meta.kind != "results"
                              else ("labels" if self.has_labels else "profiles"))


def _trials_per_context(m: dict) -> int:
    """The largest number of trials any (context, composition) has in this profile."""
    counts: dict[tuple, int] = {}
    for key in zip(m["ctx_idx"], m["num_to_share"], m["num_not_to_share"]):
        counts[key] = counts.get(key, 0) + 1
    return max(counts.values(), default=0)

