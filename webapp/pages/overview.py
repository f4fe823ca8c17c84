"""Overview: one Table-1-style row per run, the published Table 1, the trade-off scatter with its
Pareto front, the discard report, and official vs definition mode."""

from dataclasses import replace

import streamlit as st

from cimem.analysis import leaderboard, overview_table
from cimem.analysis.intervals import INTERVALS_SAID
from cimem.analysis.latex import to_latex
from cimem.analysis.level_curves import cohort_note
from cimem.analysis.metrics import NO_LABELS, NO_LABELS_HELP
from cimem.analysis.options import Mode
from cimem.analysis.sheets import frame_to_csv
from cimem.demo.reference import TABLE1, TABLE1_NOTE
from webapp import cache, render, sidebar
from webapp.charts import overview as chart
from webapp.panels import judge_errors, progress
from webapp.panels.overview import level_curves, planner
from webapp.panels.overview.leaderboard import leaderboard_section

st.title("Overview")
ch: sidebar.Choices = st.session_state["choices"]
leaderboard_section(ch)
if not ch.runs:
    st.info(
        "Choose one or more runs with messages in the sidebar (or import one on the Data page)."
    )
    st.stop()
sidebar.simulated_banner(ch.runs)
progress.making_banner(ch.runs)
views = ch.views()  # the selected runs, then any shown again under another judge
sidebar.check_coverage(ch, [cache.cube(ch.scope(r)) for r in views])
ov = cache.overview(tuple(ch.scope(r) for r in views))
shown_of = sum(e.messages > 0 for e in cache.board_entries(ch.at))
st.subheader(f"Selected runs: {len(ch.runs)} of {shown_of}")
note = render.escape_md(ov.sentence)
phrase = leaderboard.selection_phrase(
    [m or leaderboard.UNKNOWN for m in ov.table["model"]], list(ov.table["judge"]), [], []
)
st.caption(
    render.escape_md(phrase)
    + "; "
    + ch.describe()
    + f". Mean over profiles (their std under More columns); {INTERVALS_SAID}"
    + ("." if ov.note_apart else f". {note}.")
)
apart = cohort_note([cache.cube(ch.scope(r)) for r in ch.runs])
if apart is not None:
    st.warning(render.escape_md(apart[:1].upper() + apart[1:]) + ".", icon=":material/group:")
unlabelled = ov.table["labels"] == NO_LABELS
if unlabelled.any():
    st.warning(
        f"{render.escape_md(', '.join(map(str, ov.table['run'][unlabelled])))}: {NO_LABELS_HELP}.",
        icon=":material/info:",
    )

headline = overview_table.headline_table(ov.table)
more = overview_table.more_table(ov)
render.static_table(headline, digits={"Violation@n %": 2, "Completeness %": 2})
with st.expander(
    "More columns: level, judge, spread, per-message leak rate, joint outcomes"
    + (", runs against each other" if ov.pairs else "")
    + (", common-k comparison" if ov.common is not None else "")
):
    render.static_table(more, digits={c: 2 for c in more.columns if more[c].dtype.kind == "f"})
    if ov.common is not None:
        st.caption(note + ".")
    if ov.pairs:
        render.static_table(overview_table.pairs_table(ov.pairs))
        st.caption(
            "Runs against each other: the contexts both have (the same person, recipient and"
            " task) and how many of those they label differently under the label rule"
            f" {render.escape_md(ch.opts.label_rule)}; runs that label a context differently"
            " measure different things there (`cimem labels diff` names the pairs)."
        )
if ov.note_apart:
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
shown_cubes = [cache.cube(ch.scope(r)) for r in ch.runs]
st.download_button(
    "Report of these runs (HTML, opens offline)",
    lambda: cache.report_html(shown_cubes, ch.opts, ch.at.path),
    file_name="cimem_report.html",
    mime="text/html",
    on_click="ignore",
    help="One file for co-authors who install nothing: this table with its intervals, the"
    " trade-off, Violation as tasks accumulate, each run's most leaked attributes, recipients,"
    " heatmap, judges and audit, and where every number comes from. The same as"
    " `python -m cimem report`.",
)


@st.fragment
def tradeoff() -> None:
    """Its own part of the page: the reference layer's toggle redraws the chart only."""
    st.subheader("Trade-off: violation against completeness")
    with_paper = st.toggle(
        "Show the published Table 1 as a reference layer", value=False, help=TABLE1_NOTE
    )
    data, front = overview_table.tradeoff_points(ov.table, TABLE1 if with_paper else ())
    how = {"mode": ch.opts.mode, "label rule": ch.opts.label_rule}
    chart.tradeoff(data, front, how, list(ov.table["run"]))


tradeoff()
level_curves.section(shown_cubes, ov.metrics[: len(ch.runs)], ch)
planner.section(shown_cubes[:2], ov.metrics[: min(2, len(ch.runs))], ch)

st.subheader("Discard report and the two modes")
other = replace(ch.opts, mode=overview_table.other_mode(ch.opts.mode))
discards = overview_table.discard_table(
    ov.metrics, [cache.metrics(ch.scope(r, other)) for r in views]
)
render.static_table(discards, digits={c: 2 for c in discards.columns if c.endswith(" %")})
cache.prefetch_overview(  # the other mode's table and plan, which the sidebar's radio shows next
    tuple(ch.scope(r, other) for r in views),
    tuple(ch.scope(r, other) for r in ch.runs[:2]),
    planner.difference() / 100,
    planner.margin() / 100,
)
st.caption(
    "Official mode drops private attributes whose key contains name/address/sex/age, "
    "drops contexts without a needed or a private attribute, and counts parse failures as "
    "nothing revealed; definition mode applies the paper's definitions literally. "
    "Ambiguous pairs are out of both."
)


def dropped_contexts() -> None:
    """The contexts official mode left out of each run's numbers, listed."""
    if ch.opts.mode != Mode.OFFICIAL:
        st.caption("Switch the sidebar to official mode to list them.")
        return
    for m in ov.metrics:
        dropped = overview_table.dropped_contexts(m)
        st.markdown(f"**{render.escape_md(m.run)}**: {len(dropped)} dropped")
        if len(dropped):
            st.dataframe(dropped, hide_index=True)


render.when_opened("Dropped contexts (official mode)", "ov_dropped", dropped_contexts)

judge_errors.corrected_section(ch)  # its own section: raw against corrected, when people audited
