"""The Overview as a reader sees it: the headline table and its further columns (rounded, the
intervals as text), the trade-off's points with their Pareto front, and the discard report that
sets the two modes side by side. Plain pandas, so the page only draws."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import pandas as pd

from cimem.analysis.label_diff import RunPair
from cimem.analysis.metrics import NO_LABELS, RunMetrics
from cimem.analysis.options import Mode
from cimem.analysis.overview import Overview

THIS_DATABASE = "this database"
PUBLISHED = "published Table 1"


def interval_text(lo: float, hi: float, unlabelled: bool = False, profiles: int = 2) -> str:
    """A 95% interval (in points) as text: "-" when there is none, or one profile (one profile
    says nothing of the spread between people: a zero-width interval would).

    >>> interval_text(1.234, 5.0), interval_text(1.0, 1.0, profiles=1)
    ('[1.23, 5.00]', '- (1 profile)')
    >>> interval_text(float("nan"), 1.0), interval_text(0.0, 1.0, unlabelled=True) == NO_LABELS
    ('-', True)
    """
    if unlabelled:
        return NO_LABELS
    if profiles < 2:
        return "- (1 profile)"
    return "-" if lo != lo or hi != hi else f"[{lo:.2f}, {hi:.2f}]"


def rounded(x: float | None, digits: int = 2) -> float | None:
    """``x`` rounded, or None for a missing number (a table shows it blank).

    >>> rounded(1.2345), rounded(float("nan")), rounded(None)
    (1.23, None, None)
    """
    return None if x is None or x != x else round(float(x), digits)


def level_text(x: float | None) -> str:
    """A prompt level as text: "-" when unknown, without ".0" when whole.

    >>> level_text(1.0), level_text(1.5), level_text(None), level_text(float("nan"))
    ('1', '1.5', '-', '-')
    """
    if x is None or x != x:
        return "-"
    return str(int(x)) if float(x).is_integer() else str(x)


def headline_table(table: pd.DataFrame) -> pd.DataFrame:
    """The table every reader sees: per run, Violation@n and Completeness with their intervals,
    n and profiles."""
    unlabelled = table["labels"] == NO_LABELS
    profiles = table["profiles"]

    def intervals(metric: str) -> list[str]:
        lows, highs = table[f"{metric}_lo"], table[f"{metric}_hi"]
        return [interval_text(a, b, u, p) for a, b, u, p in zip(lows, highs, unlabelled, profiles)]

    return pd.DataFrame(
        {
            "run": table["run"],
            "model": [m or "-" for m in table["model"]],
            "Violation@n %": [rounded(x) for x in table["violation_mean"]],
            "95% CI": intervals("violation"),
            "Completeness %": [rounded(x) for x in table["completeness_mean"]],
            "95% CI ": intervals("completeness"),
            "n": table["n"],
            "profiles": profiles,
        }
    )


def more_table(ov: Overview) -> pd.DataFrame:
    """The further columns: level, judge, spread, per-message leak rate, the joint outcomes
    (pooled over messages), the common-k columns when the runs have them, and whether each run
    is simulated."""
    table = ov.table
    more = pd.DataFrame(
        {
            "run": table["run"],
            "level": [level_text(x) for x in table["level"]],
            "judge": table["judge"],
            "Violation std (points)": [rounded(x) for x in table["violation_std"]],
            "Completeness std (points)": [rounded(x) for x in table["completeness_std"]],
            "Completeness 95% CI, these people": [
                "-" if b is None else f"[{100 * b[0]:.2f}, {100 * b[1]:.2f}]"
                for b in table["completeness_these_people"]
            ],
            "per-message leak %": [rounded(x) for x in table["leak_rate_per_message"]],
            "complete and clean %": [rounded(x) for x in table["complete_clean"]],
            "complete messages that leak %": [rounded(x) for x in table["leak_among_complete"]],
            "Completeness of clean messages %": [
                rounded(x) for x in table["completeness_among_clean"]
            ],
        }
    )
    titles = ov.common.titles() if ov.common is not None else {}
    for col, title in titles.items():
        more[title] = [rounded(x) for x in table[col]]
    more["simulated"] = ["yes" if x else "no" for x in table["simulated"]]
    return more


def tradeoff_points(
    table: pd.DataFrame, paper: Sequence[tuple[str, float, float]] = ()
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The trade-off's points (name, violation, completeness, source, pareto): the runs of
    ``table`` with both numbers, then the ``paper``'s (name, violation, completeness); and the
    runs on the Pareto front, in order of violation."""
    points = list(zip(table["run"], table["violation_mean"], table["completeness_mean"]))
    front = set(pareto_front(points))
    data = pd.DataFrame(
        {
            "name": table["run"],
            "violation": table["violation_mean"],
            "completeness": table["completeness_mean"],
            "source": THIS_DATABASE,
            "pareto": [r in front for r in table["run"]],
        }
    )
    if paper:
        published = pd.DataFrame(
            [
                {
                    "name": name,
                    "violation": v,
                    "completeness": c,
                    "source": PUBLISHED,
                    "pareto": False,
                }
                for name, v, c in paper
            ]
        )
        data = pd.concat([data, published], ignore_index=True)
    data = data.dropna(subset=["violation", "completeness"])
    return data, data[data["pareto"]].sort_values("violation")


