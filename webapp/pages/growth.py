"""Growth: how Violation grows with the number of tasks T and samples per task k, one colour per
run, observed against 1-(1-p)^k; the paper's Figure 2 points; the memory-composition curve; one
attribute's leak frequency per task and its hazards."""

from collections.abc import Callable
from dataclasses import dataclass

import altair as alt
import pandas as pd
import streamlit as st

from cimem.analysis.composition import CompositionCurve
from cimem.analysis.growth import EXPECTED_RATIO, RATIO_OF_EXPECTATIONS, GrowthCurve
from cimem.demo.reference import FIGURE2, FIGURE2_NOTE
from webapp import cache, render, sidebar
from webapp.charts import linechart

OBSERVED, THEORY, BOUND = "observed", "1-(1-p)^k (independent samples)", "union bound T·V(1)"
STYLES = {OBSERVED: [1, 0], THEORY: [6, 4], BOUND: [2, 3]}
ALL = 10**6  # "every task": growth() clamps a task count to the run's number of tasks
PREFETCH_KS = 8  # the k slider's values computed ahead, nearest the one shown first
METHODS = {
    EXPECTED_RATIO: "expected ratio (Figure 2)",
    RATIO_OF_EXPECTATIONS: "ratio of expected counts",
}

st.title("Growth")
ch: sidebar.Choices = st.session_state["choices"]
runs = sidebar.labelled_runs(ch)
if not runs:
    st.stop()
sidebar.simulated_banner(runs)
names = cache.run_names(ch.at)
ALL_RUNS = [names.get(r, str(r)) for r in runs]  # every run keeps its colour on both charts
PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"] * 20
st.markdown(
    "How Violation grows when an assistant writes more messages: over more **tasks T** (each"
    " task a recipient and a purpose) and more **samples k** of each task. A fact counts once"
    " it has reached any recipient it should not reach, so every curve can only rise with k."
    " Over tasks a curve can dip: a new task can bring attributes that it must withhold and"
    " does not leak, which join the denominator (most often in a fixed or worst order)."
)


@dataclass(frozen=True)
class View:
    """What the growth charts are drawn for: the chosen settings and each run's curve at all
    its tasks (which also gives the sliders their ranges)."""

    order: str
    samples: str
    method: str
    show_bound: bool
    show_paper: bool
    curves: dict  # run id -> its curve at all tasks, for each k

    @property
    def max_t(self) -> int:
        return max(g.n_tasks for g in self.curves.values())

    @property
    def max_n(self) -> int:
        return max(g.n_trials for g in self.curves.values())


def settings() -> View:
    """The order, samples and method radios, the two toggles, and every run's curve at all its
    tasks (small and cheap: all tasks is one subset); the charts ask for their own slices."""
    c1, c2, c3 = st.columns([3, 2, 3])
    order = c1.radio(
        "Task order",
        ("random", "fixed", "worst"),
        horizontal=True,
        key="order",
        help="random: the average over random sets of T tasks; fixed: the tasks in their listed"
        " order; worst: a greedy order that leaks most (an upper envelope)",
    )
    samples = c2.radio(
        "Samples",
        ("first", "unbiased"),
        horizontal=True,
        key="samples",
        help="first: the first k samples of each task; unbiased: the estimator from all n",
    )
    method = c3.radio(
        "Random order: average of",
        list(METHODS),
        format_func=lambda k: METHODS[k],
        horizontal=True,
        key="method",
        disabled=order != "random",
        help="expected ratio: the mean of Violation over random task sets, what the paper's"
        " Figure 2 samples (Monte Carlo over random task orders, with its standard error);"
        " ratio of expected counts: expected leaked attributes over expected eligible ones"
        " (exact, slightly different)",
    )
    curves = {
        r: cache.growth_slice(ch.scope(r), order, samples, method, tasks=(ALL,)) for r in runs
    }
    o1, o2 = st.columns(2)
    show_bound = o1.toggle(
        "Union bound T·V(1)",
        value=False,
        disabled=order != "random",
        help="For random task sets the ratio of expected counts can never exceed T times its"
        " value at one task; that is why the paper's 9.6% over 40 tasks cannot be a plain"
        " random average.",
        key="growth_bound",
    )
    show_paper = o2.toggle(
        "Paper's Figure 2 (GPT-5)",
        value=True,
        help=FIGURE2_NOTE,
        key="growth_paper",
    )
    return View(order, samples, method, show_bound, show_paper, curves)


