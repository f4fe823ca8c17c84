"""Two judges of a run compared over the whole run: pickers, agreement, Cohen's kappa, the
confusion table, agreement by label, domain and stratum, and the pairs they disagree on.
Widgets and drawing only: the agreement is cimem.analysis.agreement's."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from cimem.analysis.agreement import Agreement, format_kappa
from cimem.analysis.audit import MessageAudit
from webapp import cache, render, sidebar


def agreement_section(ch: sidebar.Choices, audit: MessageAudit, label_rule: str) -> None:
    """Pick judges A and B of the message's run and draw how far they agree."""
    jnames = audit.judge_names()
    if len(jnames) < 2:
        st.caption(
            "This run has one judge: re-judge it (above, or `python -m cimem judge`) to compare."
        )
        return
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
    ag = cache.agreement(ch.at, ja, jb, label_rule)
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
    render.static_table(agreement_frame(ag), digits={"agreement %": 1})
    st.caption(
        f"Label rule {render.escape_md(ag.label_rule)}; messages either judge failed to parse are"
        " left out; agreement with a Wilson 95% interval; kappa is undefined where a judge says"
        " the same on every pair of a group."
    )
    st.dataframe(pd.DataFrame(ag.disagreements), hide_index=True)


def agreement_frame(ag: Agreement) -> pd.DataFrame:
    """Agreement by label, domain and stratum, with intervals; kappa "undefined" where so."""
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
