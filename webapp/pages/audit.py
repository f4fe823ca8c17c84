"""Audit: one message with its task, recipient, memory, the judge's evidence highlighted, every
judge's verdict per attribute; re-judge it live, record human verdicts, compare two judges.
What it shows comes from :func:`cimem.analysis.audit.message_audit`."""

import pandas as pd
import streamlit as st

from cimem.analysis.agreement import format_kappa
from cimem.errors import CimemError
from cimem.judges.base import Judge, OfflineJudge, judge_message, rejudge
from cimem.store import JudgmentStatus, MessageStatus
from webapp import cache, connection, endpoints, render, sidebar
from webapp.panels import queue as review
from webapp.panels.side_by_side import side_by_side

st.title("Audit")
ch: sidebar.Choices = st.session_state["choices"]
store = connection.store()
wanted = st.query_params.get("message")
message_id = int(wanted) if wanted and wanted.isdigit() else None
rule = ch.opts.label_rule
audit = cache.message_audit(ch.at, message_id, rule) if message_id is not None else None
queue_run = audit.message.run_id if audit is not None else ch.run
if queue_run is None:
    st.info("Choose a run with messages in the sidebar (or import one on the Data page).")
    st.stop()
message_id = review.queue_panel(
    ch,
    queue_run,
    cache.judges_of(ch.at, queue_run),
    audit.message.message_id if audit is not None else None,
)
with st.expander("Open any message by profile, task and trial"):
    cube = cache.cube(ch.at.run(queue_run, ch.judge if queue_run == ch.run else None))
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
        ch.at, queue_run, int(profile_ids[pos]), int(ctx_local[ctx]), int(trial)
    )
    st.button(
        "Open this message",
        disabled=found is None,
        on_click=review.open_message,
        args=(found,),
        key="open_picked",
    )
audit = cache.message_audit(ch.at, message_id, rule) if message_id is not None else None
if audit is None:
    st.info("No message to show: widen the queue's filter or open one above.")
    st.stop()
detail = audit.message
run_id = detail.run_id
sidebar.simulated_banner([run_id])
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
    render.show_message(detail.text, audit.evidence(shown))  # type: ignore[arg-type]
failure = audit.failure(shown)
if failure is not None:
    st.warning(f"Judge {shown}: {render.escape_md(failure.status)}. Raw reply:")
    render.plain_text(failure.raw or "")

only_revealed = st.toggle("Only attributes some judge found revealed", value=True)
table = audit.table(shown, only_revealed)
colors = {
    "share": "background-color: #d8f0df",
    "private": "background-color: #f8d7da",
    "ambiguous": "background-color: #eeeeee",
}
render.static_table(
    table.drop(columns=["attr_id"]).rename(
        columns={"key": "attribute", "memory_statement": "memory statement"}
    ),
    breakable=("attribute", "evidence"),
    styles={
        "label": lambda v: colors.get(str(v), ""),
        "attribute": lambda v: "min-width: 14em",
        "memory statement": lambda v: "min-width: 16em",
        "evidence": lambda v: "min-width: 16em",
    },
)
st.caption(
    f"Labels under rule {render.escape_md(audit.label_rule)}: green share (needed), red private"
    " (withheld), grey ambiguous (out of both metrics). 'grounded': the evidence occurs in the"
    " message."
)

st.subheader("Side by side")
side_by_side(ch, audit, shown)

st.subheader("Re-judge this message")
kind = st.radio(
    "Judge", ("offline", "listed endpoint", "another endpoint"), horizontal=True, key="judge_kind"
)
judge: Judge | None = None
endpoint_url = None
if kind == "offline":
    judge = OfflineJudge(name="offline judge (audit)")
else:
    from cimem.judges.llm import JudgeSpec, make_llm_judge
    from cimem.llm.client import ClientSettings
    from cimem.llm.prompts import load_judge_prompt

    settings, key = None, None
    try:
        cfg = endpoints.endpoint_config()
    except CimemError as exc:
        st.error(render.escape_md(exc))
        st.stop()
    if kind == "listed endpoint":
        listed = {e.name: e for e in cfg.endpoints}
        if not listed:
            st.info(
                "The operator lists no endpoint (Streamlit secrets or CIMEM_ENDPOINTS: see the "
                "README, Serving the app to others)."
            )
        else:
            ep = listed[st.selectbox("Endpoint", list(listed), key="endpoint")]
            st.caption(
                f"{render.escape_md(ep.base_url)}, model {render.escape_md(ep.model)}, "
                f"timeout {ep.timeout:g} s; the key stays on the server."
            )
            try:
                key = endpoints.endpoint_key(ep)
                settings = ClientSettings(
                    model=ep.model,
                    base_url=ep.base_url,
                    api_key_env=ep.key_env or "",
                    timeout=ep.timeout,
                    max_retries=0,
                )
            except CimemError as exc:
                st.error(render.escape_md(exc))
    elif not endpoints.free_endpoints_allowed(cfg):
        st.info(
            "This server does not let visitors call endpoints of their own (the operator's "
            "allow_free_endpoints; off when the app is served to others). Use a listed endpoint."
        )
    else:
        e1, e2, e3 = st.columns([3, 2, 1])
        base_url = e1.text_input("Base URL", "http://localhost:8000/v1", key="free_url")
        model = e2.text_input("Model", "", key="free_model")
        timeout = e3.number_input("Timeout (s)", 1, 600, 60, key="free_timeout")
        typed = st.text_input(
            "Your API key (required; kept in this session only, never stored or logged; the "
            "server's keys are never sent to a URL typed here)",
            type="password",
            key="free_key",
        )
        if model and base_url:
            try:
                from cimem.llm.endpoints import check_base_url

                check_base_url(base_url)
                if not typed:
                    raise CimemError(
                        "an endpoint typed here needs your own API key (type any text if it "
                        "needs none)"
                    )
                key = typed
                settings = ClientSettings(
                    model=model,
                    base_url=base_url.strip(),
                    api_key_env="",
                    timeout=float(timeout),
                    max_retries=0,
                )
            except CimemError as exc:
                st.error(render.escape_md(exc))
    variant = st.radio("Prompt", ("strict", "lenient"), horizontal=True)
    prompt = load_judge_prompt(None, variant)
    text = st.text_area("Prompt text (editable)", prompt.text, height=220)
    if settings is not None and key:
        endpoint_url = settings.base_url
        spec = JudgeSpec(settings, variant=variant, prompt_text=text)
        # a visitor's endpoint never reads or fills the call cache: its replies must not
        # answer later calls to a listed endpoint with the same model name
        judge = make_llm_judge(spec, store if kind == "listed endpoint" else None, api_key=key)
