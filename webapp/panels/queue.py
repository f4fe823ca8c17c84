"""The Audit page's review workflow: the queue (filters kept in the URL, a picker, previous and
next, how many are left) and people's verdicts (unset until set, any attribute of the profile,
only what was set is stored). Widgets and drawing only; the queue is cimem.analysis.audit.queue."""

from __future__ import annotations

from typing import cast

import pandas as pd
import streamlit as st

from cimem.analysis.audit.error_rates import MIN_AUDITED
from cimem.analysis.audit.queue import FILTERS, SAMPLE
from cimem.store import HumanVerdict, JudgeInfo
from webapp import cache, render, sidebar

FILTER_TEXT = {
    "leaked": "leaked a private attribute",
    "disagree": "two judges disagree",
    "parse_failure": "judge reply not parsed",
    "judge_error": "judge call failed",
    "ungrounded": "evidence not in the message",
    "unreviewed": "not yet reviewed by a person",
    SAMPLE: "the suggested audit sample",
}
CHOICES = (*FILTERS, SAMPLE)
UNSET, YES, NO = "", "revealed", "not revealed"
PICKER_AROUND = 50  # the message picker lists this many queue items before and after


def _go(message_id: int | None) -> None:
    if message_id is not None:
        st.query_params["message"] = str(message_id)


def _picked(key: str) -> None:
    _go(st.session_state[key])


def _url(name: str, value: str) -> None:
    if value:
        st.query_params[name] = value
    elif name in st.query_params:
        del st.query_params[name]


def queue_panel(ch: sidebar.Choices, run_id: int, judges: list[JudgeInfo], current: int | None):
    """Draw the queue of ``run_id`` and return the message to show (``current`` when set, else
    the queue's first), or None when there is none."""
    q = st.query_params
    judge = ch.judge if run_id == ch.run else None
    ids = [j.judge_id for j in judges]
    with st.container(border=True):
        c1, c2, c3, c4, c5 = st.columns([3, 2, 2, 2, 2])  # the queue's names in full
        flt = c1.selectbox(
            "Review queue",
            CHOICES,
            index=CHOICES.index(q.get("qf", "leaked")) if q.get("qf") in CHOICES else 0,
            format_func=lambda k: FILTER_TEXT[k],
            key="qf",
        )
        vs = None
        if flt == "disagree":
            others = [j for j in ids if j != (judge or (ids[0] if ids else None))]
            want = int(q["qvs"]) if q.get("qvs", "").isdigit() else None
            vs = c2.selectbox(
                "against judge",
                others,
                index=others.index(want) if want in others else max(len(others) - 1, 0),
                key="qvs",
            )
        size = seed = 0
        if flt == SAMPLE:
            size = c2.number_input(
                "cells",
                10,
                5000,
                int(q["qn"]) if q.get("qn", "").isdigit() else 200,
                step=50,
                key="qn",
                help="a seeded sample stratified by label (private, share) and the judge's"
                " verdict, sized for estimating its error rates (same as `cimem audit-sample`)",
            )
            seed = c2.number_input(
                "seed",
                0,
                10**6,
                int(q["qseed"]) if q.get("qseed", "").isdigit() else 0,
                key="qseed",
            )
        profile = c3.text_input("profile", q.get("qp", ""), key="qp")
        task = c4.text_input("task or recipient", q.get("qt", ""), key="qt")
        attribute = c5.text_input("attribute", q.get("qa", ""), key="qa")
        for name, value in (
            ("qf", flt),
            ("qvs", "" if vs is None else str(vs)),
            ("qn", str(size) if flt == SAMPLE else ""),
            ("qseed", str(seed) if flt == SAMPLE else ""),
        ):
            _url(name, value)
        for name, value in (("qp", profile), ("qt", task), ("qa", attribute)):
            _url(name, value)
        if flt == "disagree" and vs is None:
            st.caption("This run has one judge: re-judge it (below) to compare two.")
            return current
        if flt == SAMPLE:
            queue = _narrow(
                cache.sample_queue(ch.at.run(run_id, judge, ch.opts), int(size), int(seed)),
                profile,
                task,
                attribute,
            )
        else:
            queue = cache.review_queue(
                ch.at.run(run_id, judge, ch.opts),
                cache.QueueFilter(flt, vs, profile, task, attribute),
            )
        items = {i.message_id: i for i in queue.items}
        st.session_state["sampled"] = (
            {i.message_id: i.attributes for i in queue.items} if flt == SAMPLE else {}
        )
        message = current if current is not None else (queue.items[0].message_id if items else None)
        prev_id, next_id = queue.neighbours(message)
        n1, n2, n3 = st.columns([1, 6, 1])
        n1.button(
            "◀ Previous", disabled=prev_id is None, on_click=_go, args=(prev_id,), key="q_prev"
        )
        n3.button("Next ▶", disabled=next_id is None, on_click=_go, args=(next_id,), key="q_next")
        progress = (
            f"; {queue.counts['cells_decided']} of {queue.counts['cells']} sampled cells decided"
            if flt == SAMPLE
            else ""
        )
        n2.markdown(
            f"**{queue.left} of {len(queue.items)} left** to review{progress}"
            + (
                f" — message {list(items).index(message) + 1} of {len(items)}"
                if message in items
                else ""
            )
        )
        if message is not None and message not in items:
            st.caption(
                f"Message {message} is not in this queue"
                + (" (no message matches these filters)" if not items else "")
                + ": it stays open below until you pick another."
            )
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
        if options:
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
        else:
            st.caption("No message matches this filter.")
    return message


