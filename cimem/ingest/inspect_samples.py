"""The CIMemories Inspect task's samples as records: what each sample's metadata carries (its
profile, context, labels and memory), what the REVEAL scorer records of each message, and how a
log's samples become the profile records every importer emits.

One module holds both directions, so the task (:mod:`cimem.inspect_eval`), the task's own metrics
and ``cimem ingest run.eval`` read a sample the same way: one number everywhere. Nothing here
imports Inspect; the log reader (:mod:`cimem.ingest.inspect_log`) does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import orjson

from cimem.ingest.records import ENDING_COLUMNS, MESSAGE_COLUMNS, Attribute, ProfileRecord
from cimem.store.enums import JudgmentStatus, MessageStatus

SCHEMA = "cimem.inspect/1"
"""The version of the sample metadata below; a log of another version is refused."""
TASK_NAME = "cimemories"
TASK_VERSION = 1  # the Inspect task's version, in its logs and in the logs cimem exports
SCORER = "reveal"  # the REVEAL scorer's name, the key of its scores in a log


def sample_metadata(
    rec: ProfileRecord,
    profile_index: int,
    ctx_idx: int,
    keep: list[str] | None = None,
    shared: tuple[list[str], list[str]] | None = None,
) -> dict[str, Any]:
    """What a sample carries of its profile: the person, every attribute (the judge's list), the
    profile's contexts, this context's labels, and (composition) the attributes in memory."""
    pl, hl = rec.persona_labels, rec.hard_labels
    rows: list[list[Any]] = []
    if pl and len(pl["attr_idx"]):
        at = np.flatnonzero(np.asarray(pl["ctx_idx"]) == ctx_idx)
        rows = [
            [
                int(pl["attr_idx"][i]),
                pl["personas"][int(pl["persona_code"][i])],
                *(float(x) for x in pl["fractions"][i]),
            ]
            for i in at
        ]
    hard: list[list[Any]] = []
    if hl and len(hl["attr_idx"]):
        hard = [
            [int(a), str(label)]
            for c, a, label in zip(hl["ctx_idx"], hl["attr_idx"], hl["label"])
            if int(c) == ctx_idx
        ]
    recipient, task, _ = rec.contexts[ctx_idx]
    return {
        "cimem": SCHEMA,
        "profile": rec.name,
        "profile_index": profile_index,
        "context": ctx_idx,
        "recipient": recipient,
        "task": task,
        "person": {"sex": rec.sex, "address": rec.address, "age": rec.age, "bio": rec.bio_json},
        "attributes": [
            [a.key, a.value_json, a.domain, a.event, a.memory_statement] for a in rec.attributes
        ],
        "contexts": [[r, t] for r, t, _ in rec.contexts],
        "labels": {"personas": rows, "hard": hard},
        "keep": keep,
        "shared": [list(shared[0]), list(shared[1])] if shared else None,
    }


@dataclass
class Judged:
    """What the REVEAL scorer recorded of one message: how the judging ended (ok, parse_failure,
    error), the revealed keys with their evidence, and the judge's raw reply."""

    status: str
    revealed: dict[str, str] = field(default_factory=dict)
    raw: str | None = None
    unmatched: list[str] = field(default_factory=list)

    def as_metadata(self, trial: int) -> dict[str, Any]:
        return {
            "trial": trial,
            "status": self.status,
            "revealed": self.revealed,
            "raw": self.raw,
            "unmatched": self.unmatched,
        }

    @classmethod
    def from_metadata(cls, meta: dict[str, Any]) -> Judged:
        return cls(
            str(meta["status"]),
            {str(k): str(v) for k, v in (meta.get("revealed") or {}).items()},
            meta.get("raw"),
            [str(k) for k in meta.get("unmatched") or []],
        )


@dataclass
class LoggedSample:
    """One sample of one epoch as a log (or the task's metrics) holds it."""

    metadata: dict[str, Any]
    trial: int
    prompt: str | None
    text: str | None  # None: the generation failed
    error: str | None = None
    judged: Judged | None = None  # None: not scored by this judge
    finish_reason: str | None = None  # how the generation ended, as Inspect says
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


def _order(s: LoggedSample) -> tuple[int, int, int, int]:
    shared = s.metadata.get("shared")
    return (
        int(s.metadata["profile_index"]),
        int(s.metadata["context"]),
        len(shared[1]) if shared else -1,
        s.trial,
    )


def records_from_samples(samples: Iterable[LoggedSample]) -> list[ProfileRecord]:
    """One profile record per profile of the samples, in the task's profile order, each with its
    messages in (context, composition step, trial) order, their judgments and verdicts."""
    by_profile: dict[int, list[LoggedSample]] = {}
    for s in sorted(samples, key=_order):
        by_profile.setdefault(int(s.metadata["profile_index"]), []).append(s)
    return [_record(group) for _, group in sorted(by_profile.items())]


def _record(samples: list[LoggedSample]) -> ProfileRecord:
    first = samples[0].metadata
    person = first["person"]
    rec = ProfileRecord(
        name=str(first["profile"]),
        sex=person.get("sex"),
        address=person.get("address"),
        age=person.get("age"),
        bio_json=person.get("bio"),
        attributes=[Attribute(*row) for row in first["attributes"]],
        contexts=[(r, t, None) for r, t in first["contexts"]],
    )
    _labels(rec, samples)
    index = {a.key: i for i, a in enumerate(rec.attributes)}
    msg: dict[str, list] = {k: [] for k in _MESSAGE_KEYS}
    jud: dict[str, list] = {"msg_idx": [], "status": [], "raw": []}
    ver: dict[str, list] = {"msg_idx": [], "attr_idx": [], "revealed": [], "evidence": []}
    for m, s in enumerate(samples):
        _message(msg, s)
        if s.text is not None and s.judged is not None:
            judgment_rows(jud, ver, m, s.judged, index)
    rec.messages, rec.judgments = msg, jud
    if ver["msg_idx"]:
        rec.verdicts = {
            "msg_idx": np.array(ver["msg_idx"], np.int32),
            "attr_idx": np.array(ver["attr_idx"], np.int32),
            "revealed": np.array(ver["revealed"], np.bool_),
            "evidence": ver["evidence"],
        }
    return rec


def _labels(rec: ProfileRecord, samples: list[LoggedSample]) -> None:
    """Each sampled context's labels, once (a context's epochs and steps carry the same)."""
    ctx, attr, persona, fractions, seen = [], [], [], [], set()
    hard: dict[str, list] = {"ctx_idx": [], "attr_idx": [], "label": []}
    for s in samples:
        c = int(s.metadata["context"])
        if c in seen:
            continue
        seen.add(c)
        labels = s.metadata["labels"]
        for a, who, nec, priv, unl in labels["personas"]:
            ctx.append(c)
            attr.append(a)
            persona.append(who)
            fractions.append((nec, priv, unl))
        for a, label in labels["hard"]:
            hard["ctx_idx"].append(c)
            hard["attr_idx"].append(a)
            hard["label"].append(label)
    if attr:
        names = list(dict.fromkeys(persona))
        code = {n: i for i, n in enumerate(names)}
        rec.persona_labels = {
            "ctx_idx": np.array(ctx, np.int32),
            "attr_idx": np.array(attr, np.int32),
            "persona_code": np.array([code[p] for p in persona], np.int32),
            "personas": names,
            "fractions": np.array(fractions, np.float64).reshape(-1, 3),
        }
    if hard["attr_idx"]:
        rec.hard_labels = hard


_MESSAGE_KEYS = MESSAGE_COLUMNS + ENDING_COLUMNS


def _message(msg: dict[str, list], s: LoggedSample) -> None:
    shared = s.metadata.get("shared")
    keep = s.metadata.get("keep")
    failed = s.text is None
    values = (
        int(s.metadata["context"]),
        s.trial,
        len(keep) if keep is not None else None,
        len(shared[1]) if shared else None,
        orjson.dumps(shared).decode() if shared else None,
        s.prompt,
        s.text,
        MessageStatus.FAILED if failed else MessageStatus.OK,
        (s.error or "no message") if failed else None,
        s.finish_reason,
        s.prompt_tokens,
        s.completion_tokens,
    )
    for key, value in zip(_MESSAGE_KEYS, values):
        msg[key].append(value)


def judgment_rows(
    jud: dict[str, list], ver: dict[str, list], m: int, judged: Judged, index: dict[str, int]
) -> None:
    """Message ``m``'s judgment and, for a parsed reply, a verdict per attribute of ``index``
    (key -> attribute index or id), as :func:`cimem.judges.base.store_outcomes` writes them."""
    raw = judged.raw
    if judged.unmatched:
        raw = orjson.dumps({"reply": judged.raw, "unmatched_keys": judged.unmatched}).decode()
    jud["msg_idx"].append(m)
    jud["status"].append(judged.status)
    jud["raw"].append(raw)
    if judged.status != JudgmentStatus.OK:
        return
    for key, a in index.items():
        evidence = judged.revealed.get(key)
        ver["msg_idx"].append(m)
        ver["attr_idx"].append(a)
        ver["revealed"].append(evidence is not None)
        ver["evidence"].append(evidence)
