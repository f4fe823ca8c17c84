"""Leaks: slice by profile, domain, event, attribute, recipient and task; the attribute x task
heatmap; the attributes leaked most and the recipients that receive most; the messages behind."""

import functools

import altair as alt
import pandas as pd
import streamlit as st

from cimem.analysis.audit import AMBIGUOUS, EVIDENCE_KINDS, Evidence
from webapp import cache, render, sidebar
from webapp.heatgrid import heat_grid

st.title("Leaks")
ch, cube = sidebar.labelled_run(
    "This run has no labels, so nothing counts as a leak. Import a labelled results file (official"
    " run output) or labels (Hugging Face rows) for these profiles."
)
m = cache.metrics(ch.scope(ch.run_id))
FILTERED = ("profile", "domain", "event", "recipient", "task")
TOP = 30  # attributes on the heatmap at first


def filters_of(chosen: dict[str, list[str]], search: str) -> tuple:
    """The filter selection as the state functions take it: ((column, values), ...) for the
    columns with a choice, then ("search", text) when text is typed."""
    picked = tuple((col, tuple(chosen[col])) for col in FILTERED if chosen.get(col))
    return picked + ((("search", search),) if search else ())


st.caption(
    f"Run {render.escape_md(m.run)}; "
    + ch.describe(m)
    + ". A leak: a withheld attribute that the judge found in a sample. Percentages are leaks"
    " / samples; a dash means there is nothing to count (no such pair)."
)


@st.fragment
def explore() -> None:
    """The filters and everything they feed, one part of the page: a filter change reruns it
    alone, not the sidebar, the title and the caption."""
    # Everything below is made before any of it is drawn, from the widgets' values as they
    # stand (the same calls below then find it made): a browser redraws the whole page after
    # each pause in what the server sends, so work done between two elements costs a redraw.
    as_they_stand = filters_of(
        {col: st.session_state.get(f"f_{col}") or [] for col in FILTERED},
        st.session_state.get("f_search", ""),
    )
    cache.make_leaks_page(
        ch.scope(ch.run_id),
        cache.effective_filters(ch.scope(ch.run_id), as_they_stand),
        st.session_state.get("heat_private", True),
        st.session_state.get("heat_top", TOP),
    )
    options = cache.filter_options(ch.scope(ch.run_id))

    def listed(box, label: str, col: str) -> list[str]:
        """A filter's list; with no value to choose, its help says why (it is drawn disabled)."""
        empty = f"This run's file names no {label.lower()}, so there is nothing to filter by."
        return box.multiselect(
            label, options[col], key=f"f_{col}", help=None if options[col] else empty
        )

    # A domain list as short as the benchmark's ten is a row of pills: all in sight, one click
    # each (a list opens, then takes a click, and costs the browser about twice the work); the
    # bound is that of the pages made ahead, so every pill's page is made while you read.
    as_pills = 1 < len(options["domain"]) <= cache.ONE_VALUE_PAGES
    picked: dict[str, list[str]] = {}
    if as_pills:
        picked["domain"] = (
            st.pills(
                "Domain",
                options["domain"],
                selection_mode="multi",
                format_func=render.escape_md,  # a pill's text is read as markdown
                key="f_domain",
                help="Click domains to keep only their attributes; click again to drop one.",
            )
            or []
        )
    lists = [col for col in FILTERED if col not in picked]
    boxes = [*st.columns(3), *st.columns([2, 1] if as_pills else 3)]  # the lists, then the text
    for box, col in zip(boxes, lists, strict=False):
        picked[col] = listed(box, col.capitalize(), col)
    search = boxes[len(lists)].text_input("Attribute contains", "", key="f_search")
    chosen = filters_of(picked, search)
    filters = cache.effective_filters(ch.scope(ch.run_id), chosen)
    if cache.matching_pairs(ch.scope(ch.run_id), filters) == 0:
        st.info("No pair matches these filters.")
        return
    heatmap(filters)
    messages(cache.leaky_pairs(ch.scope(ch.run_id), filters))
    attribute_tables(cache.leak_tables(ch.scope(ch.run_id), filters), filters)
    # made while you read: the cells of the heatmap's other colouring, which its toggle shows,
    # and with no filter set, each domain's page (the filter most often set first)
    private = st.session_state.get("heat_private", True)
    top = st.session_state.get("heat_top", TOP)
    cache.prefetch_heat_cells(ch.scope(ch.run_id), filters, not private, top)
    if not filters:
        cache.prefetch_leaks_pages(ch.scope(ch.run_id), "domain", private, top)