def _narrow(queue, profile: str, task: str, attribute: str):
    """The sample's queue narrowed like the others (substrings, any case)."""
    from dataclasses import replace

    def keep(i) -> bool:
        return (
            (not profile or profile.lower() in i.profile.lower())
            and (not task or task.lower() in f"{i.recipient} {i.task}".lower())
            and (not attribute or any(attribute.lower() in a.lower() for a in i.attributes))
        )

    return replace(queue, items=[i for i in queue.items if keep(i)])


def _item_text(item, message_id: int) -> str:
    if item is None:
        return f"{message_id} (not in this queue)"
    done = "✓ " if item.reviewed else ""
    attrs = ", ".join(item.attributes[:3]) + ("…" if len(item.attributes) > 3 else "")
    return (
        f"{done}{item.message_id} · {item.profile} · {item.recipient}: {item.task} · trial"
        f" {item.trial}" + (f" · {attrs}" if attrs else "")
    )


def human_panel(
    store, run_id: int, message_id: int, table: pd.DataFrame, judge_col: str | None
) -> None:
    """People's verdicts on one message: every attribute of the profile can be marked; each row
    is unset until a person sets it, and saving stores only the rows that were set."""
    human = store.find_human_judge(run_id)
    current = {}
    if human is not None:
        current = {v.attr_id: v for v in store.human_verdicts(human) if v.message_id == message_id}
    c1, c2 = st.columns(2)
    reviewer = c1.text_input("Reviewer (optional)", key="reviewer")
    search = c2.text_input(
        "Find an attribute (to record a leak no judge found)", key=f"h_search_{message_id}"
    )
    flagged = (table[[c for c in table.columns if c.startswith("judge ")]] == "yes").any(axis=1)
    shown = flagged | table["attr_id"].isin(list(current))
    shown |= table["key"].isin(st.session_state.get("sampled", {}).get(message_id, ()))
    if search:
        shown |= table["key"].str.contains(search, case=False, regex=False)
    rows = table[shown][["attr_id", "key", "label"]].copy()
    rows["judge_says"] = table.loc[rows.index, judge_col] if judge_col is not None else ""
    st.caption(
        f"{len(rows)} of {len(table)} attributes listed (those a judge found revealed, those a"
        " person decided, the sampled ones, and any you search for). Each is unset until you choose; only what"
        " you set is stored, and a later verdict on the same attribute supersedes yours (the"
        " history keeps both)."
    )
    with st.form(f"human_{message_id}", border=False):
        # one widget per attribute, its label saying which (the page's slowest part to draw
        # was a row of columns, text and two widgets per attribute)
        choices: list[tuple[int, str | None]] = []
        halves = st.columns(2)  # the first half of the rows on the left, the rest on the right
        for i, r in enumerate(rows.itertuples()):
            said = f" · judge says {str(r.judge_says) or '-'}" if judge_col is not None else ""
            so_far = current.get(r.attr_id)
            verdict = halves[int(i >= (len(rows) + 1) // 2)].radio(
                f"**{render.escape_md(r.key)}** · {render.escape_md(r.label)}{said}"
                + (f" · person so far: {YES if so_far.revealed else NO}" if so_far else ""),
                (YES, NO),
                index=None,
                horizontal=True,
                key=f"hv_{message_id}_{r.attr_id}",
            )
            choices.append((int(cast(int, r.attr_id)), verdict))
        note = st.text_input(
            "Note (optional; stored with each verdict set here)",
            key=f"hn_{message_id}",
            placeholder="e.g. the judge missed the diagnosis in the second paragraph",
        )
        saved = st.form_submit_button("Save my verdicts")
    if saved:
        chosen = [
            HumanVerdict(message_id, a, v == YES, reviewer.strip() or None, note.strip() or None)
            for a, v in choices
            if v in (YES, NO)
        ]
        if not chosen:
            st.info("Nothing set: choose revealed or not revealed on a row first.")
            return
        hj = store.get_or_create_human_judge(run_id)
        store.add_human_verdicts(hj, chosen)
        cache.changed()
        st.success(
            f"Stored {len(chosen)} verdict(s) as judge {hj} (people's verdicts of this run);"
            f" {len(rows) - len(chosen)} rows left unset."
        )


def history_section(store, run_id: int, message_id: int) -> None:
    """People's verdicts on this message over time, when there are any, drawn only while the
    section is open; once opened it stays open from message to message."""
    human = store.find_human_judge(run_id)
    if human is None or not any(v.message_id == message_id for v in store.human_verdicts(human)):
        return
    render.when_opened(
        "History of people's verdicts on this message",
        "people_history",
        lambda: st.dataframe(_history(store, human, message_id), hide_index=True),
    )


def _history(store, human: int, message_id: int) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "attribute": v.key,
                "verdict": YES if v.revealed else NO,
                "reviewer": v.reviewer or "",
                "note": v.note or "",
                "at": v.created_at,
                "current": v.current,
            }
            for v in store.human_verdicts(human, history=True)
            if v.message_id == message_id
        ]
    )


