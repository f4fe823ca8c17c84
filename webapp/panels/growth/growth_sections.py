"""The Growth page's Violation sections: (a) as tasks accumulate, at the k a slider picks; (b) as
samples accumulate, at the T a slider picks; observed against independence at the end; and the
slices made ahead while the visitor reads. Each chart section is its own fragment: moving its
slider redraws that chart alone."""

from __future__ import annotations

import streamlit as st

from cimem.analysis.growth import EXPECTED_RATIO, RATIO_OF_EXPECTATIONS, Axis, end_gap_note
from cimem.text import plural
from webapp import cache, render
from webapp.panels.growth.growth_chart import ChartText, growth_chart
from webapp.panels.growth.growth_settings import ALL, View

PREFETCH_KS = 8  # the k slider's values computed ahead, nearest the one shown first


def choose(label: str, top: int, key: str, only_one: str) -> int:
    """A slider from 1 to top (starting at top), or 1 with a caption when top is 1."""
    if top > 1:
        return st.slider(label, 1, top, top, key=key)
    st.caption(only_one)
    return 1


@st.fragment
def by_tasks(v: View) -> None:
    """Chart (a): Violation over task counts at the chosen samples per task k."""
    st.subheader("(a) Violation as tasks accumulate")
    k = choose(
        "Samples per task k",
        v.max_n,
        "growth_k",
        "Every run has one sample per task (n = 1), so k is 1.",
    )
    single = ", ".join(render.escape_md(n) for n in v.runs.with_one_task())
    paper = growth_chart(
        v,
        Axis.TASKS,
        k,
        ChartText(
            x_title=f"tasks T (k = {k} sample{'s' if k > 1 else ''} per task)",
            not_drawn=f"Not drawn at k = {k} (fewer samples per task): ",
            empty=f"No run has k = {k} samples per task.",
            note=f"One usable task only in {single}: a single point at T = 1, no curve over tasks."
            if single
            else None,
            note_if_drawn=True,
            name=f"growth_tasks_k{k}",
            key="growth_a",
        ),
    )
    shown = set() if paper is None or paper.empty else set(zip(paper["T"], paper["k"]))
    if v.show_paper and v.order == "random" and (40, 1) in shown:
        st.caption(
            "The paper's 9.6% at T = 40, k = 1 is far above T·V(1) = 4% for random task sets:"
            " its curve is likely one fixed order (switch Task order to fixed or worst)."
        )


@st.fragment
def by_samples(v: View) -> None:
    """Chart (b): Violation over samples per task at the chosen task count T."""
    st.subheader("(b) Violation as samples accumulate")
    t = choose("Tasks T", v.max_t, "growth_t", "Every run has one usable task, so T is 1.")
    growth_chart(
        v,
        Axis.SAMPLES,
        t,
        ChartText(
            x_title=f"samples per task k (T = {t} task{'s' if t > 1 else ''})",
            not_drawn=f"Not drawn at T = {t} (fewer usable tasks): ",
            empty=f"No run has T = {t} tasks.",
            note="One sample per task (n = 1): a single point per run at k = 1, no curve over"
            " samples. Runs with more samples per task show how a maximum over samples grows."
            if v.max_n == 1
            else None,
            note_if_drawn=False,
            name=f"growth_samples_T{t}",
            key="growth_b",
        ),
    )


ALL_LISTED = 4  # more runs than this: the end's sentence sums them up, the list folds


def at_the_end(v: View) -> None:
    """Observed against independence at all tasks and all samples, per run."""
    last = v.runs.end_points()
    if not last:
        return
    intervals = v.runs.end_intervals()
    each = [
        f"{render.escape_md(n)} observed **{render.pct(o)}**{_interval(intervals.get(n))},"
        f" independence predicts **{render.pct(p)}** ({100 * (o - p):+.2f} points)"
        for n, o, p in last
    ]
    if len(last) <= ALL_LISTED:
        st.markdown("At all tasks and all samples: " + "; ".join(each) + ".")
        st.caption("In brackets: the observed point's 95% interval over people like these.")
    else:
        gaps = [100 * (o - p) for _, o, p in last]
        st.markdown(
            f"At all tasks and all samples, over {plural(len(last), 'run')}: observed minus"
            f" independence from **{min(gaps):+.2f}** to **{max(gaps):+.2f}** points."
        )
        with st.expander(f"Each run at the end ({plural(len(last), 'run')})"):
            st.markdown("\n".join(f"- {x}" for x in each))
    st.caption(end_gap_note([o - p for _, o, p in last]))


def _interval(ci: tuple[float, float] | None) -> str:
    """ " [lo, hi]" in points: the observed point's 95% interval over people like these."""
    return "" if ci is None else f" [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"


def prefetch(v: View) -> None:
    """Made while you read (random order): the k slider's next slices, the worst order, then
    what the page shows under the other method (the ratio of expected counts took 2.4 s to
    switch to on three 60-profile runs, made at the click)."""
    if v.order != "random":
        return
    k = st.session_state.get("growth_k", v.max_n)
    near = sorted(range(1, v.max_n + 1), key=lambda x: abs(x - k))
    ks = [(None, (x,)) for x in near[:PREFETCH_KS]]
    scopes = [v.ch.scope(r) for r in v.runs.curves]
    cache.prefetch_growth(scopes, "random", v.samples, v.method, ks)
    cache.prefetch_growth(scopes, "worst", v.samples, v.method)
    other = str(RATIO_OF_EXPECTATIONS if v.method == EXPECTED_RATIO else EXPECTED_RATIO)
    t = st.session_state.get("growth_t", v.max_t)
    shown = [((ALL,), None), (None, (k,)), ((t,), None)]  # the settings', chart (a)'s and (b)'s
    cache.prefetch_growth(scopes, "random", v.samples, other, shown)