def describe(r: int, g: GrowthCurve) -> str:
    return (
        f"**{render.escape_md(names.get(r, g.run))}**: judge {render.escape_md(g.judge)},"
        f" {g.n_tasks} tasks, n = {g.n_trials}"
    )


def how_computed(v: View) -> None:
    """The caption saying how the curves below were computed."""
    how = {
        "random": f"method **{v.method}**"
        + (
            f" ({cache.GROWTH_DRAWS} random task orders per profile where a task count has more"
            " subsets; enumerated otherwise)"
            if v.method == EXPECTED_RATIO
            else ""
        ),
        "fixed": "the listed task order",
        "worst": "a greedy worst order per profile",
    }[v.order]
    st.caption(
        ch.describe()
        + f"; order **{v.order}**, {how}, samples **{v.samples}**. "
        + "; ".join(describe(r, g) for r, g in v.curves.items())
        + ". Theory: 1-(1-p)^k with p = c/n per attribute and task (a plug-in estimate from the"
        " same samples)."
    )


def under_observed(data: pd.DataFrame) -> list[str]:
    """The runs whose 1-(1-p)^k line coincides with their observed one (hidden under it); one
    table for every run (a table per run took three times as long, on every chart's redraw)."""
    wide = data.pivot_table(index=["run", "T", "k"], columns="curve", values="violation")
    if OBSERVED not in wide or THEORY not in wide:
        return []
    same = ((wide[OBSERVED] - wide[THEORY]).abs() < 1e-9).groupby(level="run", sort=False).all()
    return [str(run) for run in same.index[same]]


def standard_error(slices: dict) -> None:
    """The Monte Carlo standard error of what a chart shows, when it was sampled."""
    se = [x for g in slices.values() for row in (g.stderr or []) for x in row if x]
    if se:
        st.caption(
            f"Monte Carlo standard error of these points: at most {100 * max(se):.3f}"
            " percentage points (the tooltip gives each point's). It is the error of averaging"
            " over random task orders only (0 where every order gives the same value), not the"
            " uncertainty from having few profiles."
        )


def download_layout(
    x: str, x_title: str, x_max: int, styles: tuple[str, ...], with_paper: bool, runs: tuple
) -> alt.LayerChart:
    """The Vega-Lite chart that a growth chart's SVG and PNG downloads draw: one colour per run
    (``runs``: every run, so each keeps its colour on both charts, drawn or not), one dash per
    curve, integer x axis; the Figure 2 points labelled. The curves are the dataset "rows", the
    paper's points "paper" (a layout: :func:`render.layout`)."""
    axis = alt.Axis(tickMinStep=1, format="d", values=_ticks(x_max))
    base = alt.Chart(alt.NamedData("rows")).encode(
        x=alt.X(f"{x}:Q", title=x_title, axis=axis, scale=alt.Scale(domain=[1, max(2, x_max)])),
        y=alt.Y("violation:Q", title="Violation (%)"),
        color=alt.Color(
            "run:N",
            title="run",
            scale=alt.Scale(domain=list(runs), range=PALETTE[: len(runs)]),
            legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=400),
        ),
        tooltip=[
            "run:N",
            "curve:N",
            alt.Tooltip("T:Q", title="tasks T"),
            alt.Tooltip("k:Q", title="samples k"),
            alt.Tooltip("violation:Q", title="Violation %", format=".2f"),
            alt.Tooltip("se:Q", title="± standard error (points)", format=".3f"),
        ],
    )
    dash = alt.StrokeDash(
        "curve:N",
        title="line",
        scale=alt.Scale(domain=list(styles), range=[STYLES[c] for c in styles]),
        legend=alt.Legend(
            orient="bottom",
            direction="vertical",
            symbolType="stroke",
            symbolStrokeColor="#333",
            symbolStrokeWidth=2,
            symbolSize=600,
            labelLimit=400,
        ),
    )
    layers = base.mark_line(strokeWidth=2).encode(strokeDash=dash) + base.mark_point(
        filled=True, size=30
    )
    if with_paper:
        pts = alt.Chart(alt.NamedData("paper")).encode(x=f"{x}:Q", y="violation:Q")
        layers = (
            layers
            + pts.mark_point(shape="diamond", size=140, color="black", filled=True).encode(
                tooltip=["label:N", alt.Tooltip("violation:Q", title="published %")]
            )
            + pts.mark_text(
                fontSize=12,
                align=alt.ExprRef("datum.align"),
                dx=alt.ExprRef("datum.dx"),
                dy=alt.ExprRef("datum.dy"),
            ).encode(text="label:N")
        )
    return layers.properties(height=400)


