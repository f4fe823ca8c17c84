"""The Leaks page's tables as a reader sees them: the filter selection in the form the reads take,
readable headers with fractions as percentages, the heatmap's cells as a CSV that says how they
were computed, and the profiles behind one chosen cell. Plain pandas, so the page only draws."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pandas as pd

from cimem.analysis.audit import AMBIGUOUS, EVIDENCE_KINDS, Evidence
from cimem.text import plural

if TYPE_CHECKING:
    from cimem.analysis.cube import LeakCube
    from cimem.analysis.metrics import RunMetrics

FILTERED = ("profile", "domain", "event", "recipient", "task")  # the columns a filter can choose
SEARCH = "search"  # the filter on the attribute's key: text it contains

Filters = tuple[tuple[str, tuple[str, ...] | str], ...]  # ((column, values), ..., (SEARCH, text))

HEAT_COLUMNS = {
    "key": "attribute",
    "context": "task (recipient: purpose)",
    "label": "label",
    "leaks": "leaks",
    "samples": "samples",
    "frequency": "leak frequency %",
    "profiles": "profiles",
}
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


def filters_of(chosen: Mapping[str, Sequence[str]], search: str) -> Filters:
    """The filter selection as the reads take it: ((column, values), ...) for the columns with a
    choice, in :data:`FILTERED` order, then (SEARCH, text) when text is typed.

    >>> filters_of({"task": ["t"], "domain": [], "profile": ["b", "a"]}, "age")
    (('profile', ('b', 'a')), ('task', ('t',)), ('search', 'age'))
    >>> filters_of({}, "")
    ()
    """
    picked: Filters = tuple((col, tuple(chosen[col])) for col in FILTERED if chosen.get(col))
    return picked + (((SEARCH, search),) if search else ())


def said_filters(filters: Filters) -> str:
    """The filters that act, as one line of text ("none" without any).

    >>> said_filters((("domain", ("a", "b")), ("search", "age")))
    'domain: a, b; attribute contains: age'
    >>> said_filters(())
    'none'
    """
    said = [
        f"attribute contains: {values}" if col == SEARCH else f"{col}: {', '.join(values)}"
        for col, values in filters
    ]
    return "; ".join(said) or "none"


def how_computed(m: RunMetrics, filters: Filters) -> dict[str, str | int]:
    """How the heatmap's numbers were computed, for its CSV: run, mode, label rule, judge,
    samples per task (all from ``m``) and the filters that act (a download's file is made on
    another thread, so this is said while the page runs)."""
    return {
        "run": m.run,
        "mode": m.options.mode,
        "label rule": m.options.label_rule,
        "judge": m.judge,
        "n": m.n_trials,
        "filters": said_filters(filters),
    }


def heatmap_csv(cells: pd.DataFrame, how: Mapping[str, str | int]) -> pd.DataFrame:
    """The heatmap's cells as a table (its CSV download), each row with ``how`` they were
    computed (:func:`how_computed`); the leak frequency in percent."""
    out = cells[list(HEAT_COLUMNS)].rename(columns=HEAT_COLUMNS)
    for col in ("attribute", "task (recipient: purpose)", "label"):
        out[col] = out[col].astype(str)
    out["leak frequency %"] = 100 * out["leak frequency %"].astype(float)
    return out.assign(**how)


def readable(frame: pd.DataFrame, names: Mapping[str, str]) -> pd.DataFrame:
    """Readable headers, fractions as percentages, "-" for a missing name (never "None").

    >>> readable(pd.DataFrame({"key": ["a", None], "leak_rate": [0.5, 0.25]}), ATTR_COLUMNS)
      attribute  leak rate %
    0         a         50.0
    1         -         25.0
    """
    out = frame[[c for c in names if c in frame.columns]].rename(columns=names)
    for col in out.columns:
        if col.endswith("%"):
            out[col] = 100 * out[col].astype(float)
        elif out[col].dtype.kind not in "fiub":
            out[col] = out[col].astype(object).where(out[col].notna(), "-").astype(str)
    if {"pairs_leaked_lo", "pairs_leaked_hi"} <= set(frame.columns) and "pairs leaked %" in out:
        where = list(out.columns).index("pairs leaked %") + 1
        out.insert(
            where, SHARE_CI, interval_texts(frame["pairs_leaked_lo"], frame["pairs_leaked_hi"])
        )
    return out


SHARE_CI = "pairs leaked 95% CI"  # over people like these (profiles as clusters)


def interval_texts(lo: pd.Series, hi: pd.Series) -> list[str]:
    """Intervals (fractions) as "[lo, hi]" in points, "-" where there is none.

    >>> interval_texts(pd.Series([0.01, float("nan")]), pd.Series([0.2, float("nan")]))
    ['[1.00, 20.00]', '-']
    """
    return [
        "-" if a != a or b != b else f"[{100 * a:.2f}, {100 * b:.2f}]"
        for a, b in zip(lo.astype(float), hi.astype(float))
    ]


def attribute_rows(attrs: pd.DataFrame) -> pd.DataFrame:
    """The attributes leaked most as shown: readable, with "violated" ("yes" or "no") after
    the leaked tasks."""
    shown = readable(attrs, ATTR_COLUMNS)
    shown.insert(5, "violated", ["yes" if v else "no" for v in attrs["violated"]])
    return shown


def cell_profiles(leaky: pd.DataFrame, key: str, context: str) -> pd.DataFrame:
    """The leaked pairs behind one heatmap cell (attribute ``key`` in task ``context``): one row
    per profile that leaked it, in ``leaky``'s order (most leaks first)."""
    return leaky[(leaky["key"] == key) & (leaky["context"] == context)]


