"""The review queue: which messages of a run need a person's look, and how many are left.

A message enters the queue for what a reviewer would want to check: the judge found a private
attribute revealed (``leaked``), two judges disagree on some attribute (``disagree``), the judge's
reply could not be parsed (``parse_failure``) or its call failed (``judge_error``), an evidence
sentence does not occur in the message (``ungrounded``), or no person has reviewed it yet
(``unreviewed``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from cimem.analysis.audit import evidence_grounded
from cimem.analysis.labels import LABEL_NAMES, LabelRule
from cimem.analysis.review import SampleRow
from cimem.errors import CimemError
from cimem.store import JudgmentStatus, Label, Store

FILTERS = ("leaked", "disagree", "parse_failure", "judge_error", "ungrounded", "unreviewed")
SAMPLE = "sample"  # the suggested audit sample (cimem.analysis.review.audit_sample) as a queue


@dataclass(frozen=True)
class QueueItem:
    """A message to review, with why it is in the queue."""

    message_id: int
    profile: str
    ctx_idx: int
    recipient: str
    task: str
    trial: int
    reasons: tuple[str, ...]  # every filter it matches
    attributes: tuple[str, ...]  # keys behind the chosen filter (the judge's "yes" by default)
    reviewed: bool  # a person has recorded a verdict on this message


@dataclass(frozen=True)
class Queue:
    items: list[QueueItem]
    filter: str
    judge: int
    vs: int | None
    human_judge: int | None
    # messages matching each filter (ungrounded: only counted when it is the filter)
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def left(self) -> int:
        return sum(not i.reviewed for i in self.items)

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


def review_queue(
    store: Store,
    run_id: int,
    judge: int | None = None,
    *,
    vs: int | None = None,
    filter: str = "leaked",
    label_rule: str = "unanimous",
    profile: str | None = None,
    task: str | None = None,
    recipient: str | None = None,
    attribute: str | None = None,
) -> Queue:
    """The run's messages that match ``filter`` under ``judge`` (default: the run's original),
    narrowed by profile, task, recipient (substring, any case) and attribute key; sorted by
    profile, task, trial. ``disagree`` needs ``vs``, a second judge of the run."""
    if filter not in FILTERS:
        raise CimemError(f"unknown filter {filter!r}; choose one of {', '.join(FILTERS)}")
    judge = judge if judge is not None else store.default_judge(run_id)
    if judge is None:
        raise CimemError(f"run {run_id} has no judge yet: judge it with `python -m cimem judge`")
    known = {j.judge_id for j in store.judges(run_id)}
    for j in (judge, vs):
        if j is not None and j not in known:
            raise CimemError(f"judge {j} is not a judge of run {run_id}")
    if filter == "disagree" and vs is None:
        raise CimemError("the disagree filter compares two judges: give the second one (--vs)")
    rule = LabelRule.parse(label_rule)
    private = _private_pairs(store, run_id, rule)
    contexts = {(c.profile_id, c.ctx_idx): c for c in store.contexts_of(run_id)}
    keys = {a.attr_id: a.key for a in store.attributes_of(run_id)}
    human = store.human_judge_of(run_id)
    reviewed = {v.message_id for v in store.human_verdicts(human)} if human is not None else set()
    status = store.judgments_of(judge)
    other = store.judgments_of(vs) if vs is not None else {}
    mine: dict[int, dict[int, tuple[bool, str | None]]] = {}
    theirs: dict[int, dict[int, bool]] = {}
    for p in store.profiles_of(run_id):
        for v in store.verdicts_of(judge, run_id, p.profile_id):
            mine.setdefault(v.message_id, {})[v.attr_id] = (v.revealed, v.evidence)
        if vs is not None:
            for v in store.verdicts_of(vs, run_id, p.profile_id):
                theirs.setdefault(v.message_id, {})[v.attr_id] = v.revealed
    items: list[QueueItem] = []
    counts = dict.fromkeys(FILTERS, 0)
    for m in store.messages_to_judge(run_id):
        ctx = contexts[(m.profile_id, m.ctx_idx)]
        verdicts = mine.get(m.message_id, {})
        said_yes = [a for a, (yes, _) in verdicts.items() if yes]
        sets = {
            "leaked": [a for a in said_yes if (m.profile_id, m.ctx_idx, a) in private],
            "disagree": [
                a
                for a, (yes, _) in verdicts.items()
                if a in theirs.get(m.message_id, {}) and theirs[m.message_id][a] != yes
            ],
            "ungrounded": [  # text matching is the slow part: only when asked for
                a
                for a, (yes, ev) in verdicts.items()
                if filter == "ungrounded" and yes and evidence_grounded(ev, m.text or "") is False
            ],
        }
        st = status.get(m.message_id)
        flags = {
            "leaked": bool(sets["leaked"]),
            "disagree": bool(sets["disagree"])
            or (
                vs is not None
                and (m.message_id in status) != (m.message_id in other)  # one judged, not both
            ),
            "parse_failure": st is not None and st.status == JudgmentStatus.PARSE_FAILURE,
            "judge_error": st is not None and st.status == JudgmentStatus.ERROR,
            "ungrounded": bool(sets["ungrounded"]),
            "unreviewed": m.message_id not in reviewed,
        }
        for name, on in flags.items():
            counts[name] += on
        if not flags[filter]:
            continue
        attrs = tuple(sorted(keys[a] for a in sets.get(filter, said_yes)))
        if profile and profile.lower() not in m.profile.lower():
            continue
        if task and task.lower() not in ctx.task.lower():
            continue
        if recipient and recipient.lower() not in ctx.recipient.lower():
            continue
        if attribute and not any(attribute.lower() in k.lower() for k in attrs):
            continue
        items.append(
            QueueItem(
                message_id=m.message_id,
                profile=m.profile,
                ctx_idx=m.ctx_idx,
                recipient=ctx.recipient,
                task=ctx.task,
                trial=m.trial,
                reasons=tuple(n for n, on in flags.items() if on),
                attributes=attrs,
                reviewed=m.message_id in reviewed,
            )
        )
    items.sort(key=lambda i: (i.profile, i.ctx_idx, i.trial, i.message_id))
    if filter != "ungrounded":
        del counts["ungrounded"]
    return Queue(items, filter, judge, vs, human, counts)


def _private_pairs(store: Store, run_id: int, rule: LabelRule) -> set[tuple[int, int, int]]:
    """(profile_id, ctx_idx, attr_id) of the run's pairs labelled private under ``rule``."""
    rows = store.labels_of_run(run_id)
    out = set()
    fractions = [r for r in rows if r.hard_label is None]
    if fractions:
        nec = np.nan_to_num(np.array([r.necessary for r in fractions], np.float64))
        priv = np.nan_to_num(np.array([r.private for r in fractions], np.float64))
        for r, code in zip(fractions, rule.apply(nec, priv)):
            if LABEL_NAMES[int(code)] == Label.PRIVATE:
                out.add((r.profile_id, r.ctx_idx, r.attr_id))
    out.update((r.profile_id, r.ctx_idx, r.attr_id) for r in rows if r.hard_label == Label.PRIVATE)
    return out


def sample_queue(store: Store, run_id: int, judge: int, rows: list[SampleRow]) -> Queue:
    """A suggested audit sample as a queue: one item per sampled message, its sampled attributes
    listed; a message is reviewed when people decided every sampled attribute of it. ``counts``
    gives ``cells`` and ``cells_decided`` (progress through the sample)."""
    human = store.human_judge_of(run_id)
    decided = (
        {(v.message_id, v.attr_id) for v in store.human_verdicts(human)}
        if human is not None
        else set()
    )
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
                reasons=(SAMPLE,),
                attributes=tuple(sorted(c.attribute for c in cells)),
                reviewed=all((mid, c.attr_id) in decided for c in cells),
            )
        )
    items.sort(key=lambda i: (i.profile, i.ctx_idx, i.trial, i.message_id))
    counts = {
        "cells": len(rows),
        "cells_decided": sum((r.message_id, r.attr_id) in decided for r in rows),
    }
    return Queue(items, SAMPLE, judge, None, human, counts)