def _ticks(n: int) -> list[int]:
    step = 1 if n <= 12 else (5 if n <= 60 else 10)
    return sorted({1, *range(step, n + 1, step), n})


def curve_rows(v: View, r: int, g: GrowthCurve, axis: str, at: int) -> list[dict]:
    """Rows of one run's grid along T (at k = at) or along k (at T = at)."""
    rows: list[dict] = []
    name = names.get(r, g.run)
    if axis == "T":
        if at not in g.trials:
            return rows
        j = g.trials.index(at)
        points = [(i, j, t, at) for i, t in enumerate(g.tasks)]
    else:
        if at not in g.tasks:
            return rows
        i = g.tasks.index(at)
        points = [(i, j, at, k) for j, k in enumerate(g.trials)]
    for i, j, t, k in points:
        se = g.stderr[i][j] if g.stderr else None
        for curve, grid in ((OBSERVED, g.violation), (THEORY, g.theory)):
            value = grid[i][j]
            if value is not None:
                rows.append(
                    {
                        "run": name,
                        "curve": curve,
                        "T": t,
                        "k": k,
                        "violation": 100 * value,
                        "se": None if se is None or curve != OBSERVED else 100 * se,
                    }
                )
        bound = g.union_bound[i][j] if v.show_bound and g.union_bound else None
        if bound is not None:
            rows.append(
                {
                    "run": name,
                    "curve": BOUND,
                    "T": t,
                    "k": k,
                    "violation": 100 * bound,
                }
            )
    return rows


def paper_points(v: View, axis: str, at: int, curves: pd.DataFrame, x_max: int) -> pd.DataFrame:
    """The paper's points on this chart, each with where its label goes
    (:func:`render.label_place`)."""
    if not v.show_paper:
        return pd.DataFrame()
    pts = []
    for t, k, pv in FIGURE2:
        x = k if axis == "k" else t
        if (k if axis == "T" else t) != at or t > v.max_t or k > v.max_n:
            continue
        here = curves.loc[curves[axis] == x, "violation"]
        align, dx, dy = render.label_place(
            (x - 1) / max(1, x_max - 1), above=here.empty or pv >= here.max()
        )
        label = f"GPT-5, paper (T={t}, k={k}): {pv}%"
        pts.append(
            {"T": t, "k": k, "violation": pv, "label": label, "align": align, "dx": dx, "dy": dy}
        )
    return pd.DataFrame(pts)


def paper_note(v: View, axis: str, at: int, shown: pd.DataFrame) -> None:
    """Say where the paper's points are when none is on this chart."""
    if not v.show_paper or not shown.empty:
        return
    where = "; ".join(f"(T = {t}, k = {k})" for t, k, _ in FIGURE2)
    st.caption(
        f"The paper's Figure 2 points are at {where}; none is on this chart"
        f" (these runs have {v.max_t} tasks and n = {v.max_n})."
    )