def pooled_caption(profiles: int, shown: int) -> str:
    """What a cell pooled over several profiles lists: each one's messages, most leaks first,
    at most ``shown`` of them.

    >>> pooled_caption(7, 5)
    '7 profiles leaked it in this task; the 5 with most leaks are shown.'
    >>> pooled_caption(2, 5)
    '2 profiles leaked it in this task.'
    """
    said = f"; the {shown} with most leaks are shown." if profiles > shown else "."
    return f"{plural(profiles, 'profile')} leaked it in this task{said}"


def pair_store_ids(cube: LeakCube, pair: pd.Series) -> tuple[int, int, int]:
    """The store's profile id, context index and attribute id of one leaked pair (a row of the
    leaked pairs: its profile's, context's and attribute's places in ``cube``), to read the
    messages behind it."""
    profile_ids, ctx_local, attr_ids = cube.store_ids()
    profile = profile_ids[int(pair["profile_pos"])]
    ctx = int(ctx_local[int(pair["ctx"])])
    return int(profile), ctx, int(attr_ids[int(pair["attr"])])


def message_evidence(
    evidence: str | None, revealed: bool | None, key: str, label: str
) -> list[Evidence]:
    """The judge's evidence to highlight in one message of a pair: a revealed sample's only,
    coloured by what the pair's ``label`` makes of it (a share or private pair; else ambiguous).

    >>> message_evidence("She is 34.", True, "age", "private")[0].kind == EVIDENCE_KINDS["private"]
    True
    >>> message_evidence("She is 34.", False, "age", "private")
    []
    """
    if not (evidence and revealed):
        return []
    return [Evidence(evidence, key, EVIDENCE_KINDS.get(label, AMBIGUOUS))]


def page_caption(rows: int, page: int, size: int) -> str:
    """Which rows a page shows, of how many.

    >>> page_caption(45, 3, 20)
    '45 rows; rows 41-45'
    """
    return f"{rows:,} rows; rows {(page - 1) * size + 1}-{min(rows, page * size)}"


def page_count(rows: int, size: int) -> int:
    """Pages of ``size`` rows that hold ``rows`` rows (at least one, even for none).

    >>> page_count(0, 20), page_count(20, 20), page_count(21, 20)
    (1, 1, 2)
    """
    return max(1, -(-rows // size))


def page_of(frame: pd.DataFrame, page: int, size: int) -> pd.DataFrame:
    """Page ``page`` (from 1) of ``frame``, ``size`` rows a page."""
    return frame.iloc[(page - 1) * size : page * size]