def static(frame: pd.DataFrame) -> None:
    """A table nobody selects from, drawn static (much cheaper in the browser than a grid)."""
    render.static_table(frame, digits={c: 1 for c in frame.columns if c.endswith("%")})


def paged(frame: pd.DataFrame, key: str, size: int = 20) -> pd.DataFrame:
    """Only the rows on screen: a page of ``size`` rows and a page picker when there are more."""
    pages = max(1, -(-len(frame) // size))
    page = 1
    if pages > 1:
        if st.session_state.get(f"{key}_page", 1) > pages:  # fewer rows after a filter
            st.session_state[f"{key}_page"] = 1
        row = st.container(horizontal=True, vertical_alignment="bottom")
        page = row.number_input(f"Page (of {pages})", 1, pages, 1, key=f"{key}_page", width=160)
        row.caption(
            f"{len(frame):,} rows; rows {(page - 1) * size + 1}-{min(len(frame), page * size)}"
        )
    return frame.iloc[(page - 1) * size : page * size]


def pick(chosen: tuple[str, str] | None) -> None:
    """Remember the heatmap cell (attribute, task) just chosen or cleared, and rerun the page so
    the messages follow."""
    if chosen != st.session_state.get("leak_pick"):
        st.session_state["leak_pick"] = chosen
        st.rerun()


@st.fragment
def heatmap(filters: tuple) -> None:
    """Its own part of the page: the toggle and the slider redraw the heatmap only."""
    st.subheader("Attribute x task")
    c1, c2 = st.columns([2, 3])
    only_private = c1.toggle(
        "Private cells only (leak frequency)",
        value=True,
        key="heat_private",
        help="Off: every labelled cell, coloured by its label",
    )
    top = c2.slider("Attributes shown (most leaked first)", 5, 80, TOP, step=5, key="heat_top")
    cells = cache.heat_cells(ch.scope(ch.run_id), filters, only_private, top)
    if cells.empty:
        st.info("No private cell with samples here.")
    elif only_private and cells["leaks"].sum() == 0:
        st.success(
            f"No leaks here: none of the {cells['samples'].sum():,} samples of these"
            f" {cells['key'].nunique()} withheld attributes revealed one."
        )
    else:
        draw_heatmap(cells, only_private, filters)


def heatmap_layout(colour: str):
    """The heatmap as a chart, for its downloads (on screen it is a table,
    :mod:`webapp.heatgrid`): every row labelled, rows and columns in the order of the cells'
    row_order and column_order, coloured by ``colour``: "frequency" (the leak frequency's
    scale, white at 0%) or "label"; a place with no cell grey, as on screen. A layout:
    :func:`render.layout`."""
    if colour == "frequency":
        color = alt.Color(
            "frequency:Q",
            title="leak frequency",
            scale=alt.Scale(domain=render.LEAK_STOPS, range=render.LEAK_COLOURS, interpolate="rgb"),
            legend=alt.Legend(format=".0%", values=[0, 0.05, 0.25, 0.5, 1]),
        )
    else:
        color = alt.Color(
            "label:N",
            title="label",
            scale=alt.Scale(
                domain=list(render.LABEL_COLOURS), range=list(render.LABEL_COLOURS.values())
            ),
        )
    return (
        alt.Chart(alt.NamedData("cells"))
        .mark_rect(stroke="#e6e6e6", strokeWidth=0.5)
        .encode(
            x=alt.X(
                "column:N",
                title=None,
                sort=alt.EncodingSortField("column_order", op="min"),
                axis=alt.Axis(labelAngle=-90, labelLimit=240, labelOverlap=False, orient="top"),
            ),
            y=alt.Y(
                "row:N",
                title=None,
                sort=alt.EncodingSortField("row_order", op="min"),
                axis=alt.Axis(labelLimit=260, labelOverlap=False, labelFontSize=11),
            ),
            color=color,
        )
        .properties(
            height=alt.Step(18),
            width=alt.Step(18),
            title=alt.TitleParams(
                "grey: " + ("not withheld in that task" if colour == "frequency" else "no label"),
                orient="bottom",
                anchor="start",
                fontSize=11,
                fontWeight="normal",
            ),
        )
        .configure_view(fill=render.NO_CELL_COLOUR)  # a place with no cell, as on screen
    )


def coloured(cells: pd.DataFrame, only_private: bool) -> pd.DataFrame:
    """The cells with their colour ("fill"): by leak frequency, or by label."""
    if only_private:
        fill = render.ramp_colours(cells["frequency"], render.LEAK_STOPS, render.LEAK_COLOURS)
    else:
        by_label = cells["label"].astype(str).map(render.LABEL_COLOURS)
        fill = by_label.fillna(render.LABEL_COLOURS["ambiguous"]).tolist()
    return cells.assign(fill=pd.Categorical(fill))


LEGEND_BOX = "display:inline-block;vertical-align:middle;border:1px solid #ccc"


def legend_html(only_private: bool) -> str:
    """The heatmap's legend (the table draws none): the frequency ramp with its percentages,
    or the three labels' colours. Made from this page's constants only, never from data."""
    if only_private:
        ramp = ",".join(
            f"{c} {100 * s:g}%" for s, c in zip(render.LEAK_STOPS, render.LEAK_COLOURS, strict=True)
        )
        ticks = "".join(
            f'<span style="position:absolute;left:{p}%;transform:translateX(-50%)">{p}%</span>'
            for p in (0, 25, 50, 75, 100)
        )
        return (
            '<div style="font-size:13px;margin:0 0 4px 0">leak frequency '
            f'<span style="{LEGEND_BOX};position:relative;width:240px;height:12px;'
            "margin:0 16px 14px 8px;"
            f'background:linear-gradient(to right,{ramp})">'
            f'<span style="position:absolute;top:13px;left:0;width:100%;font-size:11px">{ticks}'
            f"</span></span>{swatch(render.NO_CELL_COLOUR)}not withheld in that task</div>"
        )
    swatches = "".join(f"{swatch(c)}{n}" for n, c in render.LABEL_COLOURS.items())
    return (
        '<div style="font-size:13px;margin:0 0 4px 0">label '
        f"{swatches}{swatch(render.NO_CELL_COLOUR)}no label</div>"
    )


def swatch(colour: str) -> str:
    """A legend's square of one colour (from this page's constants)."""
    return (
        f'<span style="{LEGEND_BOX};width:12px;height:12px;margin:0 4px 0 12px;'
        f'background:{colour}"></span>'
    )


def draw_heatmap(cells: pd.DataFrame, only_private: bool, filters: tuple) -> None:
    """The heatmap of these cells, its legend and downloads. A click on a cell chooses it (the
    messages below follow), a click on the chosen cell clears the choice."""
    chosen = st.session_state.get("leak_pick")
    fills = coloured(cells, only_private)
    clicked = heat_grid(fills, chosen, "heat", blank=render.NO_CELL_COLOUR)
    st.html(legend_html(only_private))
    layout = "frequency" if only_private else "label"
    render.downloads(
        lambda: render.with_rows(render.layout(heatmap_layout, layout), {"cells": fills}),
        "leak_heatmap",
        "heat_download",
        table=functools.partial(heatmap_table, cells, how_computed(filters)),
    )
    st.caption(
        f"{render.plural(cells['row'].nunique(), 'attribute')} (rows, most leaked first) x"
        f" {render.plural(cells['column'].nunique(), 'task')} (columns, recipient: purpose,"
        " most leaked first), pooled over the filtered profiles. Long names are cut short;"
        " hover a name for its full text, and a cell for its counts. Click a cell to list the"
        " messages behind it, below; click it again to clear. By keyboard: Tab to the heatmap,"
        " the arrow keys, Enter."
    )
    if clicked is not None:
        pick(None if clicked == chosen else clicked)


HEAT_COLUMNS = {
    "key": "attribute",
    "context": "task (recipient: purpose)",
    "label": "label",
    "leaks": "leaks",
    "samples": "samples",
    "frequency": "leak frequency %",
    "profiles": "profiles",
}


def how_computed(filters: tuple) -> dict[str, str | int]:
    """How the heatmap's numbers were computed, for its CSV: run, mode, label rule, judge,
    samples per task and the ``filters`` that act (:func:`filters_of`; a download's file is made
    on another thread, so it is said while the page runs)."""
    said = [
        f"attribute contains: {values}" if col == "search" else f"{col}: {', '.join(values)}"
        for col, values in filters
    ]
    return {
        "run": m.run,
        "mode": ch.opts.mode,
        "label rule": ch.opts.label_rule,
        "judge": m.judge,
        "n": m.n_trials,
        "filters": "; ".join(said) or "none",
    }


def heatmap_table(cells: pd.DataFrame, how: dict[str, str | int]) -> pd.DataFrame:
    """The heatmap's cells as a table (its CSV download), each row with ``how`` they were
    computed."""
    out = cells[list(HEAT_COLUMNS)].rename(columns=HEAT_COLUMNS)
    for col in ("attribute", "task (recipient: purpose)", "label"):
        out[col] = out[col].astype(str)
    out["leak frequency %"] = 100 * out["leak frequency %"].astype(float)
    return out.assign(**how)


ATTR_COLUMNS = {
    "profile": "profile",
    "key": "attribute",
    "domain": "domain",
    "private_tasks": "private in tasks",
    "leaked_tasks": "leaked in tasks",
    "leaks": "leaks",
    "samples": "samples",
    "leak_rate": "leak rate %",
}
GROUP_COLUMNS = {
    "recipient": "recipient",
    "task": "task",
    "domain": "domain",
    "profile": "profile",
    "private_pairs": "private pairs",
    "leaked_pairs": "pairs leaked",
    "pairs_leaked_share": "pairs leaked %",
    "leak_rate_per_message": "leak rate per message %",
    "needed_pairs": "needed pairs",
    "completeness": "completeness %",
}


def readable(frame: pd.DataFrame, names: dict[str, str]) -> pd.DataFrame:
    """Readable headers, fractions as percentages, "-" for a missing name (never "None")."""
    out = frame[[c for c in names if c in frame.columns]].rename(columns=names)
    for col in out.columns:
        if col.endswith("%"):
            out[col] = 100 * out[col].astype(float)
        elif out[col].dtype.kind not in "fiub":
            out[col] = out[col].astype(object).where(out[col].notna(), "-").astype(str)
    return out


@st.fragment
def attribute_tables(tables: tuple, filters: tuple) -> None:
    """Its own part of the page: paging a table reruns the tables only (the filters, and so
    ``tables``, change only with the filters' part, :func:`explore`)."""
    attrs, by_recipient = tables
    st.subheader("Attributes leaked most")
    page = paged(attrs, "attrs")
    shown = readable(page, ATTR_COLUMNS)
    shown.insert(5, "violated", ["yes" if v else "" for v in page["violated"]])
    static(shown)
    st.caption(
        "To read the messages behind an attribute, click its cell in the heatmap, or type it in"
        " Attribute contains and pick it under Messages behind a leak."
    )
    st.subheader("Recipients that receive most")
    static(readable(paged(by_recipient, "recipients", 10), GROUP_COLUMNS))

    def by_domain_and_profile() -> None:
        folded = cache.group_tables(ch.scope(ch.run_id), filters)
        for frame, key in zip(folded, ("domains", "profiles")):
            static(readable(paged(frame, key), GROUP_COLUMNS))

    render.when_opened("By domain, and by profile", "leaks_groups", by_domain_and_profile)
    st.caption(
        "pairs leaked %: share of (attribute, task) pairs leaked in at least one sample; leak"
        " rate per message %: leaks / samples; completeness %: needed attributes stated / needed"
        " samples. A blank cell: the group has no pair of that kind."
    )


CELL_PROFILES = 5  # a chosen cell lists the messages of at most this many profiles


@st.fragment
def messages(leaky: pd.DataFrame) -> None:
    """The messages behind the heatmap cell last chosen (or the pair picked here)."""
    st.subheader("Messages behind a leak")
    chosen = st.session_state.get("leak_pick")  # (attribute key, task context) or None
    if chosen is not None:
        key, context = chosen
        match = leaky[(leaky["key"] == key) & (leaky["context"] == context)]
        if match.empty:
            st.info(
                f"No sample revealed {render.escape_md(key)} to {render.escape_md(context)}:"
                " the chosen cell has no leaked message. Choose another cell, or a pair below."
            )
        else:
            if len(match) > 1:  # a cell pools profiles: each one's messages, most leaks first
                st.caption(
                    f"{len(match)} profiles leaked it in this task"
                    + (
                        f"; the {CELL_PROFILES} with most leaks are shown."
                        if len(match) > CELL_PROFILES
                        else "."
                    )
                )
            for n, (_, row) in enumerate(match.head(CELL_PROFILES).iterrows()):
                show_pair(row, legend=n == 0)
            return
    if leaky.empty:
        st.info("No leak in this selection.")
        return
    options = leaky.head(300)
    label = options["pair"].tolist()
    i = st.selectbox(
        "Pair",
        range(len(options)),
        index=None,
        format_func=label.__getitem__,
        placeholder="Choose a leaked pair",
        help="profile · attribute → recipient (leaks/samples), most leaks first",
    )
    if i is None:  # messages only when asked: a new filter redraws no message
        st.caption(
            f"{len(leaky):,} leaked pairs here. Choose one, or click a cell of the heatmap,"
            " to read the messages behind it."
        )
        return
    show_pair(options.iloc[i])


def show_pair(target, legend: bool = True) -> None:
    """One profile's messages for a pair, the judge's evidence highlighted (``legend``: say
    what the colours mean, once per list)."""
    ctx_pos = int(target["ctx"])
    attr_pos = int(target["attr"])
    profile_ids, ctx_local, attr_ids = cube.store_ids()
    pid = profile_ids[int(target["profile_pos"])]
    rows = cache.pair_messages(
        ch.at,
        ch.run_id,
        int(pid),
        int(ctx_local[ctx_pos]),
        int(attr_ids[attr_pos]),
        m.info.judge_id,
    )
    st.markdown(
        f"**{render.escape_md(str(target['key']))}** of "
        f"**{render.escape_md(str(target['profile']))}** to "
        f"**{render.escape_md(str(target['recipient']))}** "
        f"({render.escape_md(str(target['task']))}): label {target['label']}, "
        f"{target['leaks']} of {target['samples']} samples revealed it."
    )
    if legend:
        st.caption(render.EVIDENCE_LEGEND + " Each message's raw text is on Audit.")
    kind = EVIDENCE_KINDS.get(str(target["label"]), AMBIGUOUS)
    for row in rows:
        with st.container(border=True):
            st.markdown(
                f"Trial {row.trial}: "
                + ("**revealed**" if row.revealed else "not revealed")
                + (f" — evidence: {render.escape_md(row.evidence)}" if row.evidence else "")
            )
            render.show_message(
                row.text or "",
                [Evidence(row.evidence, str(target["key"]), kind)]
                if row.evidence and row.revealed
                else [],
                alone=False,
            )
            st.page_link(
                "webapp/pages/audit.py",
                label="Audit this message",
                query_params={**st.query_params.to_dict(), "message": str(row.message_id)},
            )


explore()