def choose(label: str, top: int, key: str, only_one: str) -> int:
    """A slider from 1 to top (starting at top), or 1 with a caption when top is 1."""
    if top > 1:
        return st.slider(label, 1, top, top, key=key)
    st.caption(only_one)
    return 1


def growth_chart(
    v: View,
    axis: str,
    at: int,
    *,
    x_title: str,
    not_drawn: str,
    empty: str,
    note: str | None,
    note_if_drawn: bool,
    name: str,
    key: str,
) -> pd.DataFrame | None:
    """Violation along tasks (axis "T", at k = at) or along samples (axis "k", at T = at): one
    line per run that reaches `at`, the others named after `not_drawn`; `empty` when there is no
    point, `note` before the chart (only when there is one if note_if_drawn). Returns the
    paper's points on the chart, or None when nothing is drawn."""

    def reach(g: GrowthCurve) -> int:
        return g.n_trials if axis == "T" else g.n_tasks

    slices = {
        r: cache.growth_slice(
            ch.scope(r),
            v.order,
            v.samples,
            v.method,
            tasks=None if axis == "T" else (at,),
            trials=(at,) if axis == "T" else None,
        )
        for r, g in v.curves.items()
        if reach(g) >= at
    }
    rows = [row for r, g in slices.items() for row in curve_rows(v, r, g, axis, at)]
    left_out = [names.get(r, g.run) for r, g in v.curves.items() if reach(g) < at]
    if left_out:
        st.caption(not_drawn + ", ".join(render.escape_md(s) for s in left_out))
    if note and not note_if_drawn:
        st.info(note)
    if not rows:
        st.info(empty)
        return None
    if note and note_if_drawn:
        st.info(note)
    x_max = v.max_t if axis == "T" else v.max_n
    data = pd.DataFrame(rows)
    paper = paper_points(v, axis, at, data, x_max)
    draw(axis, at, x_title, x_max, data, paper, name, key, lambda: numbers(data, v))
    hidden = under_observed(data)
    if hidden:
        n_of = {names.get(r, g.run): g.n_trials for r, g in v.curves.items()}
        why = " (with n = 1 each p is 0 or 1)" if all(n_of.get(r) == 1 for r in hidden) else ""
        st.caption(
            f"For {', '.join(render.escape_md(r) for r in hidden)}, 1-(1-p)^k equals observed at"
            f" every point drawn{why}, so the dashed line lies under the solid one."
        )
    standard_error(slices)
    paper_note(v, axis, at, paper)
    return paper


def draw(
    axis: str,
    at: int,
    x_title: str,
    x_max: int,
    data: pd.DataFrame,
    paper: pd.DataFrame,
    name: str,
    key: str,
    table: Callable[[], pd.DataFrame],
) -> None:
    """One growth chart drawn in the page (:mod:`webapp.charts.linechart`), with SVG and PNG downloads
    that Vega-Lite draws from the same rows when one is clicked, and its numbers (``table``) as
    CSV."""
    styles = tuple(c for c in STYLES if c in set(data["curve"]))
    enc = linechart.Encoding(
        x=axis,
        x_title=x_title,
        x_tip="tasks T" if axis == "T" else "samples k",
        y="violation",
        y_title="Violation (%)",
        y_tip="Violation %",
        colour="run",
        dash="curve",
        colour_title="run",
        dash_title="line",
        extra="se",
        extra_tip="± Monte Carlo error over task orders (points)",
        fixed=("samples k", at) if axis == "T" else ("tasks T", at),
    )
    shown = linechart.chart_data(
        data,
        enc,
        colours=dict(zip(ALL_RUNS, PALETTE, strict=False)),
        dashes={c: STYLES[c] for c in styles},
        x_ticks=_ticks(x_max),
        x_domain=(1, max(2, x_max)),
        marks=paper,
    )
    linechart.line_chart(shown, key=f"{key}-chart")

    def spec() -> dict:
        layout = render.layout(
            download_layout, axis, x_title, x_max, styles, not paper.empty, tuple(ALL_RUNS)
        )
        return render.with_rows(layout, {"rows": data, **({"paper": paper} if len(paper) else {})})

    render.downloads(spec, name, key, table=table)


