"""Growth: how violations accumulate over tasks and samples, against 1-(1-p)^k, with the union
bound, the paper's Figure 2 points, and one attribute's hazards."""

import altair as alt
import pandas as pd
import streamlit as st

from cimem.demo.reference import FIGURE2, FIGURE2_NOTE
from webapp import render, state

st.title("Growth")
ch, cube = state.labelled_run(
    "This run has no labels: there is nothing to accumulate. Import labelled results."
)
n_tasks_all = len(set(zip(cube.ctx_recipient, cube.ctx_task)))
c1, c2, c3 = st.columns(3)
order = c1.radio(
    "Task order",
    ("random", "fixed", "worst"),
    horizontal=True,
    key="order",
    help="random: expectation over random task subsets; fixed: the listed order; "
    "worst: a greedy order that leaks most (upper envelope)",
)
samples = c2.radio(
    "Samples",
    ("first", "unbiased"),
    horizontal=True,
    help="first k trials, or the unbiased estimator from all n",
)
method = c3.radio(
    "Random-order method",
    ("exact", "montecarlo"),
    horizontal=True,
    disabled=order != "random",
    help="exact: ratio of expected counts; montecarlo: expectation of the ratio",
)
max_t = st.slider("Tasks T (up to)", 1, max(1, n_tasks_all), max(1, n_tasks_all))
max_k = st.slider("Samples per task k (up to)", 1, max(1, cube.n_trials), max(1, cube.n_trials))
by = st.radio("Lines", ("one line per k", "one line per T"), horizontal=True)


g = state.growth_curve(ch.db, ch.v, ch.run, ch.judge, ch.opts, order, samples, method, max_t, max_k)
st.caption(
    ch.describe()
    + f"; judge {render.escape_md(g.judge)}; order **{g.order}**, method **{g.method}**, "
    f"samples **{g.samples}**; {g.n_tasks} tasks, n = {g.n_trials}. Theory: "
    "1-(1-p)^k with p = c/n per attribute and task (a plug-in estimate from the same "
    "samples)."
)
rows = []
for i, t in enumerate(g.tasks):
    for j, k in enumerate(g.trials):
        rows.append({"T": t, "k": k, "value": g.violation[i][j], "curve": "observed"})
        rows.append({"T": t, "k": k, "value": g.theory[i][j], "curve": "1-(1-p)^k"})
        if order == "random":
            rows.append(
                {"T": t, "k": k, "value": g.union_bound[i][j], "curve": "union bound T·V(1)"}
            )
data = pd.DataFrame(rows).dropna()
data["value"] = 100 * data["value"]
x, line = ("T", "k") if by == "one line per k" else ("k", "T")
base = alt.Chart(data).encode(
    x=alt.X(f"{x}:Q", title="tasks T" if x == "T" else "samples per task k"),
    y=alt.Y("value:Q", title="Violation (%)"),
    color=alt.Color(f"{line}:O", title=line),
    strokeDash=alt.StrokeDash("curve:N"),
    tooltip=["T", "k", "curve", alt.Tooltip("value:Q", format=".2f")],
)
chart = base.mark_line(point=True)
if st.toggle("Show the paper's Figure 2 points (GPT-5)", help=FIGURE2_NOTE):
    ref = pd.DataFrame(
        [{"T": t, "k": k, "value": v, "curve": "paper (GPT-5)"} for t, k, v in FIGURE2]
    )
    chart = chart + alt.Chart(ref).mark_point(shape="diamond", size=120, color="black").encode(
        x=f"{x}:Q", y="value:Q", tooltip=["T", "k", "value"]
    )
render.chart(chart.properties(height=420), "growth", "growth")
last = g.violation[-1][-1]
theory_last = g.theory[-1][-1]
if last is not None and theory_last is not None:
    st.markdown(
        f"At T = {g.tasks[-1]}, k = {g.trials[-1]}: observed **{render.pct(last)}**,"
        f" independence predicts **{render.pct(theory_last)}**, gap "
        f"**{100 * (last - theory_last):+.2f} points** (positive: leaks vary between "
        "samples of one prompt more than the per-task rate suggests)."
    )
