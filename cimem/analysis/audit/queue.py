"""The review queue: which messages of a run need a person's look, and how many are left.

A message enters the queue for what a reviewer would want to check: the judge found a private
attribute revealed (``leaked``), two judges disagree on some attribute (``disagree``), the judge's
reply could not be parsed (``parse_failure``) or its call failed (``judge_error``), an evidence
sentence does not occur in the message (``ungrounded``), the health scan flagged it (``flagged``:
a refusal, a truncated message, a placeholder left in, ...; :mod:`cimem.analysis.health`), or no
person has reviewed it yet (``unreviewed``). Every queue, the suggested sample's too, is narrowed
the same way: by what a reviewer typed (:class:`Narrowing`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from cimem.analysis.audit.message import evidence_grounded
from cimem.analysis.audit.reviewers import disputed
from cimem.analysis.audit.sample import SampleRow, draws_done
from cimem.analysis.choices import MESSAGE_FILTERS, QueueFilter
from cimem.analysis.cube import HARD_FROM_FRACTIONS
from cimem.analysis.health import flagged, scan
from cimem.analysis.labels import PRIVATE, LabelRule
from cimem.errors import CimemError
from cimem.store import (
    ContextRow,
    HumanVerdictRow,
    Judgment,
    JudgmentStatus,
    MessageToJudge,
    Store,
)
from cimem.store.columns import LabelColumns, QueueCells


@dataclass(frozen=True)
class QueueItem:
    """A message to review, with why it is in the queue."""

    message_id: int
    profile: str
    ctx_idx: int
    recipient: str
    task: str
    trial: int
    reasons: tuple[QueueFilter, ...]  # every filter it matches
    attributes: tuple[str, ...]  # keys behind the chosen filter (the judge's "yes" by default)
    reviewed: bool  # a person has recorded a verdict on this message (in every queue alike)
    cells_left: int | None = None  # the suggested sample: its cells of it no person decided yet


@dataclass(frozen=True)
class Queue:
    """The messages to review under one filter and judge, with what each filter counts."""

    items: list[QueueItem]
    filter: QueueFilter
    judge: int
    vs: int | None
    human_judge: int | None
    # messages matching each filter (ungrounded: only counted when it is the filter); the
    # suggested sample's progress (cells, cells_decided, draws, draws_decided) for SAMPLE
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def left(self) -> int:
        """Messages of the queue still to review: none of people's verdicts yet, or, in the
        suggested sample, a sampled cell not decided yet; every dispute in the queue of people's
        disagreements (reviewed by definition: an adjudication takes it off)."""
        if self.filter == QueueFilter.PEOPLE_DISAGREE:
            return len(self.items)
        return sum(not i.reviewed if i.cells_left is None else i.cells_left > 0 for i in self.items)

    def describe(self) -> str:
        """How many are left, of how many, under which filter and judge.

        >>> Queue([], "leaked", 1, None, None).describe()
        '0 of 0 left (filter leaked, judge 1)'
        """
        vs = f" vs {self.vs}" if self.vs is not None else ""
        return (
            f"{self.left} of {len(self.items)} left (filter {self.filter}, judge {self.judge}{vs})"
        )

    def neighbours(self, message_id: int | None) -> tuple[int | None, int | None]:
        """The previous and next message of the queue around ``message_id`` (the first item as
        next when the message is not in the queue)."""
        ids = [i.message_id for i in self.items]
        if message_id not in ids:
            return None, ids[0] if ids else None
        at = ids.index(message_id)
        return (ids[at - 1] if at > 0 else None, ids[at + 1] if at + 1 < len(ids) else None)


@dataclass(frozen=True)
class Narrowing:
    """What a reviewer typed to narrow a queue: each a substring, any case; empty keeps every
    message. ``task_or_recipient`` matches either; ``attribute`` a key behind the filter.

    >>> item = QueueItem(1, "Ana", 0, "doctor", "book a visit", 0, ("leaked",), ("health",), False)
    >>> Narrowing(profile="an", task_or_recipient="DOCTOR").keeps(item)
    True
    >>> Narrowing(attribute="income").keeps(item), Narrowing().active
    (False, False)
    """

    profile: str = ""
    task: str = ""
    recipient: str = ""
    task_or_recipient: str = ""
    attribute: str = ""

    @property
    def active(self) -> bool:
        """Whether it leaves out anything at all."""
        return any(
            (self.profile, self.task, self.recipient, self.task_or_recipient, self.attribute)
        )

    def keeps(self, item: QueueItem) -> bool:
        """Whether ``item`` matches every part that is set."""

        def has(part: str, text: str) -> bool:
            return not part or part.lower() in text.lower()

        either = self.task_or_recipient
        return (
            has(self.profile, item.profile)
            and has(self.task, item.task)
            and has(self.recipient, item.recipient)
            and (not either or has(either, item.task) or has(either, item.recipient))
            and (not self.attribute or any(has(self.attribute, a) for a in item.attributes))
        )


def narrow(queue: Queue, by: Narrowing) -> Queue:
    """The queue's items that ``by`` keeps, in their order; its counts stay the whole run's."""
    if not by.active:
        return queue
    return replace(queue, items=[i for i in queue.items if by.keeps(i)])


def review_queue(
    store: Store,
    run_id: int,
    judge: int | None = None,
    *,
    vs: int | None = None,
    filter: QueueFilter | str = QueueFilter.LEAKED,
    label_rule: str = "unanimous",
    profile: str | None = None,
    task: str | None = None,
    recipient: str | None = None,
    attribute: str | None = None,
) -> Queue:
    """The run's messages that match ``filter`` under ``judge`` (default: the run's original),
    narrowed by profile, task, recipient (substring, any case) and attribute key; sorted by
    profile, task, trial. ``disagree`` needs ``vs``, a second judge of the run."""
    filter = message_filter(filter)
    judge = _checked_judge(store, run_id, judge, vs, filter)
    human = store.find_human_judge(run_id)
    people = store.human_verdicts(human) if human is not None else []
    reviewed = {v.message_id for v in people}
    messages = store.messages_to_judge(run_id)
    hit, behind = _cells_behind(
        store, run_id, judge, vs, filter, LabelRule.parse(label_rule), messages
    )
    disputed = _disputed(store, run_id, people)
    hit[QueueFilter.PEOPLE_DISAGREE] = set(disputed)
    if filter == QueueFilter.PEOPLE_DISAGREE:
        behind = disputed
    contexts = {(c.profile_id, c.ctx_idx): c for c in store.contexts_of(run_id)}
    status = store.judgments_of(judge)
    other_status = store.judgments_of(vs) if vs is not None else {}
    items: list[QueueItem] = []
    counts: dict[str, int] = dict.fromkeys(MESSAGE_FILTERS, 0)
    for m in messages:
        flags = _flags(m.message_id, hit, status, other_status, vs, reviewed)
        for name, on in flags.items():
            counts[name] += on
        if flags[filter]:
            ctx = contexts[(m.profile_id, m.ctx_idx)]
            items.append(_item(m, ctx, flags, behind.get(m.message_id, ()), reviewed))
    items.sort(key=lambda i: (i.profile, i.ctx_idx, i.trial, i.message_id))
    for costly in (QueueFilter.UNGROUNDED, QueueFilter.FLAGGED):
        if filter != costly:
            del counts[costly]
    queue = Queue(items, filter, judge, vs, human, counts)
    return narrow(queue, Narrowing(profile or "", task or "", recipient or "", "", attribute or ""))


def message_filter(text: str) -> QueueFilter:
    """``text`` as a filter of messages (parsed once, where a person typed it).

    >>> message_filter("leaked") is QueueFilter.LEAKED
    True
    >>> message_filter("sample")
    Traceback (most recent call last):
    ...
    cimem.errors.CimemError: unknown filter 'sample'; choose one of leaked, disagree, \
