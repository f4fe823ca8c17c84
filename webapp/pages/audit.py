"""Audit: one message with its task, recipient, memory, the judge's evidence highlighted, every
judge's verdict per attribute; re-judge it live, record human verdicts, compare two judges.
What it shows comes from :func:`cimem.analysis.audit.message_audit`."""

import streamlit as st

from cimem.analysis.audit import MessageAudit, what_happened
from cimem.analysis.options import Mode
from cimem.store import MessageStatus
from webapp import cache, message_view, render, sidebar
from webapp.panels import judge_errors, progress
from webapp.panels.audit import agreement, people_agreement, queue, rejudge, verdict_form
from webapp.panels.audit.side_by_side import side_by_side

st.title("Audit")
ch: sidebar.Choices = st.session_state["choices"]
wanted = st.query_params.get("message")
message_id = int(wanted) if wanted and wanted.isdigit() else None
rule = ch.opts.label_rule
audit = cache.message_audit(ch.at, message_id, rule) if message_id is not None else None
queue_run = audit.message.run_id if audit is not None else ch.run
if queue_run is None:
    st.info("Choose a run with messages in the sidebar (or import one on the Data page).")
    st.stop()
message_id = queue.queue_panel(
    ch,
    queue_run,
    cache.judges_of(ch.at, queue_run),
    audit.message.message_id if audit is not None else None,
)
queue.message_finder(ch, queue_run)
audit = cache.message_audit(ch.at, message_id, rule) if message_id is not None else None
if audit is None:
    st.info("No message to show: widen the queue's filter or open one above.")
    st.stop()
detail = audit.message
run_id = detail.run_id
sidebar.simulated_banner([run_id])
progress.making_banner([run_id])
st.markdown(
    f"**Message {detail.message_id}** of run {run_id} — profile "
    f"**{render.escape_md(detail.profile)}**, trial {detail.trial}"
)
st.markdown(
    f"**Recipient:** {render.escape_md(detail.recipient)}  \n"
    f"**Task:** {render.escape_md(detail.task)}"
)
with st.expander(f"Memory ({len(audit.memory)} statements)"):
    render.plain_text("\n".join(audit.memory))
if detail.prompt:
    with st.expander("Prompt as sent"):
        render.plain_text(detail.prompt)
if detail.status != MessageStatus.OK:
    st.error(
        f"The generation failed: {render.escape_md(detail.error)}. There is no message to audit."
    )
    st.stop()

if not audit.judges:
    st.info("No judge has seen this run yet: run one below.")
jnames = audit.judge_names()
shown = (
    st.selectbox("Highlight the evidence of", list(jnames), format_func=lambda k: jnames[k])
    if jnames
    else None
)
with st.container(border=True):
    message_view.show_message(
        detail.text or "",
        audit.evidence(shown, ch.opts.mode == Mode.OFFICIAL),
        key=f"audit-{detail.message_id}",
    )
failure = audit.failure(shown)
if failure is not None and shown is not None:
    st.warning(what_happened(shown, failure))
    if failure.raw:
        render.plain_text(failure.raw)

only_revealed = st.toggle("Only attributes some judge found revealed", value=True)
table = audit.table(shown, only_revealed)
colors = {
    "share": "background-color: #d3e6f3",
    "private": "background-color: #f6dccb",
    "ambiguous": "background-color: #eeeeee",
}
render.static_table(
    table.drop(columns=["attr_id"]).rename(
        columns={"key": "attribute", "memory_statement": "memory statement"}
    ),
    breakable=("attribute", "evidence"),
    styles={  # narrow enough that a table of three judges' columns fits a page 1440 px wide
        "label": lambda v: colors.get(str(v), ""),
        "attribute": lambda v: "min-width: 11em",
        "memory statement": lambda v: "min-width: 12em",
        "evidence": lambda v: "min-width: 12em",
    },
)
st.caption(
    f"Labels under rule {render.escape_md(audit.label_rule)}: blue share (needed), orange private"
    " (withheld), grey ambiguous (out of both metrics). 'grounded': the evidence occurs in the"
    " message."
)

st.subheader("Side by side")
side_by_side(ch, audit, shown)

st.subheader("Re-judge this message")
rejudge.rejudge_section(audit, shown)

st.subheader("Human verdicts")


# drawn only while open (one radio per listed attribute was two fifths of the time Next took in
# a browser); once opened it stays open from message to message
def record_verdicts(found: MessageAudit = audit) -> None:
    verdict_form.verdict_form(
        run_id,
        detail.message_id,
        found.table(shown, only_revealed=False),
        f"judge {shown}" if shown is not None else None,
    )


render.when_opened("Record your verdicts on this message", "people_record", record_verdicts)
verdict_form.verdict_history(run_id, detail.message_id)
judge_errors.judge_against_people(run_id, shown, rule)
people_agreement.people_section(run_id)

st.subheader("Agreement of two judges (whole run)")
agreement.agreement_section(ch, audit, rule)
