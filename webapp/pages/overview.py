"""Overview: one Table-1-style row per run, the published Table 1, the trade-off scatter with its
Pareto front, the discard report, and official vs definition mode."""

from dataclasses import asdict

import altair as alt
import pandas as pd
import streamlit as st

from cimem.analysis.metrics import NO_LABELS, NO_LABELS_HELP, MetricOptions, Mode
from cimem.analysis.report import frame_to_csv, pareto_front, to_latex
from cimem.demo.reference import TABLE1, TABLE1_NOTE
from webapp import linechart, render, state
from webapp.panels import judge_errors

st.title("Overview")
ch: state.Choices = st.session_state["choices"]
if not ch.runs:
    st.info(
        "Choose one or more runs with messages in the sidebar (or import one on the Data page)."
    )
    st.stop()
state.simulated_banner(ch.runs)
state.check_coverage(ch, [state.cube(ch.db, ch.v, r, state.judge_for(ch, r)) for r in ch.runs])
ov = state.overview(
    ch.db, ch.v, tuple(ch.runs), tuple(state.judge_for(ch, r) for r in ch.runs), ch.opts
)
note = render.escape_md(ov.note)
note = note[:1].upper() + note[1:]  # said as a sentence
common_cols = [c for c in ov.table.columns if c.endswith("_common")]
said_apart = not ov.comparable and not common_cols  # in its own box, below the table
st.caption(
    ch.describe() + f". Mean over profiles (their std under More columns), bootstrap 95%"
    f" interval ({ov.metrics[0].bootstrap}; none with one profile)"
    + ("." if said_apart else f". {note}.")
)
table = ov.table.copy()
unlabelled = table["labels"] == NO_LABELS
if unlabelled.any():
    st.warning(
        f"{render.escape_md(', '.join(map(str, table['run'][unlabelled])))}: {NO_LABELS_HELP}.",
        icon=":material/info:",
    )


def interval(lo, hi, none: bool = False, profiles: int = 2) -> str:
    """A bootstrap interval as text: "-" when there is none, or one profile (resampling one
    profile gives the same mean every time: a zero-width interval says nothing)."""
    if none:
        return NO_LABELS
    if profiles < 2:
        return "- (1 profile)"
    return "-" if lo != lo or hi != hi else f"[{lo:.2f}, {hi:.2f}]"


def number(x, digits: int = 2):
    return None if x is None or x != x else round(float(x), digits)


headline = pd.DataFrame(
    {
        "run": table["run"],
        "model": [m or "-" for m in table["model"]],
        "Violation@n %": [number(x) for x in table["violation_mean"]],
        "95% CI": [
            interval(a, b, u, p)
            for a, b, u, p in zip(
                table["violation_lo"], table["violation_hi"], unlabelled, table["profiles"]
            )
        ],
        "Completeness %": [number(x) for x in table["completeness_mean"]],
        "95% CI ": [
            interval(a, b, u, p)
            for a, b, u, p in zip(
                table["completeness_lo"], table["completeness_hi"], unlabelled, table["profiles"]
            )
        ],
        "n": table["n"],
        "profiles": table["profiles"],
    }
)
more = pd.DataFrame(
    {
        "run": table["run"],
        "level": [
            "-" if x is None or x != x else str(int(x)) if float(x).is_integer() else str(x)
            for x in table["level"]
        ],
        "judge": table["judge"],
        "Violation std (points)": [number(x) for x in table["violation_std"]],
        "Completeness std (points)": [number(x) for x in table["completeness_std"]],
        "per-message leak %": [number(x) for x in table["leak_rate_per_message"]],
    }
)
for col in common_cols:
    title = (
        f"Violation@{ov.common_k} % (shared contexts)"
        if col.startswith("violation")
        else "Completeness % (shared contexts)"
    )
    more[title] = [number(x) for x in table[col]]
more["simulated"] = ["yes" if x else "no" for x in table["simulated"]]
render.static_table(headline, digits={"Violation@n %": 2, "Completeness %": 2})
with st.expander(
    "More columns: level, judge, spread, per-message leak rate"
    + (", common-k comparison" if common_cols else "")
):
    render.static_table(more, digits={c: 2 for c in more.columns if more[c].dtype.kind == "f"})
    if common_cols:
        st.caption(note + ".")
if said_apart:
    st.info(note + ".")
show = headline.merge(more, on="run")
caption = f"CIMemories results ({ch.opts.mode} mode, label rule {ch.opts.label_rule})"


def latex_table() -> str:
    """The LaTeX table, made when its button is clicked; a missing cell is written "-"."""
    return to_latex(show.drop(columns=["simulated"]), caption=caption, missing="-")


# both files are made only when their button is clicked (not sent with every page)
c1, c2 = st.columns(2)
c1.download_button(
    "Table as CSV",
    lambda: frame_to_csv(show),
    file_name="cimem_table.csv",
    mime="text/csv",
    on_click="ignore",
)
c2.download_button(
    "Table as LaTeX (booktabs)",
    latex_table,
    file_name="cimem_table.tex",
    mime="text/x-tex",
    on_click="ignore",
)


