"""The one writer: profile records of a run become Arrow tables with database ids."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import orjson
import pyarrow as pa

from cimem.ingest.records import ENDING_COLUMNS, ProfileRecord, RunMeta
from cimem.store import RunKind, Store


@dataclass(frozen=True)
class WriterCounts:
    """What a writer wrote: profiles, attributes, messages, verdicts, the most trials of a
    context, and whether there were messages or labels."""

    profiles: int
    attributes: int
    messages: int
    verdicts: int
    max_trials: int
    has_messages: bool
    has_labels: bool


class RunWriter:
    """Writes profile records of one run, turning local indices into database ids."""

    def __init__(self, store: Store | None):
        self.store = store
        self.n_profiles = self.n_messages = self.n_verdicts = 0
        self.next_attr = self.next_message = 0
        self.max_trials = 0
        self.has_messages = self.has_labels = False

    @classmethod
    def detached(cls, run_id: int, judge_id: int | None) -> RunWriter:
        """A writer of tables only (another process's, for a span of a file), its profiles,
        attributes and messages numbered from zero (:mod:`cimem.ingest.parallel`)."""
        writer = cls(None)
        writer.run_id, writer.judge_id, writer.next_message = run_id, judge_id, 0
        return writer

    def counts(self) -> WriterCounts:
        return WriterCounts(
            self.n_profiles,
            self.next_attr,
            self.n_messages,
            self.n_verdicts,
            self.max_trials,
            self.has_messages,
            self.has_labels,
        )

    def offsets(self, messages: int) -> dict[str, int]:
        """Where a span written by a detached writer goes (with ``messages`` messages): its ids
        move past what is written."""
        return {
            "profile_id": self.n_profiles,
            "attr_id": self.next_attr,
            "message_id": self._message_block(messages),
        }

    def _message_block(self, count: int) -> int:
        """The first id of the next ``count`` messages: numbered on from the run's start on a
        file; a block reserved on a lake (other writers add messages meanwhile)."""
        if self.store is not None and self.store.lake and count:
            self.next_message = self.store.reserve_ids("message", count)
        return self.next_message

    def absorb(self, counts: WriterCounts) -> None:
        """Count a span written by a detached writer as written here."""
        self.n_profiles += counts.profiles
        self.next_attr += counts.attributes
        self.next_message += counts.messages
        self.n_messages += counts.messages
        self.n_verdicts += counts.verdicts
        self.max_trials = max(self.max_trials, counts.max_trials)
        self.has_messages |= counts.has_messages
        self.has_labels |= counts.has_labels

    def start(self, meta: RunMeta, source: str) -> int:
        assert self.store is not None
        self.meta = meta
        self.run_id = self.store.create_run(
            name=meta.name,
            kind=meta.kind,
            source_format=meta.source_format,
            source=source,
            content_hash=None,
            model=meta.model,
            prompt_set=meta.prompt_set,
            level=meta.level,
            memory_format=meta.memory_format,
            simulated=meta.simulated,
            config=orjson.dumps(meta.config).decode(),
        )
        self.judge_id = None
        if meta.judge is not None:
            j = meta.judge
            self.judge_id = self.store.create_judge(
                run_id=self.run_id,
                name=j.name,
                kind=j.kind,
                model=j.model,
                prompt_hash=j.prompt_hash,
                config=orjson.dumps(j.config).decode(),
            )
        if not self.store.lake:
            self.next_message = self.store.next_message_id()
        return self.run_id

    def tables(self, rec: ProfileRecord) -> list[tuple[str, pa.Table]]:
        """The Arrow tables of one profile record, with database ids; counts what it wrote."""
        a0, m0 = self.next_attr, self._message_block(rec.n_messages)
        built = (
            ("profiles", self._profile_table(rec)),
            ("attributes", self._attribute_table(rec, a0)),
            ("contexts", self._context_table(rec)),
            ("persona_labels", self._persona_label_table(rec, a0)),
            ("hard_labels", self._hard_label_table(rec, a0)),
            ("messages", self._message_table(rec, m0)),
            ("judgments", self._judgment_table(rec, m0)),
            ("verdicts", self._verdict_table(rec, a0, m0)),
        )
        out = [(name, table) for name, table in built if table is not None]
        self.next_attr += len(rec.attributes)
        self.next_message += rec.n_messages
        self.n_messages += rec.n_messages
        self.n_profiles += 1
        return out

    def _owner(self, n: int) -> dict[str, np.ndarray]:
        """The run and profile id columns of ``n`` rows of the profile being written."""
        return {
            "run_id": np.full(n, self.run_id, np.int32),
            "profile_id": np.full(n, self.n_profiles, np.int32),
        }

    def _profile_table(self, rec: ProfileRecord) -> pa.Table:
        return pa.table(
            {
                "run_id": [self.run_id],
                "profile_id": [self.n_profiles],
                "name": [rec.name],
                "sex": [rec.sex],
                "address": [rec.address],
                "age": [rec.age],
                "bio_json": [rec.bio_json],
            }
        )

    def _attribute_table(self, rec: ProfileRecord, a0: int) -> pa.Table | None:
        n_attr = len(rec.attributes)
        if not n_attr:
            return None
        attrs = rec.attributes
        return pa.table(
            {
                **self._owner(n_attr),
                "attr_id": np.arange(a0, a0 + n_attr, dtype=np.int32),
                "key": [a.key for a in attrs],
                "value_json": pa.array([a.value_json for a in attrs], pa.string()),
                "domain": pa.array([a.domain for a in attrs], pa.string()),
                "event": pa.array([a.event for a in attrs], pa.string()),
                "memory_statement": pa.array([a.memory_statement for a in attrs], pa.string()),
            }
        )

    def _context_table(self, rec: ProfileRecord) -> pa.Table | None:
        n_ctx = len(rec.contexts)
        if not n_ctx:
            return None
        return pa.table(
            {
                **self._owner(n_ctx),
                "ctx_idx": np.arange(n_ctx, dtype=np.int32),
                "recipient": [c[0] for c in rec.contexts],
                "task": [c[1] for c in rec.contexts],
                "prompt": pa.array([c[2] for c in rec.contexts], pa.string()),
            }
        )

    def _persona_label_table(self, rec: ProfileRecord, a0: int) -> pa.Table | None:
        pl = rec.persona_labels
        if not (pl and len(pl["attr_idx"])):
            return None
        fr = pl["fractions"]
        self.has_labels = True
        return pa.table(
            {
                **self._owner(len(pl["attr_idx"])),
                "ctx_idx": pl["ctx_idx"],
                "attr_id": pl["attr_idx"] + a0,
                "persona": pa.DictionaryArray.from_arrays(
                    pl["persona_code"], pa.array(pl["personas"], pa.string())
                ),
                "necessary": fr[:, 0],
                "private": fr[:, 1],
                "unlabeled": fr[:, 2],
            }
        )

    def _hard_label_table(self, rec: ProfileRecord, a0: int) -> pa.Table | None:
        hl = rec.hard_labels
        if not (hl and len(hl["attr_idx"])):
            return None
        self.has_labels = True
        return pa.table(
            {
                **self._owner(len(hl["attr_idx"])),
                "ctx_idx": np.asarray(hl["ctx_idx"], np.int32),
                "attr_id": np.asarray(hl["attr_idx"], np.int32) + a0,
                "label": pa.array(hl["label"], pa.string()),
            }
        )

    def _message_table(self, rec: ProfileRecord, m0: int) -> pa.Table | None:
        n_msg = rec.n_messages
        if not n_msg:
            return None
        m = rec.messages
        self.has_messages = True
        self.max_trials = max(self.max_trials, _trials_per_context(m))
        return pa.table(
            {
                "message_id": np.arange(m0, m0 + n_msg, dtype=np.int64),
                **self._owner(n_msg),
                "ctx_idx": pa.array(m["ctx_idx"], pa.int32()),
                "trial": pa.array(m["trial"], pa.int32()),
                "num_to_share": pa.array(m["num_to_share"], pa.int32()),
                "num_not_to_share": pa.array(m["num_not_to_share"], pa.int32()),
                "shared_json": pa.array(m["shared_json"], pa.string()),
                "prompt": pa.array(m["prompt"], pa.string()),
                "text": pa.array(m["text"], pa.string()),
                "status": pa.array(m["status"], pa.string()),
                "error": pa.array(m["error"], pa.string()),
                **_optional(m, n_msg),
            }
        )

    def _judgment_table(self, rec: ProfileRecord, m0: int) -> pa.Table | None:
        j = rec.judgments
        if not (j and j["msg_idx"]):
            return None
        self._need_judge()
        return pa.table(
            {
                "judge_id": np.full(len(j["msg_idx"]), self.judge_id, np.int32),
                "message_id": np.asarray(j["msg_idx"], np.int64) + m0,
                "status": pa.array(j["status"], pa.string()),
                "raw": pa.array(j["raw"], pa.string()),
            }
        )

    def _verdict_table(self, rec: ProfileRecord, a0: int, m0: int) -> pa.Table | None:
        v = rec.verdicts
        if not (v and len(v["msg_idx"])):
            return None
        self._need_judge()
        n = len(v["msg_idx"])
        self.n_verdicts += n
        return pa.table(
            {
                "judge_id": np.full(n, self.judge_id, np.int32),
                "message_id": np.asarray(v["msg_idx"], np.int64) + m0,
                "attr_id": np.asarray(v["attr_idx"], np.int32) + a0,
                "revealed": np.asarray(v["revealed"], np.bool_),
                "evidence": pa.array(v["evidence"], pa.string()),
            }
        )

    def _need_judge(self) -> None:
        if self.judge_id is None:
            raise RuntimeError("importer produced verdicts without declaring a judge")

    def finish(self, content_hash: str) -> None:
        assert self.store is not None
        self.store.finish_run(
            self.run_id,
            content_hash=content_hash,
            n_trials=self.max_trials if self.has_messages else None,
            kind=self.meta.kind
            if self.has_messages or self.meta.kind != RunKind.RESULTS
            else ("labels" if self.has_labels else "profiles"),
        )


_OPTIONAL_MESSAGE_COLUMNS = tuple(zip(ENDING_COLUMNS, (pa.string(), pa.int32(), pa.int32())))


def _optional(m: dict, n: int) -> dict[str, pa.Array]:
    """The message columns a format may lack (how each generation ended, its tokens): the
    reader's column when it has one, else NULL (not known) for all ``n``, with no work per
    message."""
    return {
        name: pa.array(m[name], type_) if name in m else pa.nulls(n, type_)
        for name, type_ in _OPTIONAL_MESSAGE_COLUMNS
    }


def _trials_per_context(m: dict) -> int:
    """The largest number of trials any (context, composition) has in this profile."""
    counts: dict[tuple, int] = {}
    for key in zip(m["ctx_idx"], m["num_to_share"], m["num_not_to_share"]):
        counts[key] = counts.get(key, 0) + 1
    return max(counts.values(), default=0)
