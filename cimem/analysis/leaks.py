"""The Leaks page's data: a run's pair table filtered by profile, domain, event, recipient, task
and a search on the attribute key, the tables and leaked pairs of one filter selection, and the
heatmap's cells with labels short enough to read.

Pure pandas: the app caches these (``webapp.cache``) and draws them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from cimem.analysis.breakdowns import attribute_table, group_table, heatmap_table, most_leaked_keys

# The columns a visitor filters by, in the page's order.
FILTER_COLUMNS = ("profile", "domain", "event", "recipient", "task")
SEARCH = "search"

# ((column, chosen values), ...) and an optional ("search", text) on the key: hashable, so it
# keys a cache as it is.
LeakFilter = tuple[tuple[str, Any], ...]


def filtered_pairs(table: pd.DataFrame, filters: LeakFilter) -> pd.DataFrame:
    """Rows matching ((column, values), ...) and an optional ("search", text) on the key."""
    sel = pd.Series(True, index=table.index)
    for col, chosen in filters:
        if col == SEARCH:
            sel &= table["key"].str.contains(chosen, case=False, regex=False)
        elif chosen:
            sel &= table[col].isin(chosen)
    return table[sel]


def filter_options(table: pd.DataFrame) -> dict[str, list[str]]:
    """The filter choices of a pair table, sorted, per filter column."""
    return {col: sorted(str(x) for x in table[col].dropna().unique()) for col in FILTER_COLUMNS}


def full_columns(table: pd.DataFrame) -> dict[str, frozenset[str]]:
    """Per filter column without a missing value: every value it has."""
    return {
        col: frozenset(str(x) for x in table[col].unique())
        for col in FILTER_COLUMNS
        if table[col].notna().all()
    }


def drop_full_choices(filters: LeakFilter, full: dict[str, frozenset[str]]) -> LeakFilter:
    """The filters less those that choose every value of a column with no missing value: such a
    filter keeps every pair ("Select all" of the domains is the whole run), and without it the
    page finds what it has made already.

    >>> full = {"domain": frozenset({"a", "b"}), "task": frozenset({"t", "u"})}
    >>> drop_full_choices((("domain", ("b", "a")), ("task", ("t",)), ("search", "x")), full)
    (('task', ('t',)), ('search', 'x'))
    >>> drop_full_choices((("event", ("e",)),), full)  # a column with a missing value: kept
    (('event', ('e',)),)
    """
    return tuple(
        (col, chosen) for col, chosen in filters if not (col in full and full[col] <= set(chosen))
    )


def one_value_filters(
    column: str, values: list[str], full: dict[str, frozenset[str]]
) -> list[LeakFilter]:
    """The filter of each of ``values`` of ``column`` chosen alone, as it acts on the table
    whose :func:`full_columns` are ``full``; none for a value that is no filter (a column of one
    value: choosing it keeps every pair)."""
    out = [drop_full_choices(((column, (value,)),), full) for value in values]
    return [f for f in out if f]


def leak_tables(view: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The tables always on screen: attributes, and recipients (with tasks)."""
    return attribute_table(view), group_table(view, ["recipient", "task"])


def group_tables(view: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The folded tables: domains and profiles."""
    return group_table(view, ["domain"]), group_table(view, ["profile"])


def ranked_attributes(table: pd.DataFrame) -> pd.DataFrame:
    """Every attribute, most leaked first: profile and key only."""
    return attribute_table(table)[["profile", "key"]]


def leaky_pairs(view: pd.DataFrame) -> pd.DataFrame:
    """The pairs with a leak (most leaks first), named as the page's pair picker names them."""
    leaky = view[(view["leaks"] > 0) & view["in_violation"]]
    leaky = leaky.sort_values("leaks", ascending=False, kind="stable")
    out = leaky[
        ["profile", "profile_pos", "ctx", "attr", "key", "recipient", "task", "label"]
        + ["leaks", "samples"]
    ].astype({"profile": str, "key": str, "recipient": str, "task": str, "label": str})
    out["context"] = out["recipient"] + ": " + out["task"]
    out["pair"] = (out["profile"] + " · " + out["key"] + " → " + out["recipient"]) + (
        " (" + out["leaks"].astype(str) + "/" + out["samples"].astype(str) + ")"
    )
    return out.reset_index(drop=True)


def heat_cells(view: pd.DataFrame, only_private: bool, top: int) -> pd.DataFrame:
    """The heatmap's cells for the ``top`` most leaked attributes only (what is on screen), with
    compact row and column labels that keep the distinguishing end of long names, unique, and
    their places (row_order: most leaked attribute first; column_order: most leaked task)."""
    keys = most_leaked_keys(view, only_private, top)
    cells = heatmap_table(view[view["key"].isin(keys)], only_private=only_private)
    by_ctx = cells.groupby("context")["leaks"].sum().sort_values(ascending=False, kind="stable")
    cells = cells.assign(
        row=cells["key"].map(compact_labels(keys, 34)),
        column=cells["context"].map(compact_labels(list(by_ctx.index), 40)),
        _r=cells["key"].map({k: i for i, k in enumerate(keys)}),
        _c=cells["context"].map({c: i for i, c in enumerate(by_ctx.index)}),
    ).sort_values(["_r", "_c"])
    keep = ["row", "column", "key", "context", "label", "leaks", "samples", "frequency", "profiles"]
    out = cells[keep].reset_index(drop=True)
    out["row_order"] = cells["_r"].to_numpy()
    out["column_order"] = cells["_c"].to_numpy()
    # repeated names sent once each (Arrow dictionaries): a heatmap's rows carry their attribute
    # and task in full for the tooltip, and were a third of a megabyte as plain strings
    for col in ("row", "column", "key", "context", "label"):
        out[col] = out[col].astype(str).astype("category")
    return out


def compact_labels(names: list[str], width: int) -> dict[str, str]:
    """name -> a label of at most ``width`` characters: the start and the END of a long name
    (keys that share a long prefix differ at the end), made unique."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    for name in names:
        text = str(name)
        if len(text) > width:
            head = max(6, width // 3)
            text = text[:head] + "…" + text[-(width - head - 1) :]
        while text in seen:  # still equal: keep more of the end
            text = "…" + str(name)[-(len(text)) :]
            if text in seen:
                text = str(name)
        seen.add(text)
        out[name] = text
    return out


@dataclass(frozen=True)
class LeaksPage:
    """What the Leaks page draws for one filter selection (made ahead in the background)."""

    view: pd.DataFrame  # the matching pairs
    tables: tuple[pd.DataFrame, pd.DataFrame]  # attributes, recipients
    leaky: pd.DataFrame  # the leaked pairs
    heat_for: tuple[bool, int]  # (only_private, top) of the cells
    cells: pd.DataFrame  # the heatmap's cells


def leaks_page(table: pd.DataFrame, filters: LeakFilter, only_private: bool, top: int) -> LeaksPage:
    """Everything the Leaks page draws for ``filters`` on a run's pair table."""
    view = filtered_pairs(table, filters)
    return LeaksPage(
        view,
        leak_tables(view),
        leaky_pairs(view),
        (only_private, top),
        heat_cells(view, only_private, top),
    )