def other_mode(mode: Mode) -> Mode:
    """The mode the discard report sets beside ``mode``.

    >>> other_mode(Mode.OFFICIAL)
    <Mode.DEFINITION: 'definition'>
    """
    return Mode.DEFINITION if mode == Mode.OFFICIAL else Mode.OFFICIAL


def discard_row(shown: RunMetrics, other: RunMetrics) -> dict[str, Any]:
    """One run's discard report under the mode ``shown`` was computed in, with both modes'
    Violation and Completeness (``other``: the same run in the other mode)."""
    by_mode = {shown.options.mode: shown, other.options.mode: other}
    official, definition = by_mode[Mode.OFFICIAL], by_mode[Mode.DEFINITION]
    d = shown.discarded
    identity = official.discarded.identity_filter
    return {
        "run": shown.run,
        "official V %": round(100 * official.violation.mean, 2),
        "definition V %": round(100 * definition.violation.mean, 2),
        "official C %": round(100 * official.completeness.mean, 2),
        "definition C %": round(100 * definition.completeness.mean, 2),
        "share pairs": d.pairs.share,
        "private pairs": d.pairs.private,
        "ambiguous pairs": d.pairs.ambiguous,
        "identity-filtered private pairs": identity.private_pairs_removed if identity else 0,
        "contexts dropped (official)": official.discarded.contexts_dropped.count,
        "parse failures": d.trials.parse_failures,
        "failed generations": d.trials.failed_generations,
        PARTIAL_COLUMN: d.trials.partial_memory,
    }


PARTIAL_COLUMN = "partial-memory trials (official only)"


def discard_table(shown: Sequence[RunMetrics], other: Sequence[RunMetrics]) -> pd.DataFrame:
    """The discard report of each run (:func:`discard_row`), one row per run; the column of
    partial-memory trials (counted in official mode only) only when a run has any."""
    table = pd.DataFrame([discard_row(s, o) for s, o in zip(shown, other)])
    if PARTIAL_COLUMN in table and not table[PARTIAL_COLUMN].any():
        table = table.drop(columns=[PARTIAL_COLUMN])
    return table


def dropped_contexts(m: RunMetrics) -> pd.DataFrame:
    """The contexts official mode left out of a run's numbers, one row each."""
    return pd.DataFrame([asdict(c) for c in m.discarded.contexts_dropped.contexts])


def pairs_table(pairs: Sequence[RunPair]) -> pd.DataFrame:
    """Every two runs: the contexts they share and how many of those they label differently."""
    return pd.DataFrame(
        {
            "run A": [p.run_a for p in pairs],
            "run B": [p.run_b for p in pairs],
            "shared contexts": [p.shared_contexts for p in pairs],
            "labelled differently": [
                p.contexts_labelled_differently if p.shared_contexts else "-" for p in pairs
            ],
        }
    )


def pareto_front(points: list[tuple[str, float, float]]) -> list[str]:
    """Names of the points no other point beats: lower violation and higher completeness.

    A point is off the front when another is at least as good on both and better on one:

    >>> pareto_front([("a", 10.0, 50.0), ("b", 40.0, 90.0), ("c", 45.0, 80.0), ("d", 10.0, 40.0)])
    ['a', 'b']
    """
    front = []
    for name, v, c in points:
        if any((v2 <= v and c2 >= c) and (v2 < v or c2 > c) for _, v2, c2 in points):
            continue
        front.append(name)
    return front
