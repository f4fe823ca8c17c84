"""Re-judging: run a judge over one message, a filtered set or a whole run, as a NEW judge entry.

Nothing is overwritten: every re-judge is a judge with its provenance (kind, model, prompt hash,
time, settings), and the metrics take a judge id. The offline judge is the default when no endpoint
is configured; LLM judges plug in through the same :class:`Judge` interface (see ``llm_judge``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import orjson
import pyarrow as pa

from cimem.errors import CimemError
from cimem.judges.offline import OFFLINE_JUDGE_VERSION, AttributeSpec, judge_offline
from cimem.llm.prompts import memory_lines, profile_bio
from cimem.store import JudgeKind, JudgmentStatus, MessageStatus, MessageToJudge, Store


@dataclass
class JudgeOutcome:
    """One message judged: revealed keys with evidence, or a failure with the raw reply."""

    revealed: dict[str, str]
    status: JudgmentStatus = JudgmentStatus.OK
    raw: str | None = None
    unmatched: list[str] = field(default_factory=list)
    cached: bool = False


class Judge(Protocol):
    """What re-judging needs of a judge (read-only, so an offline judge's ``model = None`` and an
    LLM judge's model name both fit)."""

    @property
    def kind(self) -> JudgeKind: ...

    @property
    def model(self) -> str | None: ...

    @property
    def name(self) -> str: ...

    def prompt_hash(self) -> str | None: ...

    def config(self) -> dict[str, Any]: ...

    def judge_many(
        self,
        items: list[tuple[str, list[AttributeSpec], str]],
        progress: Callable[[int, int], None] | None = None,
    ) -> list[JudgeOutcome]: ...


class OfflineJudge:
    """The deterministic offline judge (see :mod:`cimem.judges.offline`)."""

    kind = JudgeKind.OFFLINE
    model = None

    def __init__(self, name: str = "offline judge"):
        self.name = name

    def prompt_hash(self) -> str:
        return hashlib.sha256(OFFLINE_JUDGE_VERSION.encode()).hexdigest()[:16]

    def config(self) -> dict[str, Any]:
        return {"version": OFFLINE_JUDGE_VERSION}

    def judge_many(
        self,
        items: list[tuple[str, list[AttributeSpec], str]],
        progress: Callable[[int, int], None] | None = None,
    ) -> list[JudgeOutcome]:
        out = []
        for i, (message, attrs, person) in enumerate(items):
            out.append(JudgeOutcome(judge_offline(message, attrs, person)))
            if progress and (i % 50 == 0 or i + 1 == len(items)):
                progress(i + 1, len(items))
        return out


@dataclass
class RejudgeResult:
    judge_id: int
    messages: int
    verdicts: int
    parse_failures: int
    errors: int
    cached: int
    seconds: float


def attribute_specs(
    store: Store, run_id: int, values_from: int | None = None
) -> dict[int, list[tuple[int, AttributeSpec]]]:
    """Per profile: (attr_id, spec) with values decoded; missing values filled from another run's
    attributes of the same profile name and key when ``values_from`` is given."""
    fill = store.values_by_name(values_from) if values_from is not None else {}
    profiles = {p.profile_id: p for p in store.profiles_of(run_id)}
    rows: dict[int, list[tuple[int, str, Any, str | None]]] = {}
    for a in store.attributes_of(run_id):
        value_json = a.value_json
        if value_json is None:
            value_json = fill.get((profiles[a.profile_id].name, a.key))
        value = orjson.loads(value_json) if value_json is not None else None
        rows.setdefault(a.profile_id, []).append((a.attr_id, a.key, value, a.memory_statement))
    out: dict[int, list[tuple[int, AttributeSpec]]] = {}
    for pid, attrs in rows.items():
        p = profiles[pid]
        bio = profile_bio(p.name, p.sex, p.address, p.age, p.bio_json)
        lines = memory_lines(bio, [(key, value, stmt) for _, key, value, stmt in attrs])
        out[pid] = [
            (attr_id, AttributeSpec(key, value, stmt, line))
            for (attr_id, key, value, stmt), line in zip(attrs, lines)
        ]
    return out


def rejudge(
    store: Store,
    run_id: int,
    judge: Judge,
    *,
    profile: str | None = None,
    context: int | None = None,
    trial: int | None = None,
    message_ids: list[int] | None = None,
    limit: int | None = None,
    values_from: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    audit: bool = False,
) -> RejudgeResult:
    """Judge the selected messages of a run with ``judge`` and store them as a new judge; with
    ``audit``, add them to the run's one audit judge of this model and prompt instead (a message
    judged there before is replaced), so re-judging messages one by one builds one judge."""
    start = time.perf_counter()
    rows = store.messages_to_judge(run_id, profile, context, trial, message_ids, limit)
    if not rows:
        raise CimemError(f"run {run_id} has no generated message matching the selection")
    specs = attribute_specs(store, run_id, values_from)
    items = [(m.text, [s for _, s in specs.get(m.profile_id, [])], m.profile) for m in rows]
    outcomes = judge.judge_many(items, progress)
    cfg = judge.config() | {
        "selection": {
            "profile": profile,
            "context": context,
            "trial": trial,
            "messages": len(rows),
            "limit": limit,
            "values_from": values_from,
        }
    }

    def store_judge() -> tuple[int, int]:
        judge_id = _judge_to_write(store, run_id, judge, rows, cfg, audit)
        return judge_id, store_outcomes(store, judge_id, rows, specs, outcomes)

    judge_id, n_verdicts = store.write(store_judge, f"run {run_id}: storing the judge's verdicts")
    return _rejudge_result(judge_id, len(rows), n_verdicts, outcomes, start)


def _judge_to_write(
    store: Store,
    run_id: int,
    judge: Judge,
    rows: list[MessageToJudge],
    cfg: dict[str, Any],
    audit: bool,
) -> int:
    """The judge the outcomes go to: a new one recording ``cfg``, or with ``audit`` the run's
    audit judge of this model and prompt, whose earlier judgments of these messages are dropped
    so each message keeps its latest judgment."""
    if not audit:
        return new_judge(store, run_id, judge, cfg)
    judge_id = store.get_or_create_audit_judge(
        run_id=run_id,
        name=judge.name,
        kind=judge.kind,
        model=judge.model,
        prompt_hash=judge.prompt_hash(),
    )
    store.forget_judgments(judge_id, [m.message_id for m in rows])
    return judge_id


def new_judge(store: Store, run_id: int, judge: Judge, config: dict[str, Any]) -> int:
    """A new judge of the run, recording how ``judge`` judges and ``config``; named apart
    (``offline judge (2)``) from a judge of the run with the same name, kind, model and prompt,
    so that the two never read as one in a picker or a table."""
    return store.create_judge(
        run_id=run_id,
        name=name_apart(store, run_id, judge),
        kind=judge.kind,
        model=judge.model,
        prompt_hash=judge.prompt_hash(),
        config=orjson.dumps(config).decode(),
    )


def name_apart(store: Store, run_id: int, judge: Judge) -> str:
    """``judge``'s name, or with the first free ``(2)``, ``(3)``... when the run has a judge of
    that name with the same kind, model and prompt."""
    names = {j.name for j in store.judges(run_id)}
    same = any(
        (j.name, j.kind, j.model, j.prompt_hash)
        == (judge.name, judge.kind, judge.model, judge.prompt_hash())
        for j in store.judges(run_id)
    )
    if not same:
        return judge.name
    return next(
        f"{judge.name} ({n})"
        for n in range(2, len(names) + 3)
        if f"{judge.name} ({n})" not in names
    )


def _rejudge_result(
    judge_id: int, messages: int, verdicts: int, outcomes: list[JudgeOutcome], start: float
) -> RejudgeResult:
    """The counts of a re-judge that began at ``start`` (a ``time.perf_counter()`` reading)."""
    statuses = [o.status for o in outcomes]
    return RejudgeResult(
        judge_id=judge_id,
        messages=messages,
        verdicts=verdicts,
        parse_failures=statuses.count(JudgmentStatus.PARSE_FAILURE),
        errors=statuses.count(JudgmentStatus.ERROR),
        cached=sum(o.cached for o in outcomes),
        seconds=time.perf_counter() - start,
    )


def store_outcomes(
    store: Store,
    judge_id: int,
    messages: list[MessageToJudge],
    specs: dict[int, list[tuple[int, AttributeSpec]]],
    outcomes: list[JudgeOutcome],
) -> int:
    """Append one judgment per message and, for parsed replies, a verdict for every attribute of
    the message's profile. Returns the number of verdicts written."""
    mids, aids, revs, evs = [], [], [], []
    j_mid, j_status, j_raw = [], [], []
    for message, outcome in zip(messages, outcomes):
        mid = message.message_id
        j_mid.append(mid)
        j_status.append(outcome.status)
        raw = outcome.raw
        if outcome.unmatched:  # keys the judge named that are no attribute: kept for the audit
            raw = orjson.dumps({"reply": outcome.raw, "unmatched_keys": outcome.unmatched}).decode()
        j_raw.append(raw)
        if outcome.status != JudgmentStatus.OK:
            continue
        for attr_id, spec in specs.get(message.profile_id, []):
            mids.append(mid)
            aids.append(attr_id)
            evidence = outcome.revealed.get(spec.key)
            revs.append(evidence is not None)
            evs.append(evidence)
    store.append(
        "judgments",
        pa.table(
            {
                "judge_id": np.full(len(j_mid), judge_id, np.int32),
                "message_id": np.array(j_mid, np.int64),
                "status": pa.array(j_status, pa.string()),
                "raw": pa.array(j_raw, pa.string()),
            }
        ),
    )
    if mids:
        store.append(
            "verdicts",
            pa.table(
                {
                    "judge_id": np.full(len(mids), judge_id, np.int32),
                    "message_id": np.array(mids, np.int64),
                    "attr_id": np.array(aids, np.int32),
                    "revealed": np.array(revs, np.bool_),
                    "evidence": pa.array(evs, pa.string()),
                }
            ),
        )
    return len(mids)


def judge_message(
    store: Store, message_id: int, judge: Judge, values_from: int | None = None
) -> tuple[JudgeOutcome, float]:
    """Judge one stored message without storing anything: (outcome, seconds)."""
    detail = store.message_detail(message_id)
    if detail is None:
        raise CimemError(f"no message {message_id}")
    if detail.status != MessageStatus.OK or detail.text is None:
        raise CimemError(f"message {message_id} has no text: its generation failed")
    specs = attribute_specs(store, detail.run_id, values_from)
    start = time.perf_counter()
    outcome = judge.judge_many(
        [(detail.text, [s for _, s in specs.get(detail.profile_id, [])], detail.profile)]
    )[0]
    return outcome, time.perf_counter() - start
