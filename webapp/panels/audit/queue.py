"""The Audit page's review queue: its filters (kept in the URL), previous and next, how many are
left, and a picker of the queue's messages; and a finder of any message by profile, task and
trial. Widgets and drawing only: the queue and its narrowing are cimem.analysis.audit.queue's."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from cimem.analysis.audit.queue import Narrowing, Queue, QueueItem, narrow
from cimem.analysis.choices import QueueFilter
from cimem.store import JudgeInfo
from webapp import cache, sidebar

FILTER_TEXT = {
    QueueFilter.LEAKED: "leaked a private attribute",
    QueueFilter.DISAGREE: "two judges disagree",
    QueueFilter.PARSE_FAILURE: "judge reply not parsed",
    QueueFilter.JUDGE_ERROR: "judge call failed",
    QueueFilter.UNGROUNDED: "evidence not in the message",
    QueueFilter.FLAGGED: "flagged by the health scan",
    QueueFilter.UNREVIEWED: "not yet reviewed by a person",
    QueueFilter.PEOPLE_DISAGREE: "reviewers disagree (to adjudicate)",
    QueueFilter.SAMPLE: "the suggested audit sample",
}
CHOICES = tuple(QueueFilter)
PLAN_MARGIN = 3.0  # points either side: the margin the sample's plan is said for
PICKER_AROUND = 50  # the message picker lists this many queue items before and after


@dataclass(frozen=True)
class QueueChoice:
    """What the reviewer chose in the queue's widgets."""

    filter: QueueFilter
    vs: int | None  # the second judge of "disagree"
    size: int  # the sample's cells ("sample" only)
    narrowing: Narrowing


def _go(message_id: int | None) -> None:
    if message_id is not None:
        st.query_params["message"] = str(message_id)


def _picked(key: str) -> None:
    _go(st.session_state[key])


def open_message(message_id: int | None) -> None:
    """A button's callback: show this message (kept in the URL)."""
    _go(message_id)


def _url(name: str, value: str) -> None:
    if value:
        st.query_params[name] = value
    elif name in st.query_params:
        del st.query_params[name]


def _int_param(name: str, default: int, low: int = 0, high: int = 10**9) -> int:
    """A number from the link, kept within [low, high] (a widget refuses one outside)."""
    value = st.query_params.get(name, "")
    return min(high, max(low, int(value))) if value.isdigit() else default


def queue_panel(
    ch: sidebar.Choices, run_id: int, judges: list[JudgeInfo], current: int | None
) -> int | None:
    """Draw the queue of ``run_id`` and return the message to show (``current`` when set, else
    the queue's first), or None when there is none."""
    judge = sidebar.judge_for(ch, run_id)
    with st.container(border=True):
        choice = _choose(judge, [j.judge_id for j in judges])
        if choice.filter == QueueFilter.DISAGREE and choice.vs is None:
            st.caption("This run has one judge: re-judge it (below) to compare two.")
            return current
        queue = _queue(ch, run_id, judge, choice)
        st.session_state["sampled"] = (
            {i.message_id: i.attributes for i in queue.items}
            if choice.filter == QueueFilter.SAMPLE
            else {}
        )
        message = current
        if message is None and queue.items:
            message = queue.items[0].message_id
        _navigation(queue, message)
        others = _other_judges(judge, [j.judge_id for j in judges])
        cache.prefetch_queues(ch.scope(run_id), choice.vs or (others[-1] if others else None))
        if choice.filter == QueueFilter.SAMPLE:
            scope = ch.scope(run_id)
            st.caption(
                cache.audit_plan_sentence(scope, PLAN_MARGIN)
                + " (`cimem audit-plan`; the Review page decides them one key at a time)."
            )
        _picker(queue, message)
    return message


def _choose(judge: int | None, ids: list[int]) -> QueueChoice:
    """The queue's widgets, each started from and kept in the URL."""
    q = st.query_params
    c1, c2, c3, c4, c5 = st.columns([3, 2, 2, 2, 2])  # the queue's names in full
    flt = c1.selectbox(
        "Review queue",
        CHOICES,
        index=CHOICES.index(q["qf"]) if q.get("qf") in CHOICES else 0,
        format_func=lambda k: FILTER_TEXT[k],
        key="qf",
    )
    vs = None
    if flt == QueueFilter.DISAGREE:
        others = _other_judges(judge, ids)
        want = _int_param("qvs", -1)
        vs = c2.selectbox(
            "against judge",
            others,
            index=others.index(want) if want in others else max(len(others) - 1, 0),
            key="qvs",
        )
    size = _sample_size(c2) if flt == QueueFilter.SAMPLE else 0
    by = Narrowing(
        profile=c3.text_input("profile", q.get("qp", ""), key="qp"),
        task_or_recipient=c4.text_input("task or recipient", q.get("qt", ""), key="qt"),
        attribute=c5.text_input("attribute", q.get("qa", ""), key="qa"),
    )
    sample = flt == QueueFilter.SAMPLE
    for name, value in (
        ("qf", flt),
        ("qvs", "" if vs is None else str(vs)),
        ("qn", str(size) if sample else ""),
        ("qp", by.profile),
        ("qt", by.task_or_recipient),
        ("qa", by.attribute),
    ):
        _url(name, value)
    return QueueChoice(flt, vs, size, by)