if g.stderr:
    st.caption(
        f"Monte Carlo standard error at the last point: {100 * g.stderr[-1][-1]:.3f} points."
    )

comp = state.composition(ch.db, ch.v, ch.run, ch.judge)
if comp is not None:
    st.subheader("Memory composition")
    rows = [
        {"withheld memories in the prompt": b, "measure": name, "value": 100 * v, "messages": n}
        for b, n, lr, al, co in zip(
            comp.steps, comp.messages, comp.leak_rate, comp.any_leak, comp.completeness
        )
        for name, v in (
            ("leak rate of the withheld", lr),
            ("messages leaking any withheld", al),
            ("completeness", co),
        )
        if v is not None
    ]
    render.chart(
        alt.Chart(pd.DataFrame(rows))
        .mark_line(point=True)
        .encode(
            x=alt.X("withheld memories in the prompt:Q"),
            y=alt.Y("value:Q", title="%"),
            color=alt.Color("measure:N", title=None),
            tooltip=[
                "withheld memories in the prompt",
                "measure",
                "messages",
                alt.Tooltip("value:Q", format=".1f"),
            ],
        )
        .properties(height=320),
        "composition",
        "composition",
    )
    st.caption(
        f"Each task's needed memories are kept and withheld ones added in steps; judge "
        f"{render.escape_md(comp.judge)}, parsed judgments only. These messages are not part of Violation@n"
        " or Completeness above, which use full-memory trials."
    )

st.subheader("One attribute")
names = cube.profile_names
pc1, pc2 = st.columns(2)
profile = pc1.selectbox("Profile", names)
ranked = state.ranked_attributes(ch.db, ch.v, ch.run, ch.judge, ch.opts)
keys = ranked[ranked["profile"] == profile]["key"].tolist()
if not keys:
    st.info(f"No attribute of {render.escape_md(profile)} is private in a task with samples.")
    st.stop()
key = pc2.selectbox("Attribute (most leaked first)", keys)
try:
    view = state.attribute_view(ch.db, ch.v, ch.run, ch.judge, ch.opts, profile, key)
except LookupError as exc:
    st.info(render.escape_md(exc))
    st.stop()
st.markdown(
    f"Private in **{len(view.tasks)}** tasks; first leak in the listed order: "
    + (f"task {view.first_leak[0]}, sample {view.first_leak[1]}" if view.first_leak else "never")
    + "."
)
pv = pd.DataFrame({"task": view.tasks, "p": view.p, "samples": view.samples})
render.chart(
    alt.Chart(pv)
    .mark_bar()
    .encode(
        x=alt.X("p:Q", title="leak frequency p = c/n", scale=alt.Scale(domain=[0, 1])),
        y=alt.Y("task:N", sort="-x", title=None),
        tooltip=["task", "p", "samples"],
    )
    .properties(height=max(120, 16 * len(pv))),
    "attribute_p",
    "attr_p",
)
hz = pd.DataFrame(
    {
        "step": list(range(1, len(view.hazard_tasks) + 1)),
        "hazard": view.hazard_tasks,
        "over": "tasks (random order, all samples)",
    }
)
hk = pd.DataFrame(
    {
        "step": list(range(1, len(view.hazard_samples) + 1)),
        "hazard": view.hazard_samples,
        "over": "samples (all tasks)",
    }
)
render.chart(
    alt.Chart(pd.concat([hz, hk]).dropna())
    .mark_line(point=True)
    .encode(
        x=alt.X("step:Q", title="next task / sample"),
        y=alt.Y("hazard:Q", title="hazard"),
        color="over:N",
        tooltip=["over", "step", alt.Tooltip("hazard:Q", format=".3f")],
    )
    .properties(height=260),
    "attribute_hazard",
    "attr_hz",
)
st.caption(
    "Hazard: the probability that the next task (or sample) is the first to leak this "
    "attribute, given it has not leaked before."
)
