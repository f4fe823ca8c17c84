"""Re-judge one message live with the judge picked, compare the reply with the judge shown, and
save it to the run's audit judge. Widgets and drawing only: judging is cimem.judges'."""

from __future__ import annotations

import streamlit as st

from cimem.analysis.audit import MessageAudit
from cimem.errors import CimemError
from cimem.judges.base import JudgeOutcome, judge_message, rejudge
from cimem.store import JudgmentStatus
from cimem.text import plural
from webapp import cache, connection, render
from webapp.panels.audit.judge_picker import PickedJudge, pick_judge


def rejudge_section(audit: MessageAudit, shown: int | None) -> None:
    """Pick a judge, run it on the message, show its reply; offer to save it."""
    picked = pick_judge()
    message_id = audit.message.message_id
    if picked is not None and st.button("Run it on this message", type="primary", key="run_live"):
        _run(message_id, picked)
    live = st.session_state.get("live")
    if live and live[0] == message_id and picked is not None:
        _, outcome, seconds = live
        _show_outcome(audit, shown, picked, outcome, seconds)


def _run(message_id: int, picked: PickedJudge) -> None:
    """Judge the message without storing anything but its call; keep the outcome for this
    session. A judge that fills the call cache holds the database to write (the file is let go
    while its call is out)."""
    try:
        with (
            st.spinner("Judging..."),
            cache.writing() if picked.uses_call_cache else connection.reading() as store,
        ):
            outcome, seconds = judge_message(store, message_id, picked.judge(store))
        st.session_state["live"] = (message_id, outcome, seconds)
        if outcome.status == "error" and picked.endpoint_url:
            st.error(
                render.escape_md(
                    f"{picked.endpoint_url} did not answer: {outcome.raw or 'no reply'}"
                )
            )
    except CimemError as exc:
        st.error(render.escape_md(exc))


def _show_outcome(
    audit: MessageAudit,
    shown: int | None,
    picked: PickedJudge,
    outcome: JudgeOutcome,
    seconds: float,
) -> None:
    """The live reply against the judge shown, and the button that saves it."""
    unmatched = ", ".join(outcome.unmatched)
    st.caption(
        f"{seconds:.2f} s; status {render.escape_md(outcome.status)}"
        + (
            f"; keys the judge named that are no attribute: {render.escape_md(unmatched)}"
            if outcome.unmatched
            else ""
        )
    )
    if outcome.status != JudgmentStatus.OK:
        render.plain_text(outcome.raw or "")
        return
    st.dataframe(audit.compare(outcome.revealed, shown), hide_index=True)
    if st.button("Save to this run's audit judge (one per model and prompt)"):
        run_id, message_id = audit.message.run_id, audit.message.message_id
        with cache.writing() as store:
            res = rejudge(store, run_id, picked.judge(store), message_ids=[message_id], audit=True)
        cov = cache.coverage_of(cache.current(), run_id)[res.judge_id]
        st.success(
            f"Saved to judge {res.judge_id} ({plural(res.verdicts, 'verdict')} on this message); it"
            f" now covers {cov.describe()} of the run."
        )