def numbers(data: pd.DataFrame, v: View) -> pd.DataFrame:
    """A chart's rows as a table (its CSV download), with how they were computed: each run's
    judge, mode, label rule, task order, samples, and the random order's method."""
    judges = {names.get(r, g.run): g.judge for r, g in v.curves.items()}
    out = data.rename(
        columns={
            "curve": "line",
            "T": "tasks T",
            "k": "samples k",
            "violation": "violation %",
            "se": "Monte Carlo error (points)",
        }
    )
    return out.assign(
        judge=out["run"].map(judges),
        mode=ch.opts.mode,
        **{
            "label rule": ch.opts.label_rule,
            "task order": v.order,
            "samples": v.samples,
            "method": v.method if v.order == "random" else "-",
        },
    )


@st.fragment
def by_tasks(v: View) -> None:
    st.subheader("(a) Violation as tasks accumulate")
    k = choose(
        "Samples per task k",
        v.max_n,
        "growth_k",
        "Every run has one sample per task (n = 1), so k is 1.",
    )
    single = ", ".join(
        render.escape_md(names.get(r, g.run)) for r, g in v.curves.items() if g.n_tasks == 1
    )
    paper = growth_chart(
        v,
        "T",
        k,
        x_title=f"tasks T (k = {k} sample{'s' if k > 1 else ''} per task)",
        not_drawn=f"Not drawn at k = {k} (fewer samples per task): ",
        empty=f"No run has k = {k} samples per task.",
        note=f"One usable task only in {single}: a single point at T = 1, no curve over tasks."
        if single
        else None,
        note_if_drawn=True,
        name=f"growth_tasks_k{k}",
        key="growth_a",
    )
    shown = set() if paper is None or paper.empty else set(zip(paper["T"], paper["k"]))
    if v.show_paper and v.order == "random" and (40, 1) in shown:
        st.caption(
            "The paper's 9.6% at T = 40, k = 1 is far above T·V(1) = 4% for random task sets:"
            " its curve is likely one fixed order (switch Task order to fixed or worst)."
        )


@st.fragment
def by_samples(v: View) -> None:
    st.subheader("(b) Violation as samples accumulate")
    t = choose("Tasks T", v.max_t, "growth_t", "Every run has one usable task, so T is 1.")
    growth_chart(
        v,
        "k",
        t,
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
    )


def at_the_end(v: View) -> None:
    """Observed against independence at all tasks and all samples, per run."""
    last = [
        (names.get(r, g.run), g.violation[-1][-1], g.theory[-1][-1])
        for r, g in v.curves.items()
        if g.violation and g.violation[-1][-1] is not None and g.theory[-1][-1] is not None
    ]
    if last:
        st.markdown(
            "At all tasks and all samples: "
            + "; ".join(
                f"{render.escape_md(n)} observed **{render.pct(o)}**, independence predicts"
                f" **{render.pct(p)}** ({100 * (o - p):+.2f} points)"
                for n, o, p in last
            )
            + "."
        )
        st.caption(end_gap_note([o - p for _, o, p in last]))


def end_gap_note(gaps: list[float]) -> str:
    """What the gap at k = n says, and what it does not. p = c/n comes from the same n samples,
    so for each pair 1-(1-c/n)^n is at most the observed 1 (c > 0) and equal to it when c is 0
    or n: the gap is never negative, and is no test of independence."""
    if all(abs(g) < 5e-7 for g in gaps):
        return (
            "Equal: every prompt's samples agree, all leaking an attribute or none (always so"
            " with n = 1), so each p = c/n is 0 or 1 and the formula gives the observed value."
        )
    return (
        "The formula's p = c/n comes from these same n samples, so at k = n it can only fall"
        " short of the observed worst case: the gap is 0 where a prompt's samples agree (all"
        " leak an attribute or none) and grows the more they disagree. Independent samples"
        " give a positive gap too, so it is no test of independence."
    )


