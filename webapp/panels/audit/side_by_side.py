"""The Audit page's side by side: the message under two judges, or the same profile, task and
trial under another run (another model, prompt level or memory format), each with its judge's
evidence coloured by what it reveals. Widgets and drawing only; the audits are
cimem.analysis.audit's."""

from __future__ import annotations

import streamlit as st

from cimem.analysis.audit import MessageAudit, what_happened
from cimem.analysis.options import Mode
from webapp import cache, message_view, render, sidebar

TWO_JUDGES, TWO_RUNS = "two judges of this message", "this task in another run"


@st.fragment
def side_by_side(ch: sidebar.Choices, audit: MessageAudit, shown: int | None) -> None:
    """Draw the comparison the reader picks (two judges, or another run) under ``audit``; a
    fragment, so its pickers rerun this section only, not the whole Audit page."""
    how = st.radio("Compare", (TWO_JUDGES, TWO_RUNS), horizontal=True, key="sbs_how")
    if how == TWO_JUDGES:
        _two_judges(audit, shown, ch.opts.mode == Mode.OFFICIAL)
    else:
        _two_runs(ch, audit, shown)


def _two_judges(audit: MessageAudit, shown: int | None, official: bool) -> None:
    names = audit.judge_names()
    if len(names) < 2:
        st.caption("This run has one judge: re-judge the message above to compare two.")
        return
    ids = list(names)
    first = ids.index(shown) if shown in ids else 0
    left, right = st.columns(2)
    a = left.selectbox("Left judge", ids, index=first, format_func=lambda k: names[k], key="sbs_ja")
    b = right.selectbox(
        "Right judge",
        ids,
        index=(first + 1) % len(ids),
        format_func=lambda k: names[k],
        key="sbs_jb",
    )
    found = {j: dict(audit.revealed_keys(j)) for j in (a, b)}
    with left:
        _side(audit, a, found[a], found[b], "left", official)
    with right:
        _side(audit, b, found[b], found[a], "right", official)
    message_view.legend(note="Only here: the other side's judge did not find it.")


def _two_runs(ch: sidebar.Choices, audit: MessageAudit, shown: int | None) -> None:
    others = cache.counterparts(ch.at, audit.message.message_id)
    if not others:
        st.caption(
            "No other run has this profile (by name), recipient and task: import or make another"
            " run of the same profiles to compare models or prompt levels."
        )
        return
    names = cache.run_names(ch.at)
    by_run = {c.run_id: c for c in others}
    pick = st.selectbox(
        "Other run", list(by_run), format_func=lambda r: names.get(r, str(r)), key="sbs_run"
    )
    other = cache.message_audit(ch.at, by_run[pick].message_id, ch.opts.label_rule)
    if other is None:  # deleted meanwhile
        st.caption("That message is gone: reload the page.")
        return
    left, right = st.columns(2)
    with left:
        mine_judge = _run_header(audit, names, shown, "sbs_my_judge")
    with right:
        # the judge of the same name there (the same judge of both runs), else its first
        same = [
            j.judge_id for j in other.judges if shown is not None and j.name == _name(audit, shown)
        ]
        judge = _run_header(other, names, same[0] if same else None, "sbs_other_judge")
    mine = dict(audit.revealed_keys(mine_judge)) if mine_judge is not None else {}
    theirs = dict(other.revealed_keys(judge)) if judge is not None else {}
    with left:
        _side(audit, mine_judge, mine, theirs, "left", ch.opts.mode == Mode.OFFICIAL)
    with right:
        if other.message.text is None:
            st.warning("That run's generation failed here: there is no message.")
        else:
            _side(other, judge, theirs, mine, "right", ch.opts.mode == Mode.OFFICIAL)
    missing = (
        f" The other run has no trial {audit.message.trial}: its trial {other.message.trial}"
        " is shown."
        if other.message.trial != audit.message.trial
        else ""
    )
    message_view.legend(
        note="Only here: not found revealed on the other side. Labels under rule"
        f" {audit.label_rule}, each run's own." + missing
    )


def _name(audit: MessageAudit, judge_id: int) -> str | None:
    return next((j.name for j in audit.judges if j.judge_id == judge_id), None)


def _run_header(
    audit: MessageAudit, run_names: dict[int, str], default: int | None, key: str
) -> int | None:
    """The run's name, the message, and a picker of the run's judge (``default`` first)."""
    run = audit.message.run_id
    st.markdown(f"**{render.escape_md(run_names.get(run, str(run)))}**")
    st.caption(f"message {audit.message.message_id}, trial {audit.message.trial}")
    names = audit.judge_names()
    if not names:
        st.caption("No judge has seen this run.")
        return None
    ids = list(names)
    index = ids.index(default) if default in ids else 0
    return st.selectbox("Judge", ids, index=index, format_func=lambda k: names[k], key=key)


def _side(
    audit: MessageAudit,
    judge: int | None,
    found: dict[str, str],
    other: dict[str, str],
    side: str,
    official: bool,
) -> None:
    """One side (``side``: left or right, which keys its Show all): the message with the
    judge's coloured evidence (``official``: as official mode counts it), then what the judge
    found revealed, private first, each marked when the other side did not find it."""
    with st.container(border=True, height=360):
        message_view.show_message(
            audit.message.text or "",
            audit.evidence(judge, official),
            key=f"sbs-{side}-{audit.message.message_id}",
            alone=False,
        )
    if judge is None:
        return
    failure = audit.failure(judge)
    if failure is not None:
        st.warning(what_happened(judge, failure))
        if failure.raw:
            render.plain_text(failure.raw)
        return
    groups = (
        ("private", "Private, leaked"),
        ("share", "Needed, included"),
        (None, "Ambiguous or unlabeled"),
    )
    lines = []
    for label, title in groups:
        keys = [
            render.escape_md(k) + (" (**only here**)" if k not in other else "")
            for k, lab in found.items()
            if lab == label or (label is None and lab not in ("private", "share"))
        ]
        if keys:
            lines.append(f"**{title} ({len(keys)}):** " + ", ".join(keys))
    st.markdown("  \n".join(lines) if lines else "Nothing found revealed.")
