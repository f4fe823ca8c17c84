"""The Overview table: one Table-1-style row per run, and a fair comparison across runs.

Violation@n depends on n and on the task set. When runs differ in either and still share contexts,
rows are also given at a common k (the unbiased Violation@k, k = the smallest n) over the contexts
all runs share, and the result says so; when they share none there is nothing to compare on, and
the note says why instead of printing empty columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from cimem.analysis.cube import LeakCube, context_keys, restrict_contexts
from cimem.analysis.metrics import NO_LABELS, MetricOptions, RunMetrics, compute


@dataclass
class Overview:
    table: pd.DataFrame
    metrics: list[RunMetrics]
    comparable: bool  # same n and same contexts everywhere
    common_k: int
    common_contexts: int
    note: str


def overview(
    cubes: list[LeakCube], opts: MetricOptions, results: list[RunMetrics] | None = None
) -> Overview:
    """``results``: each cube's metrics under ``opts`` when the caller already has them."""
    results = results if results is not None else [compute(c, opts) for c in cubes]
    ns = {c.n_trials for c in cubes}
    keysets = [set(context_keys(c)) for c in cubes]
    common = set.intersection(*keysets) if keysets else set()
    comparable = len(ns) <= 1 and all(k == common for k in keysets)
    common_k = min(ns) if ns else 0
    rows = []
    for cube, m in zip(cubes, results):
        row = {
            "run": m.run,
            "model": cube.info.model or "",
            "level": cube.info.level,
            "judge": m.judge,
            "profiles": m.violation.n_profiles,
            "n": m.n_trials,
            "violation_mean": 100 * m.violation.mean,
            "violation_std": 100 * m.violation.std,
            "violation_lo": 100 * m.violation.ci95[0],
            "violation_hi": 100 * m.violation.ci95[1],
            "completeness_mean": 100 * m.completeness.mean,
            "completeness_std": 100 * m.completeness.std,
            "completeness_lo": 100 * m.completeness.ci95[0],
            "completeness_hi": 100 * m.completeness.ci95[1],
            "leak_rate_per_message": 100 * m.leak_rate.mean,
            "simulated": cube.info.simulated,
            "labels": "yes" if cube.has_labels else NO_LABELS,
        }
        if not comparable and common:
            fair = compute(
                restrict_contexts(cube, common),
                MetricOptions(
                    mode=opts.mode,
                    label_rule=opts.label_rule,
                    exclude=opts.exclude,
                    parse_failures=opts.parse_failures,
                    k=common_k,
                ),
            )
            row[f"violation_at_{common_k}_common"] = 100 * fair.violation_unbiased.mean
            row["completeness_common"] = 100 * fair.completeness.mean
        rows.append(row)
    if len(rows) == 1:
        note = "one run"
    elif comparable:
        note = "all runs have the same n and contexts: rows compare directly"
    elif common:
        note = (
            f"runs differ in n ({', '.join(map(str, sorted(ns)))}) or contexts: the common"
            f" columns compare them at k = {common_k} (unbiased Violation@k) over the"
            f" {len(common)} contexts they share"
        )
    else:
        note = (
            "runs share no context (no profile and task in common), so there is no common"
            " ground to compare them at one k: each row stands for its own profiles and tasks"
        )
    return Overview(pd.DataFrame(rows), results, comparable, common_k, len(common), note)