def prefetch(v: View) -> None:
    """Made while you read (random order): the k slider's next slices, then the worst order."""
    if v.order != "random":
        return
    near = sorted(
        range(1, v.max_n + 1), key=lambda k: abs(k - st.session_state.get("growth_k", v.max_n))
    )
    ks = [(None, (k,)) for k in near[:PREFETCH_KS]]
    cache.prefetch_growth([ch.scope(r) for r in runs], "random", v.samples, v.method, ks)
    cache.prefetch_growth([ch.scope(r) for r in runs], "worst", v.samples, v.method)


@st.fragment
def violation_growth() -> None:
    """Its own part of the page: a change of order, samples, method or toggle redraws these
    two charts, not the charts below that do not depend on them."""
    v = settings()
    how_computed(v)
    by_tasks(v)
    by_samples(v)
    at_the_end(v)
    prefetch(v)


violation_growth()

COMPOSITION = {  # measure: colour
    "leak rate of the withheld": "#d62728",
    "messages leaking any withheld": "#ff7f0e",
    "completeness": "#2ca02c",
}


def composition_chart(comp: CompositionCurve, run_name: str, judge: str) -> None:
    """The memory-composition curves drawn in the page (:mod:`webapp.charts.linechart`; as a Vega chart
    it loaded the chart library for this one chart), with SVG, PNG and CSV downloads."""
    rows = pd.DataFrame(
        [
            {"withheld": b, "measure": name, "value": 100 * v, "messages": n, "line": ""}
            for b, n, lr, al, co in zip(
                comp.steps, comp.messages, comp.leak_rate, comp.any_leak, comp.completeness
            )
            for name, v in zip(COMPOSITION, (lr, al, co))
            if v is not None
        ]
    )
    if rows.empty:
        st.info("No composition message has a parsed judgment yet.")
        return
    enc = linechart.Encoding(
        x="withheld",
        x_title="withheld memories in the prompt",
        x_tip="withheld memories",
        y="value",
        y_title="Share (%)",
        y_tip="share %",
        colour="measure",
        dash="line",
        extra="messages",
        extra_tip="judged messages at this step",
    )
    low, high = int(rows["withheld"].min()), int(rows["withheld"].max())
    step = max(1, -(-(high - low) // 10))
    shown = linechart.chart_data(
        rows,
        enc,
        colours=COMPOSITION,
        dashes={"": [1, 0]},
        x_ticks=sorted({*range(low, high + 1, step), high}),
        x_domain=(low, max(high, low + 1)),
        height=320,
        y_top=100,
    )
    linechart.line_chart(shown, key="composition-chart")

    def spec() -> dict:
        return render.unvalidated(
            alt.Chart(rows)
            .mark_line(point=True)
            .encode(
                x=alt.X(
                    "withheld:Q",
                    title="withheld memories in the prompt",
                    axis=alt.Axis(tickMinStep=1, format="d"),
                ),
                y=alt.Y("value:Q", title="Share (%)", scale=alt.Scale(domain=[0, 100])),
                color=alt.Color(
                    "measure:N",
                    title=None,
                    scale=alt.Scale(domain=list(COMPOSITION), range=list(COMPOSITION.values())),
                ),
            )
            .properties(height=320, width=600)
        ).to_dict()

    def table() -> pd.DataFrame:
        return (
            rows.drop(columns="line")
            .rename(columns={"withheld": "withheld memories", "value": "value %"})
            .assign(run=run_name, judge=judge)
        )

    render.downloads(spec, "composition", "composition", table=table)


first = runs[0]
comp = cache.composition(ch.scope(first))
if comp is not None:
    judge_name = next(
        (j.name for j in cache.judges_of(ch.at, first) if j.judge_id == comp.judge),
        str(comp.judge),
    )
    st.subheader(f"Memory composition ({render.escape_md(names.get(first, str(first)))})")
    composition_chart(comp, names.get(first, str(first)), judge_name)
    st.caption(
        f"Each task's needed memories are kept and withheld ones added in steps; judge "
        f"{render.escape_md(judge_name)}, parsed judgments only. These messages are not part"
        " of Violation@n"
        " or Completeness above, which use full-memory trials."
    )


@st.fragment
def one_attribute() -> None:
    """Its own part of the page, folded and drawn only when opened: drawing its two charts on
    every visit was about a fifth of what a revisit of the page cost (server and browser)."""
    name = render.escape_md(names.get(runs[0], str(runs[0])))
    render.when_opened(
        f"One attribute ({name}): its leak frequency per task, and when it first leaks",
        "growth_one",
        attribute_detail,
    )


def attribute_detail() -> None:
    run = runs[0]
    judge = sidebar.judge_for(ch, run)
    cube = cache.cube(ch.at.run(run, judge))
    pc1, pc2 = st.columns(2)
    profile = pc1.selectbox("Profile", cube.profile_names, key="growth_profile")
    ranked = cache.ranked_attributes(ch.at.run(run, judge, ch.opts))
    keys = ranked[ranked["profile"] == profile]["key"].tolist()
    if not keys:
        st.info(f"No attribute of {render.escape_md(profile)} is private in a task with samples.")
        return
    key = pc2.selectbox("Attribute (most leaked first)", keys, key="growth_key")
    try:
        view = cache.attribute_view(ch.at.run(run, judge, ch.opts), profile, key)
    except LookupError as exc:
        st.info(render.escape_md(str(exc)))
        return
    st.markdown(
        f"Private in **{len(view.tasks)}** tasks; first leak in the listed order: "
        + (
            f"task {view.first_leak[0]}, sample {view.first_leak[1]}"
            if view.first_leak
            else "never"
        )
        + "."
    )
    pv = pd.DataFrame({"task": view.tasks, "p": view.p, "samples": view.samples})
    pv["leak frequency %"] = 100 * pv["p"]
    render.chart(
        alt.Chart(pv)
        .mark_bar()
        .encode(
            x=alt.X(
                "leak frequency %:Q",
                title="leak frequency p = c/n (% of this task's samples)",
                scale=alt.Scale(domain=[0, 100]),
            ),
            y=alt.Y(
                "task:N",
                sort="-x",
                title=None,
                axis=alt.Axis(labelLimit=360, labelOverlap=False),  # every bar named
            ),
            tooltip=["task", alt.Tooltip("leak frequency %:Q", format=".0f"), "samples"],
        )
        .properties(height=max(120, 20 * len(pv))),
        "attribute_p",
        "attr_p",
    )
    hz = pd.DataFrame(
        {
            "step": range(1, len(view.hazard_tasks) + 1),
            "hazard": view.hazard_tasks,
            "over": "next task (random order, all samples)",
        }
    )
    hk = pd.DataFrame(
        {
            "step": range(1, len(view.hazard_samples) + 1),
            "hazard": view.hazard_samples,
            "over": "next sample (all tasks)",
        }
    )
    both = pd.concat([hz, hk]).dropna()
    both["hazard %"] = 100 * both["hazard"]
    render.chart(
        alt.Chart(both)
        .mark_line(point=True)
        .encode(
            x=alt.X(
                "step:Q", title="task or sample number", axis=alt.Axis(format="d", tickMinStep=1)
            ),
            y=alt.Y("hazard %:Q", title="hazard (%)"),
            color=alt.Color("over:N", title=None, legend=alt.Legend(orient="bottom")),
            tooltip=["over", "step", alt.Tooltip("hazard %:Q", format=".1f")],
        )
        .properties(height=260),
        "attribute_hazard",
        "attr_hz",
    )
    st.caption(
        "Hazard: the chance that the next task (or sample) is the first to leak this attribute,"
        " given it has not leaked before. It is undefined after a sure leak, so a curve can"
        " stop early (a single point when the first sample always leaks)."
    )


one_attribute()
