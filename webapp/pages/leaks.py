"""Leaks: slice by profile, domain, event, attribute, recipient and task; the attribute x task
heatmap; the attributes leaked most and the recipients that receive most; the messages behind."""

from collections.abc import Mapping

import pandas as pd
import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from cimem.analysis import leak_table
from cimem.analysis.leak_table import FILTERED, GROUP_COLUMNS, Filters, filters_of, readable
from webapp import cache, render, sidebar
from webapp.charts import leaks as chart
from webapp.panels import progress
from webapp.panels.leaks import leak_messages, leaks_link

st.title("Leaks")
ch, cube = sidebar.labelled_run(
    "This run has no labels, so nothing counts as a leak. Import a labelled results file (official"
    " run output) or labels (Hugging Face rows) for these profiles."
)
progress.making_banner([ch.run_id])
m = cache.metrics(ch.scope(ch.run_id))
RUN = ch.scope(ch.run_id)  # the run, judge and options every read takes
READ = leak_messages.Reading(ch, cube, m.info.judge_id)  # what reading a pair's messages takes
TOP = 30  # attributes on the heatmap at first
CELL_PROFILES = 5  # a chosen cell lists the messages of at most this many profiles

st.caption(
    f"Run {render.escape_md(m.run)}; "
    + ch.describe(m)
    + ". A leak: a withheld attribute that the judge found in a sample. Percentages are leaks"
    " / samples; a dash means there is nothing to count (no such pair)."
)


def heat_choice() -> tuple[bool, int]:
    """The heatmap's colouring (private cells only?) and its number of rows, as they stand."""
    return st.session_state.get("heat_private", True), st.session_state.get("heat_top", TOP)


@st.fragment
def explore() -> None:
    """The filters and everything they feed, one part of the page: a filter change reruns it
    alone, not the sidebar, the title and the caption."""
    # Everything below is made before any of it is drawn, from the widgets' values as they
    # stand (the same calls below then find it made): a browser redraws the whole page after
    # each pause in what the server sends, so work done between two elements costs a redraw.
    leaks_link.restore(cache.filter_options(RUN), TOP)
    as_they_stand = filters_of(
        {col: st.session_state.get(f"f_{col}") or [] for col in FILTERED},
        st.session_state.get("f_search", ""),
    )
    cache.make_leaks_page(RUN, cache.effective_filters(RUN, as_they_stand), *heat_choice())
    filters = cache.effective_filters(RUN, filter_widgets(cache.filter_options(RUN)))
    leaks_link.remember(TOP)
    if cache.matching_pairs(RUN, filters) == 0:
        st.info("No pair matches these filters.")
        return
    heatmap(filters)
    messages(cache.leaky_pairs(RUN, filters))
    attribute_tables(cache.leak_tables(RUN, filters), filters)
    # made while you read: the cells of the heatmap's other colouring, which its toggle shows,
    # and with no filter set, each domain's page (the filter most often set first)
    private, top = heat_choice()
    cache.prefetch_heat_cells(RUN, filters, not private, top)
    if not filters:
        cache.prefetch_leaks_pages(RUN, "domain", private, top)


def filter_widgets(options: Mapping[str, list[str]]) -> Filters:
    """The filters drawn, and the selection they make (:func:`leak_table.filters_of`)."""

    def listed(box: DeltaGenerator, label: str, col: str) -> list[str]:
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
    return filters_of(picked, search)


def static(frame: pd.DataFrame) -> None:
    """A table nobody selects from, drawn static (much cheaper in the browser than a grid)."""
    render.static_table(frame, digits={c: 1 for c in frame.columns if c.endswith("%")})


def paged(frame: pd.DataFrame, key: str, size: int = 20) -> pd.DataFrame:
    """Only the rows on screen: a page of ``size`` rows and a page picker when there are more."""
    pages = leak_table.page_count(len(frame), size)
    page = 1
    if pages > 1:
        if st.session_state.get(f"{key}_page", 1) > pages:  # fewer rows after a filter
            st.session_state[f"{key}_page"] = 1
        row = st.container(horizontal=True, vertical_alignment="bottom")
        page = row.number_input(f"Page (of {pages})", 1, pages, 1, key=f"{key}_page", width=160)
        row.caption(leak_table.page_caption(len(frame), page, size))
    return leak_table.page_of(frame, page, size)


def pick(chosen: tuple[str, str] | None) -> None:
    """Remember the heatmap cell (attribute, task) just chosen or cleared, and rerun the page so
    the messages follow."""
    if chosen != st.session_state.get("leak_pick"):
        st.session_state["leak_pick"] = chosen
        st.rerun()


@st.fragment
def heatmap(filters: Filters) -> None:
    """Its own part of the page: the toggle and the slider redraw the heatmap only. A click on a
    cell chooses it (the messages below follow), a click on the chosen cell clears the choice."""
    st.subheader("Attribute x task")
    c1, c2 = st.columns([2, 3])
    only_private = c1.toggle(
        "Private cells only (leak frequency)",
        value=True,
        key="heat_private",
        help="Off: every labelled cell, coloured by its label",
    )
    top = c2.slider("Attributes shown (most leaked first)", 5, 80, TOP, step=5, key="heat_top")
    cells = cache.heat_cells(RUN, filters, only_private, top)
    chosen = st.session_state.get("leak_pick")
    clicked = chart.heatmap(cells, only_private, chosen, leak_table.how_computed(m, filters))
    if clicked is not None:
        pick(None if clicked == chosen else clicked)
    leaks_link.remember(TOP)


@st.fragment
def attribute_tables(tables: tuple[pd.DataFrame, pd.DataFrame], filters: Filters) -> None:
    """Its own part of the page: paging a table reruns the tables only (the filters, and so
    ``tables``, change only with the filters' part, :func:`explore`)."""
    attrs, by_recipient = tables
    st.subheader("Attributes leaked most")
    static(leak_table.attribute_rows(paged(attrs, "attrs")))
    st.caption(
        "To read the messages behind an attribute, click its cell in the heatmap, or type it in"
        " Attribute contains and pick it under Messages behind a leak."
    )
    st.subheader("Recipients that receive most")
    static(readable(paged(by_recipient, "recipients", 10), GROUP_COLUMNS))

    def by_domain_and_profile() -> None:
        folded = cache.group_tables(RUN, filters)
        for frame, key in zip(folded, ("domains", "profiles")):
            static(readable(paged(frame, key), GROUP_COLUMNS))

    render.when_opened("By domain, and by profile", "leaks_groups", by_domain_and_profile)
    st.caption(
        "Sorted by pairs leaked %: the share of (attribute, task) pairs leaked in at least one"
        " sample (then by pairs leaked); leak rate per message %: leaks / samples; completeness"
        " %: needed attributes stated / needed samples. Pairs leaked 95% CI: over people like"
        " these, the profiles as clusters (docs/statistics.md). A dash: the group has no pair of"
        " that kind (or, for the interval, one profile)."
    )


@st.fragment
def messages(leaky: pd.DataFrame) -> None:
    """The messages behind the heatmap cell last chosen (or the pair picked here)."""
    st.subheader("Messages behind a leak")
    chosen = st.session_state.get("leak_pick")  # (attribute key, task context) or None
    if chosen is not None:
        key, task = chosen
        match = leak_table.cell_profiles(leaky, key, task)
        leak_messages.cell_messages(READ, match, key, task, CELL_PROFILES)
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
    leak_messages.show_pair(READ, options.iloc[i])


explore()