parse_failure, judge_error, ungrounded, flagged, unreviewed, people_disagree
    """
    if text not in MESSAGE_FILTERS:
        raise CimemError(f"unknown filter {text!r}; choose one of {', '.join(MESSAGE_FILTERS)}")
    return QueueFilter(text)


def _checked_judge(
    store: Store, run_id: int, judge: int | None, vs: int | None, filter: QueueFilter
) -> int:
    """The judge the queue is under (the run's original by default), after checking that both
    judges are the run's."""
    judge = judge if judge is not None else store.find_default_judge(run_id)
    if judge is None:
        raise CimemError(f"run {run_id} has no judge yet: judge it with `python -m cimem judge`")
    known = {j.judge_id for j in store.judges(run_id)}
    for j in (judge, vs):
        if j is not None and j not in known:
            raise CimemError(f"judge {j} is not a judge of run {run_id}")
    if filter == QueueFilter.DISAGREE and vs is None:
        raise CimemError("the disagree filter compares two judges: give the second one (--vs)")
    return judge


def _cells_behind(
    store: Store,
    run_id: int,
    judge: int,
    vs: int | None,
    filter: QueueFilter,
    rule: LabelRule,
    messages: list[MessageToJudge],
) -> tuple[dict[QueueFilter, set[int]], dict[int, tuple[str, ...]]]:
    """Per cell filter (leaked, disagree, ungrounded) and the health scan's ``flagged``, the
    messages it hits; and per message the attribute keys behind ``filter`` (the judge's "yes"
    for a filter of whole messages)."""
    keys = {a.attr_id: a.key for a in store.attributes_of(run_id)}
    cells = store.queue_cells(run_id, judge, vs, evidence=filter == QueueFilter.UNGROUNDED)
    yes = np.asarray(cells["revealed"], bool)
    other = np.asarray(cells["other"], np.int8)
    private = _private_cells(store.label_columns(run_id), cells, rule)
    by_filter = {  # per filter, which cells are behind it
        QueueFilter.LEAKED: yes & private,
        QueueFilter.DISAGREE: (other >= 0) & (other != yes),
        QueueFilter.UNGROUNDED: np.zeros(len(yes), bool),
    }
    if filter == QueueFilter.UNGROUNDED:  # text matching is the slow part: only when asked for
        text = {m.message_id: m.text for m in messages}
        by_filter[QueueFilter.UNGROUNDED] = np.array(
            [
                bool(y) and evidence_grounded(ev, text[int(m)] or "") is False
                for m, y, ev in zip(cells["message_id"], yes, cells["evidence"])
            ],
            bool,
        )
    hit = {name: set(cells["message_id"][sel].tolist()) for name, sel in by_filter.items()}
    hit[QueueFilter.FLAGGED] = set()
    if filter == QueueFilter.FLAGGED:  # reads every message again: only when asked for
        health = scan(store.health_messages(run_id))
        hit[QueueFilter.FLAGGED] = set(health.loc[flagged(health), "message_id"].tolist())
    return hit, _attributes_by_message(cells, by_filter.get(filter, yes), keys)


def _disputed(
    store: Store, run_id: int, people: list[HumanVerdictRow]
) -> dict[int, tuple[str, ...]]:
    """Per message, the attribute keys its reviewers disagree on, not adjudicated yet."""
    pairs = disputed(people)
    if not pairs:
        return {}
    keys = {a.attr_id: a.key for a in store.attributes_of(run_id)}
    out: dict[int, list[str]] = {}
    for message_id, attr_id in pairs:
        out.setdefault(message_id, []).append(keys.get(attr_id, str(attr_id)))
    return {m: tuple(sorted(k)) for m, k in out.items()}


def _flags(
    message_id: int,
    hit: dict[QueueFilter, set[int]],
    status: dict[int, Judgment],
    other_status: dict[int, Judgment],
    vs: int | None,
    reviewed: set[int],
) -> dict[QueueFilter, bool]:
    """Which filters a message matches (in MESSAGE_FILTERS order)."""
    st = status.get(message_id)
    return {
        QueueFilter.LEAKED: message_id in hit[QueueFilter.LEAKED],
        QueueFilter.DISAGREE: message_id in hit[QueueFilter.DISAGREE]
        or (vs is not None and (message_id in status) != (message_id in other_status)),
        QueueFilter.PARSE_FAILURE: st is not None and st.status == JudgmentStatus.PARSE_FAILURE,
        QueueFilter.JUDGE_ERROR: st is not None and st.status == JudgmentStatus.ERROR,
        QueueFilter.UNGROUNDED: message_id in hit[QueueFilter.UNGROUNDED],
        QueueFilter.FLAGGED: message_id in hit[QueueFilter.FLAGGED],
        QueueFilter.UNREVIEWED: message_id not in reviewed,
        QueueFilter.PEOPLE_DISAGREE: message_id in hit[QueueFilter.PEOPLE_DISAGREE],
    }


def _item(
    m: MessageToJudge,
    ctx: ContextRow,
    flags: dict[QueueFilter, bool],
    attributes: tuple[str, ...],
    reviewed: set[int],
) -> QueueItem:
    return QueueItem(
        message_id=m.message_id,
        profile=m.profile,
        ctx_idx=m.ctx_idx,
        recipient=ctx.recipient,
        task=ctx.task,
        trial=m.trial,
        reasons=tuple(n for n, on in flags.items() if on),
        attributes=attributes,
        reviewed=m.message_id in reviewed,
    )


def _private_cells(labels: LabelColumns, cells: QueueCells, rule: LabelRule) -> np.ndarray:
    """Whether each cell's (profile, context, attribute) is labelled private under ``rule``."""
    hard = np.asarray(labels["hard"], np.int8)
    code = np.where(
        hard == HARD_FROM_FRACTIONS,
        rule.apply(
            np.nan_to_num(np.asarray(labels["necessary"], np.float64)),
            np.nan_to_num(np.asarray(labels["private"], np.float64)),
        ),
        hard,
    )
    is_private = code == PRIVATE

    def key(cols: LabelColumns | QueueCells) -> np.ndarray:
        return (
            np.asarray(cols["profile_id"], np.int64) << 42
            | np.asarray(cols["ctx_idx"], np.int64) << 32
            | np.asarray(cols["attr_id"], np.int64)
        )

    return np.isin(key(cells), key(labels)[is_private])


def _attributes_by_message(
    cells: QueueCells, selected: np.ndarray, keys: dict[int, str]
) -> dict[int, tuple[str, ...]]:
    """message_id -> the sorted keys of its ``selected`` cells."""
    mids = np.asarray(cells["message_id"], np.int64)[selected]
    attrs = np.asarray(cells["attr_id"], np.int64)[selected]
    order = np.argsort(mids, kind="stable")
    mids, attrs = mids[order], attrs[order]
    starts = np.flatnonzero(np.r_[True, mids[1:] != mids[:-1]]) if len(mids) else mids
    out: dict[int, tuple[str, ...]] = {}
    for lo, hi in zip(starts, [*starts[1:], len(mids)]):
        out[int(mids[lo])] = tuple(sorted(keys[int(a)] for a in attrs[lo:hi]))
    return out


def sample_queue(store: Store, run_id: int, judge: int, rows: list[SampleRow]) -> Queue:
    """A suggested audit sample as a queue, in review order: one item per sampled message, its
    sampled attributes listed; a message is reviewed when people recorded a verdict on it (as in
    every queue), and its ``cells_left`` are its sampled cells still needed: undecided, of a draw
    not decided yet (a draw of a private attribute is decided by its first cell found revealed).
    ``counts`` gives ``cells``, ``cells_decided``, ``draws`` and ``draws_decided``."""
    human = store.find_human_judge(run_id)
    said = store.settled_human_verdicts(human) if human is not None else {}
    seen = {v.message_id for v in store.human_verdicts(human)} if human is not None else set()
    done = draws_done(rows, said)
    by_message: dict[int, list[SampleRow]] = {}
    for r in rows:
        by_message.setdefault(r.message_id, []).append(r)
    items = []
    for mid, cells in by_message.items():
        detail = store.message_detail(mid)
        if detail is None:
            continue
        items.append(
            QueueItem(
                message_id=mid,
                profile=detail.profile,
                ctx_idx=detail.ctx_idx,
                recipient=detail.recipient,
                task=detail.task,
                trial=detail.trial,
                reasons=(QueueFilter.SAMPLE,),
                attributes=tuple(sorted(c.attribute for c in cells)),
                reviewed=mid in seen,
                cells_left=sum(not done[c.draw] and (mid, c.attr_id) not in said for c in cells),
            )
        )
    counts = {
        "cells": len(rows),
        "cells_decided": sum((r.message_id, r.attr_id) in said for r in rows),
        "draws": len(done),
        "draws_decided": sum(done.values()),
    }
    return Queue(items, QueueFilter.SAMPLE, judge, None, human, counts)