def _other_judges(judge: int | None, ids: list[int]) -> list[int]:
    """The run's judges a queue of disagreements may compare the judge shown with (the default:
    the last)."""
    return [j for j in ids if j != (judge or (ids[0] if ids else None))]


def _sample_size(column: DeltaGenerator) -> int:
    """The suggested sample's size; its seed is the correction's (the sample people decided,
    else 0), so that what people decide here is what Overview's corrected numbers count."""
    size = column.number_input(
        "cells",
        10,
        5000,
        _int_param("qn", 200, 10, 5000),
        step=50,
        key="qn",
        help="the first cells of the audit's review order (same as `cimem audit-sample`):"
        " draws at random within the judge's yes and no, for the corrected numbers on"
        " Overview; decide them in the order shown",
    )
    return int(size)


def _queue(ch: sidebar.Choices, run_id: int, judge: int | None, choice: QueueChoice) -> Queue:
    """The chosen queue, narrowed by what the reviewer typed."""
    if choice.filter == QueueFilter.SAMPLE:
        scope = ch.scope(run_id)
        sample = cache.sample_queue(scope, choice.size, cache.audit_seed(scope))
        return narrow(sample, choice.narrowing)
    by = choice.narrowing
    return cache.review_queue(
        ch.scope(run_id),
        cache.QueueAsk(choice.filter, choice.vs, by.profile, by.task_or_recipient, by.attribute),
    )


def _navigation(queue: Queue, message: int | None) -> None:
    """Previous and next, how many are left, and where the message shown stands."""
    ids = [i.message_id for i in queue.items]
    prev_id, next_id = queue.neighbours(message)
    n1, n2, n3 = st.columns([1, 6, 1])
    n1.button("◀ Previous", disabled=prev_id is None, on_click=_go, args=(prev_id,), key="q_prev")
    n3.button("Next ▶", disabled=next_id is None, on_click=_go, args=(next_id,), key="q_next")
    progress = (
        f"; {queue.counts['draws_decided']} of {queue.counts['draws']} sampled draws decided"
        " (the corrected numbers count them up to the first undecided draw of each kind)"
        if queue.filter == QueueFilter.SAMPLE
        else ""
    )
    where = f" — message {ids.index(message) + 1} of {len(ids)}" if message in ids else ""
    n2.markdown(f"**{queue.left} of {len(ids)} left** to review{progress}{where}")
    if message is not None and message not in ids:
        st.caption(
            f"Message {message} is not in this queue"
            + (" (no message matches these filters)" if not ids else "")
            + ": it stays open below until you pick another."
        )


def _picker(queue: Queue, message: int | None) -> None:
    """A picker of the queue's messages around the one shown (and the one shown, if outside)."""
    items = {i.message_id: i for i in queue.items}
    options = list(items)
    label = "Message"
    if len(options) > 2 * PICKER_AROUND + 1:
        # the picker lists the messages around this one (a list of thousands was most of
        # the time of every Next); the filters above narrow the queue to any message
        at = options.index(message) if message in items else 0
        lo = max(0, min(at - PICKER_AROUND, len(options) - 2 * PICKER_AROUND - 1))
        options = options[lo : lo + 2 * PICKER_AROUND + 1]
        label = (
            f"Message (the {len(options)} around this one, {lo + 1}-{lo + len(options)}"
            f" of {len(items)}: narrow the queue above to reach others)"
        )
    if message is not None and message not in items:
        options.insert(0, message)
    if not options:
        st.caption("No message matches this filter.")
        return
    key = f"q_pick_{message}"
    st.selectbox(
        label,
        options,
        index=options.index(message) if message in options else 0,
        format_func=lambda m: _item_text(items.get(m), m),
        key=key,
        on_change=_picked,
        args=(key,),
    )


def _item_text(item: QueueItem | None, message_id: int) -> str:
    if item is None:
        return f"{message_id} (not in this queue)"
    done = "✓ " if item.reviewed else ""
    attrs = ", ".join(item.attributes[:3]) + ("…" if len(item.attributes) > 3 else "")
    left = f" · {item.cells_left} sampled left" if item.cells_left else ""
    return (
        f"{done}{item.message_id} · {item.profile} · {item.recipient}: {item.task} · trial"
        f" {item.trial}" + (f" · {attrs}" if attrs else "") + left
    )


def message_finder(ch: sidebar.Choices, run_id: int) -> None:
    """Open any message of the run by profile, task and trial (a folded section)."""
    with st.expander("Open any message by profile, task and trial"):
        cube = cache.cube(ch.scope(run_id))
        c1, c2, c3 = st.columns([2, 3, 1])
        pos = c1.selectbox(
            "Profile", range(cube.n_profiles), format_func=lambda i: cube.profile_names[i]
        )
        ctxs = [c for c in range(len(cube.ctx_profile)) if cube.ctx_profile[c] == pos]
        ctx = c2.selectbox(
            "Context", ctxs, format_func=lambda c: f"{cube.ctx_recipient[c]}: {cube.ctx_task[c]}"
        )
        trial = c3.number_input("Trial", 0, max(0, cube.n_trials - 1), 0)
        profile_ids, ctx_local, _ = cube.store_ids()
        found = cache.find_message(
            ch.at, run_id, int(profile_ids[pos]), int(ctx_local[ctx]), int(trial)
        )
        st.button(
            "Open this message",
            disabled=found is None,
            on_click=open_message,
            args=(found,),
            key="open_picked",
        )