if judge is not None and st.button("Run it on this message", type="primary", key="run_live"):
    try:
        with st.spinner("Judging..."):
            outcome, seconds = judge_message(store, detail.message_id, judge)
        st.session_state["live"] = (detail.message_id, outcome, seconds)
        if outcome.status == "error" and endpoint_url:
            st.error(
                render.escape_md(f"{endpoint_url} did not answer: {outcome.raw or 'no reply'}")
            )
    except CimemError as exc:
        st.error(render.escape_md(exc))
live = st.session_state.get("live")
if live and live[0] == detail.message_id and judge is not None:
    _, outcome, seconds = live
    st.caption(
        f"{seconds:.2f} s; status {render.escape_md(outcome.status)}"
        + (
            f"; keys the judge named that are no attribute: {render.escape_md(', '.join(outcome.unmatched))}"
            if outcome.unmatched
            else ""
        )
    )
    if outcome.status != JudgmentStatus.OK:
        render.plain_text(outcome.raw or "")
    else:
        st.dataframe(audit.compare(outcome.revealed, shown), hide_index=True)
        if st.button("Save to this run's audit judge (one per model and prompt)"):
            res = rejudge(store, run_id, judge, message_ids=[detail.message_id], audit=True)
            cache.changed()
            cov = {c.judge_id: c for c in store.judge_coverage(run_id)}[res.judge_id]
            st.success(
                f"Saved to judge {res.judge_id} ({res.verdicts} verdicts on this message); it"
                f" now covers {cov.describe()} of the run."
            )

st.subheader("Human verdicts")


# drawn only while open (one radio per listed attribute was two fifths of the time Next took in
# a browser); once opened it stays open from message to message
def record_verdicts(found=audit) -> None:
    review.human_panel(
        store,
        run_id,
        detail.message_id,
        found.table(shown, only_revealed=False),
        f"judge {shown}" if shown is not None else None,
    )


render.when_opened("Record your verdicts on this message", "people_record", record_verdicts)
review.history_section(store, run_id, detail.message_id)
review.judge_against_people(store, run_id, shown, rule)

st.subheader("Agreement of two judges (whole run)")
if len(jnames) < 2:
    st.caption(
        "This run has one judge: re-judge it (above, or `python -m cimem judge`) to compare."
    )
else:
    a1, a2 = st.columns(2)
    ja = a1.selectbox("Judge A", list(jnames), format_func=lambda k: jnames[k], key="ja")
    machines = [j.judge_id for j in audit.judges if j.kind != "human" and j.judge_id != ja]
    jb = a2.selectbox(  # people's verdicts are compared above, against the judge shown
        "Judge B",
        list(jnames),
        index=list(jnames).index(machines[-1]) if machines else len(jnames) - 1,
        format_func=lambda k: jnames[k],
        key="jb",
    )
    ag = cache.agreement(ch.at, ja, jb, rule)
    o = ag.overall
    m1, m2, m3 = st.columns(3)
    m1.metric("pairs both decided", f"{o.n:,}")
    m2.metric("agreement", render.pct(o.agreement))
    m3.metric("Cohen's kappa", format_kappa(o.kappa))
    c = o.confusion
    render.static_table(
        pd.DataFrame(
            {
                "": ["A revealed", "A not revealed"],
                "B revealed": [c["both_yes"], c["b_only"]],
                "B not revealed": [c["a_only"], c["both_no"]],
            }
        )
    )
    render.static_table(review.agreement_frame(ag), digits={"agreement %": 1})
    st.caption(
        f"Label rule {render.escape_md(ag.label_rule)}; messages either judge failed to parse are"
        " left out; agreement with a Wilson 95% interval; kappa is undefined where a judge says"
        " the same on every pair of a group."
    )
    st.dataframe(pd.DataFrame(ag.disagreements), hide_index=True)