def open_message(message_id: int | None) -> None:
    """A button's callback: show this message (kept in the URL)."""
    _go(message_id)


def agreement_frame(ag) -> pd.DataFrame:
    """Agreement by label, domain and stratum, with intervals; kappa "undefined" where so."""
    from cimem.analysis.agreement import format_kappa

    rows = []
    for by, groups in (
        ("label", ag.by_label),
        ("domain", ag.by_domain),
        ("stratum", ag.by_stratum),
    ):
        for name, v in groups.items():
            lo, hi = v.agreement_ci95
            rows.append(
                {
                    "by": by,
                    "group": name,
                    "n": v.n,
                    "agreement %": round(100 * v.agreement, 1),
                    "95% interval": f"[{100 * lo:.1f}, {100 * hi:.1f}]",
                    "kappa": format_kappa(v.kappa),
                }
            )
    return pd.DataFrame(rows)


def judge_against_people(store, run_id: int, judge: int | None, label_rule: str) -> None:
    """The judge's errors on the pairs people decided, per label: what the correction on
    Overview estimates its error rates from (it updates with every saved verdict)."""
    from cimem.analysis.agreement import agreement, wilson_interval

    human = store.find_human_judge(run_id)
    if human is None or judge is None or judge == human:
        return
    ag = agreement(store, judge, human, label_rule, max_disagreements=0)
    if ag.overall.n == 0:
        return
    rows = []
    for label, v in ag.by_label.items():
        c = v.confusion
        truly_yes, truly_no = c["both_yes"] + c["b_only"], c["a_only"] + c["both_no"]
        miss_lo, miss_hi = wilson_interval(c["b_only"], truly_yes)
        fp_lo, fp_hi = wilson_interval(c["a_only"], truly_no)
        rows.append(
            {
                "label": label,
                "pairs people decided": v.n,
                "judge missed": f"{c['b_only']} of {truly_yes}"
                + (f" [{100 * miss_lo:.0f}-{100 * miss_hi:.0f}%]" if truly_yes else ""),
                "judge added": f"{c['a_only']} of {truly_no}"
                + (f" [{100 * fp_lo:.0f}-{100 * fp_hi:.0f}%]" if truly_no else ""),
            }
        )
    st.markdown(f"**Judge {judge} against people's verdicts (judge {human}), whole run**")
    render.static_table(pd.DataFrame(rows))
    st.caption(
        "Missed: people found the attribute revealed, the judge did not (its false negatives);"
        " added: the judge found it revealed, people did not (false positives); Wilson 95%"
        " intervals. Overview corrects Violation@n and Completeness for these errors."
    )