SOURCES = ["this database", "published Table 1"]
SOURCE_COLOURS = ["#d62728", "#7f7f7f"]
FRONT = "Pareto front of this database's runs"


def tradeoff_layout(data: pd.DataFrame, front_data: pd.DataFrame) -> dict:
    """The trade-off chart as Vega-Lite, for its SVG and PNG downloads (on screen it is drawn in
    the page, :mod:`webapp.linechart`)."""
    base = alt.Chart(data).encode(
        x=alt.X(
            "violation:Q",
            title="Violation@n (%) — lower is better",
            scale=alt.Scale(domain=[0, 100]),
        ),
        y=alt.Y(
            "completeness:Q",
            title="Completeness (%) — higher is better",
            scale=alt.Scale(domain=[0, 100]),
        ),
        color=alt.Color(
            "source:N",
            title=None,
            scale=alt.Scale(domain=SOURCES, range=SOURCE_COLOURS),
            legend=alt.Legend(orient="bottom"),
        ),
    )
    layers = base.mark_point(size=120, filled=True) + base.mark_text(
        dx=9, align="left", fontSize=11
    ).encode(text="name", color=alt.value("#333333"))
    if len(front_data) > 1:
        layers = layers + alt.Chart(front_data).mark_line(
            strokeDash=[4, 3], color=SOURCE_COLOURS[0]
        ).encode(x="violation:Q", y="completeness:Q")
    return render.unvalidated(layers.properties(height=380, width=600)).to_dict()


def front_caption(runs: int, on_front: int) -> str:
    """What the dashed line is, or why there is none: a front needs two runs neither of which
    beats the other on both numbers."""
    if on_front > 1:
        return (
            f"Dashed: the Pareto front of this database's runs, {on_front} of the {runs} drawn"
            " (no other run has both lower violation and higher completeness)."
        )
    if runs == 0:
        return "No run of this database has both numbers, so none is drawn."
    if runs == 1:
        return "One run of this database is drawn: there is no Pareto front to join."
    return (
        f"No dashed front: one of the {runs} runs has both the lowest violation and the highest"
        " completeness, so it alone is the Pareto front."
    )


@st.fragment
def tradeoff() -> None:
    st.subheader("Trade-off: violation against completeness")
    with_paper = st.toggle(
        "Show the published Table 1 as a reference layer", value=False, help=TABLE1_NOTE
    )
    points = [
        (r, v, c)
        for r, v, c in zip(table["run"], table["violation_mean"], table["completeness_mean"])
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
    data = data.dropna(subset=["violation", "completeness"])
    front_data = data[data["pareto"]].sort_values("violation")
    rows = pd.concat(
        [
            data.assign(line="", label=data["name"]),
            front_data.assign(line=FRONT, label="") if len(front_data) > 1 else None,
        ]
    )
    enc = linechart.Encoding(
        x="violation",
        x_title="Violation@n (%) — lower is better",
        x_tip="Violation@n %",
        y="completeness",
        y_title="Completeness (%) — higher is better",
        y_tip="Completeness %",
        colour="source",
        dash="line",
        label="label",
    )
    shown = linechart.chart_data(
        rows,
        enc,
        colours=dict(zip(SOURCES, SOURCE_COLOURS, strict=True)),
        dashes={"": [1, 0], FRONT: [4, 3]},
        x_ticks=list(range(0, 101, 20)),
        x_domain=(0, 100),
        height=380,
        y_top=100,
    )
    linechart.line_chart(shown, key="tradeoff-chart")
    how = {"mode": ch.opts.mode, "label rule": ch.opts.label_rule}
    render.downloads(
        lambda: tradeoff_layout(data, front_data),
        "tradeoff",
        "tradeoff",
        table=lambda: data.rename(
            columns={"name": "run", "violation": "violation %", "completeness": "completeness %"}
        ).assign(**how),
    )
    drawn = int((data["source"] == "this database").sum())
    st.caption(front_caption(drawn, len(front_data)))


tradeoff()

st.subheader("Discard report and the two modes")
other: Mode = "definition" if ch.opts.mode == "official" else "official"
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
discards = pd.DataFrame(rows)
render.static_table(discards, digits={c: 2 for c in discards.columns if c.endswith(" %")})
st.caption(
    "Official mode drops private attributes whose key contains name/address/sex/age, "
    "drops contexts without a needed or a private attribute, and counts parse failures as "
    "nothing revealed; definition mode applies the paper's definitions literally. "
    "Ambiguous pairs are out of both."
)


def dropped_contexts() -> None:
    """The contexts official mode left out of each run's numbers, listed."""
    if ch.opts.mode != "official":
        st.caption("Switch the sidebar to official mode to list them.")
        return
    for m in ov.metrics:
        lst = m.discarded.contexts_dropped.contexts
        st.markdown(f"**{render.escape_md(m.run)}**: {len(lst)} dropped")
        if lst:
            st.dataframe(pd.DataFrame([asdict(c) for c in lst]), hide_index=True)


render.when_opened("Dropped contexts (official mode)", "ov_dropped", dropped_contexts)

judge_errors.corrected_section(ch)  # its own section: raw against corrected, when people audited
