"""The Leaks page's cached reads, for one run (a :class:`RunScope`) and one filter selection
(a :data:`~cimem.analysis.leaks.LeakFilter`): the matching pairs, the tables, the leaked pairs
and the heatmap's cells, made ahead in the background where a visitor is likely to go next.

The views and tables are shared read-only resources, like the pair table they come from:
``st.cache_data`` would pickle each new filter's tables and copy them out on every rerun.
"""

from __future__ import annotations

import pandas as pd

from cimem.analysis import leaks
from cimem.analysis.leaks import LeakFilter, LeaksPage
from webapp.cache import registry
from webapp.cache.cubes import pairs
from webapp.cache.scope import RunScope
from webapp.startup import prefetch

# At most this many values in a column for the Leaks page to make each value's page ahead.
ONE_VALUE_PAGES = 12


@registry.shared_read(show_spinner=False, max_entries=32)
def _view(scope: RunScope, filters: LeakFilter) -> pd.DataFrame:
    """The pairs matching the Leaks page's filters (shared, never copied: read only)."""
    made = _made_ahead(scope, filters)
    if made is not None:
        return made.view
    return leaks.filtered_pairs(pairs(scope), filters)


def _made_ahead(scope: RunScope, filters: LeakFilter) -> LeaksPage | None:
    """The Leaks page for these filters if :func:`prefetch_leaks_pages` made it (waits for it
    when it is under way; None when it had not begun: :func:`webapp.startup.prefetch.claim`)."""
    started = prefetch.claim(("leaks", scope, filters))
    return None if started is None else started.result()


@registry.data_read(show_spinner=False, max_entries=16)
def filter_options(scope: RunScope) -> dict[str, list[str]]:
    """The Leaks page's filter choices, sorted (profile, domain, event, recipient, task)."""
    return leaks.filter_options(pairs(scope))


@registry.data_read(show_spinner=False, max_entries=16)
def _full_columns(scope: RunScope) -> dict[str, frozenset[str]]:
    return leaks.full_columns(pairs(scope))


def effective_filters(scope: RunScope, filters: LeakFilter) -> LeakFilter:
    """The Leaks page's filters as they act on this run
    (:func:`cimem.analysis.leaks.drop_full_choices`)."""
    return leaks.drop_full_choices(filters, _full_columns(scope))


def matching_pairs(scope: RunScope, filters: LeakFilter) -> int:
    return len(_view(scope, filters))


@registry.shared_read(show_spinner=False, max_entries=64)
def leak_tables(scope: RunScope, filters: LeakFilter) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Leaks page's tables always on screen, for one filter selection: attributes, and
    recipients (with tasks). Shared: read only."""
    made = _made_ahead(scope, filters)
    if made is not None:
        return made.tables
    return leaks.leak_tables(_view(scope, filters))


@registry.shared_read(show_spinner=False, max_entries=64)
def group_tables(scope: RunScope, filters: LeakFilter) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Leaks page's folded tables (made when opened), for one filter selection: domains and
    profiles. Shared: read only."""
    return leaks.group_tables(_view(scope, filters))


@registry.shared_read(show_spinner=False, max_entries=64)
def leaky_pairs(scope: RunScope, filters: LeakFilter) -> pd.DataFrame:
    """The pairs with a leak (most leaks first), for the message list. Shared: read only."""
    made = _made_ahead(scope, filters)
    if made is not None:
        return made.leaky
    return leaks.leaky_pairs(_view(scope, filters))


@registry.data_read(show_spinner=False, max_entries=64)
def heat_cells(scope: RunScope, filters: LeakFilter, only_private: bool, top: int) -> pd.DataFrame:
    """The heatmap's cells for the ``top`` most leaked attributes only (what is on screen)
    (:func:`cimem.analysis.leaks.heat_cells`). Made in the background when
    :func:`prefetch_heat_cells` started them."""
    started = prefetch.claim(("heat", scope, filters, only_private, top))
    if started is not None:
        ready: pd.DataFrame = started.result()
        return ready
    made = _made_ahead(scope, filters)
    if made is not None and made.heat_for == (only_private, top):
        return made.cells
    return leaks.heat_cells(_view(scope, filters), only_private, top)


def prefetch_heat_cells(scope: RunScope, filters: LeakFilter, only_private: bool, top: int) -> None:
    """Start making these heatmap cells in the background (the other colouring of the heatmap
    on screen, which its toggle shows next), unless started already."""
    key = ("heat", scope, filters, only_private, top)
    prefetch.start(key, leaks.heat_cells, _view(scope, filters), only_private, top)


def prefetch_leaks_pages(scope: RunScope, column: str, only_private: bool, top: int) -> None:
    """Start making, in the background, the Leaks page of each value of ``column`` chosen alone
    (the filter a visitor most often sets first: the benchmark has ten domains), unless the
    column has more than ONE_VALUE_PAGES values. One domain's page took about 35 ms on a
    60-profile run, and two to three times that while the browser was busy: most of what the
    server did for a new filter."""
    values = filter_options(scope)[column]
    if len(values) > ONE_VALUE_PAGES:
        return
    table = pairs(scope)
    for filters in leaks.one_value_filters(column, values, _full_columns(scope)):
        prefetch.start(
            ("leaks", scope, filters), leaks.leaks_page, table, filters, only_private, top
        )


def make_leaks_page(scope: RunScope, filters: LeakFilter, only_private: bool, top: int) -> None:
    """Make (and cache) what the Leaks page draws for these filters: the tables, the leaked
    pairs and the heatmap's cells (nothing when no pair matches)."""
    if matching_pairs(scope, filters):
        leak_tables(scope, filters)
        leaky_pairs(scope, filters)
        heat_cells(scope, filters, only_private, top)


@registry.data_read(show_spinner=False, max_entries=16)
def ranked_attributes(scope: RunScope) -> pd.DataFrame:
    """Every attribute of the run, most leaked first (the Growth page's attribute picker): a
    small table of its own, so a rerun does not copy all of the Leaks page's tables."""
    return leaks.ranked_attributes(pairs(scope))