def corrected_section(ch: sidebar.Choices) -> None:
    """Overview: raw against corrected Violation@n and Completeness of the first selected run,
    when people have recorded verdicts on it."""
    if ch.run is None:
        return
    human = cache.human_judge_of(ch.at, ch.run)
    run_cube = cache.cube(ch.scope(ch.run))
    if human is None or run_cube.info.judge_id in (None, human) or not run_cube.has_labels:
        return
    st.divider()
    st.subheader("Corrected for the judge's errors")
    c = cache.corrected(ch.scope(ch.run), human)
    r = c.result
    rows = []
    for name, v in (("Violation@n %", r.violation), ("Completeness %", r.completeness)):
        rows.append(
            {
                "metric": name,
                "raw (judge)": round(100 * v.raw, 2),
                "corrected": "-" if v.not_estimated else f"{100 * v.mean:.2f}",
                "corrected 95% CI": "-"
                if v.not_estimated
                else f"[{100 * v.ci95[0]:.2f}, {100 * v.ci95[1]:.2f}]",
            }
        )
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    for name, v in (("Violation@n", r.violation), ("Completeness", r.completeness)):
        if v.not_estimated:
            st.info(f"{name} is not corrected: {v.not_estimated}.")
    st.dataframe(
        pd.DataFrame(
            [
                {
                    "label": e.stratum,
                    "sensitivity %": round(100 * e.sensitivity, 1),
                    "false-positive rate %": round(100 * e.false_positive_rate, 1),
                    "audited cells": e.audited,
                    "audited judge yes / no": f"{e.audited_judge_yes} / {e.audited_judge_no}",
                }
                for e in r.error_rates
            ]
        ),
        hide_index=True,
    )
    st.caption(
        f"Run {render.escape_md(run_cube.run)}, judge {render.escape_md(run_cube.judge)},"
        f" {ch.describe()}; corrected from people's verdicts (judge {human}) on"
        f" {r.violation.audited_pairs} audited cells by a {r.violation.method}"
        f" ({r.violation.resamples} resamples; the interval holds the profile sampling and the"
        " uncertainty of the estimated error rates). Withheld attributes borrow the sensitivity"
        " pooled over both labels; needed ones use their own. A rate from a group with no"
        f" audited cell comes from the prior alone, so nothing is corrected below {MIN_AUDITED}"
        " audited cells per group. It"
        " assumes the audited cells are a random sample within each label and judge verdict"
        " (use the Audit page's sample or `cimem audit-sample`) and that people are right; the"
        " Learn page explains it."
        + (
            f" {c.verdicts_outside} verdicts fall outside the labelled pairs."
            if c.verdicts_outside
            else ""
        )
    )


CORRECTION_TEXT = """
Every number on the other pages counts what **one judge** said was revealed. Judges make
mistakes: they miss a fact the message states (a *false negative*) or see one that is not there
(a *false positive*). Violation@n is a worst case over many tasks and samples, so a small
false-positive rate adds up to a large overstatement; Completeness is an average, so misses
pull it down.

**The audit.** People read a sample of the judge's decisions and record what is really there
(Audit page, or `cimem audit-sample` and `cimem human import`). The sample is drawn in four
groups: private or needed attribute, judge said yes or no. Within each group, the share of
decisions people overturn tells how often the judge is wrong there.

**The correction** (a *misclassification-adjusted empirical-Bayes bootstrap*). From the audited
groups and the judge's counts over the whole run, cimem estimates the judge's sensitivity (how
often it catches a stated fact) and false-positive rate for private and for needed attributes.
It then asks, for each attribute of each profile, how likely it is that some message *truly*
revealed it, given what the judge said and how the judge errs; audited decisions count as
people found them. Averaging gives corrected Violation@n and Completeness. The 95% interval
comes from repeating this many times, each time redrawing the error rates from what the audit
allows and resampling the profiles, so it is wide when the audit is small. A metric is corrected
only when each group it rests on holds at least five audited decisions (Completeness: the two
groups of needed attributes; Violation@n: all four); below that the judge's error rates would come
from the prior rather than from people, and the page says which group is short.

**What it assumes.** The audited decisions are a random sample within each of the four groups
(use the suggested sample, not hand-picked messages); people's verdicts are the truth; the judge,
which never sees the labels, misses a stated withheld fact as often as stated facts in general
(withheld attributes borrow the sensitivity measured over all audited decisions; needed ones use
their own); within an attribute, tasks are alike and so are the samples
of a leaking task. **Known limit:** for an assistant that almost never leaks, false positives
swamp the few true leaks: the corrected number is then a few points high and its interval too
narrow, and the audit needs many more of the judge's "yes" on withheld attributes.
"""


def explain_correction() -> None:
    """The Learn page's plain-words account of the correction and its assumptions."""
    st.divider()
    st.header("Correcting for the judge's errors")
    st.markdown(CORRECTION_TEXT)
