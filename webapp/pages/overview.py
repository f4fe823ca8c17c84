"""Overview: one Table-1-style row per run, the published Table 1, the trade-off scatter with its
Pareto front, the discard report, and official vs definition mode."""

from dataclasses import asdict

import altair as alt
import pandas as pd
import streamlit as st

from cimem.analysis.metrics import NO_LABELS, NO_LABELS_HELP, MetricOptions
from cimem.analysis.report import pareto_front, to_latex
from cimem.demo.reference import TABLE1, TABLE1_NOTE
from webapp import render, state

st.title("Overview")
ch: state.Choices = st.session_state["choices"]
if not ch.runs:
    st.info(
        "Choose one or more runs with messages in the sidebar (or import one on the Data page)."
    )
    st.stop()
state.simulated_banner(ch.runs)
ov = state.overview(
    ch.db, ch.v, tuple(ch.runs), tuple(state.judge_for(ch, r) for r in ch.runs), ch.opts
)
st.caption(
    ch.describe() + f". Mean ± std over profiles, bootstrap 95% interval "
    f"({ov.metrics[0].bootstrap}). {render.escape_md(ov.note)}."
)
table = ov.table.copy()
unlabelled = table["labels"] == NO_LABELS
if unlabelled.any():
    st.warning(
        f"{', '.join(map(str, table['run'][unlabelled]))}: {NO_LABELS_HELP}.",
        icon=":material/info:",
    )


def _ci(lo: pd.Series, hi: pd.Series) -> list[str]:
    return [NO_LABELS if none else f"[{a:.2f}, {b:.2f}]" for a, b, none in zip(lo, hi, unlabelled)]


show = pd.DataFrame(
    {
        "run": table["run"],
        "model": table["model"],
        "level": table["level"],
        "judge": table["judge"],
        "profiles": table["profiles"],
        "n": table["n"],
        "Violation@n %": table["violation_mean"].round(2),
        "± std": table["violation_std"].round(2),
        "95% CI": _ci(table["violation_lo"], table["violation_hi"]),
        "Completeness %": table["completeness_mean"].round(2),
        "± std ": table["completeness_std"].round(2),
        "95% CI ": _ci(table["completeness_lo"], table["completeness_hi"]),
        "per-message leak %": table["leak_rate_per_message"].round(2),
    }
)
for col in table.columns:
    if col.endswith("_common"):
        show[col.replace("_", " ")] = table[col].round(2)
show["simulated"] = table["simulated"]
st.dataframe(show, hide_index=True)
c1, c2 = st.columns(2)
c1.download_button(
    "Table as CSV",
    show.to_csv(index=False),
    file_name="cimem_table.csv",
    mime="text/csv",
    on_click="ignore",
)
c2.download_button(
    "Table as LaTeX (booktabs)",
    to_latex(
        show.drop(columns=["simulated"]),
        caption=f"CIMemories results ({ch.opts.mode} mode, label rule {ch.opts.label_rule})",
    ),
    file_name="cimem_table.tex",
    mime="text/x-tex",
    on_click="ignore",
)

st.subheader("Trade-off: violation against completeness")
with_paper = st.toggle(
    "Show the published Table 1 as a reference layer", value=False, help=TABLE1_NOTE
)
points = [
    (r, v, c) for r, v, c in zip(table["run"], table["violation_mean"], table["completeness_mean"])
]
front = set(pareto_front(points))
data = pd.DataFrame(
    {
        "name": table["run"],
        "violation": table["violation_mean"],
        "completeness": table["completeness_mean"],
        "source": "this database",
        "pareto": [r in front for r in table["run"]],
    }
)
if with_paper:
    paper = pd.DataFrame(
        [
            {
                "name": m,
                "violation": v,
                "completeness": c,
                "source": "published Table 1",
                "pareto": False,
            }
            for m, v, c in TABLE1
        ]
    )
    data = pd.concat([data, paper], ignore_index=True)
base = alt.Chart(data).encode(
    x=alt.X("violation:Q", title="Violation@n (%) — lower is better"),
    y=alt.Y("completeness:Q", title="Completeness (%) — higher is better"),
    color=alt.Color("source:N"),
    tooltip=["name", "violation", "completeness", "source"],
)
layers = base.mark_circle(size=120) + base.mark_text(dx=8, align="left").encode(text="name")
front_data = data[data["pareto"]].sort_values("violation")
if len(front_data) > 1:
    layers = layers + alt.Chart(front_data).mark_line(strokeDash=[4, 3], color="gray").encode(
        x="violation:Q", y="completeness:Q"
    )
render.chart(layers.properties(height=380), "tradeoff", "tradeoff")
st.caption(
    "Dashed: the Pareto front of the runs in this database (no other run has both lower"
    " violation and higher completeness)."
)

st.subheader("Discard report and the two modes")
other = "definition" if ch.opts.mode == "official" else "official"
rows = []
for r, m in zip(ch.runs, ov.metrics):
    alt_m = state.metrics(
        ch.db,
        ch.v,
        r,
        state.judge_for(ch, r),
        MetricOptions(mode=other, label_rule=ch.opts.label_rule),
    )
    by_mode = {ch.opts.mode: m, other: alt_m}
    d = m.discarded
    identity = by_mode["official"].discarded.identity_filter
    rows.append(
        {
            "run": m.run,
            "official V %": round(100 * by_mode["official"].violation.mean, 2),
            "definition V %": round(100 * by_mode["definition"].violation.mean, 2),
            "official C %": round(100 * by_mode["official"].completeness.mean, 2),
            "definition C %": round(100 * by_mode["definition"].completeness.mean, 2),
            "share pairs": d.pairs.share,
            "private pairs": d.pairs.private,
            "ambiguous pairs": d.pairs.ambiguous,
            "identity-filtered private pairs": identity.private_pairs_removed if identity else 0,
            "contexts dropped (official)": by_mode["official"].discarded.contexts_dropped.count,
            "parse failures": d.trials.parse_failures,
            "failed generations": d.trials.failed_generations,
        }
    )
st.dataframe(pd.DataFrame(rows), hide_index=True)
st.caption(
    "Official mode drops private attributes whose key contains name/address/sex/age, "
    "drops contexts without a needed or a private attribute, and counts parse failures as "
    "nothing revealed; definition mode applies the paper's definitions literally. "
    "Ambiguous pairs are out of both."
)
with st.expander("Dropped contexts (official mode)"):
    for m in ov.metrics:
        off = m if ch.opts.mode == "official" else None
        if off is None:
            continue
        lst = off.discarded.contexts_dropped.contexts
        st.markdown(f"**{render.escape_md(m.run)}**: {len(lst)} dropped")
        if lst:
            st.dataframe(pd.DataFrame([asdict(c) for c in lst]), hide_index=True)
    if ch.opts.mode != "official":
        st.caption("Switch the sidebar to official mode to list them.")
