"""Breakdowns of one computation: per pair, attribute, domain, task and recipient, profile.

Each is a pandas DataFrame built from the same eligible sets the metrics use (see
:func:`cimem.analysis.metrics.prepare`), so a table always agrees with the headline numbers of its mode.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cimem.analysis.cube import LeakCube, popcount
from cimem.analysis.intervals import IntervalKind, ratio_interval
from cimem.analysis.metrics import MetricOptions, Prepared, prepare

# label code (-1 ambiguous, 0 private, 1 share) + 1 -> category position
_LABEL_CODE = np.array([2, 1, 0], dtype=np.int8)


def pair_table(cube: LeakCube, opts: MetricOptions, prep: Prepared | None = None) -> pd.DataFrame:
    """One row per labelled (profile, context, attribute) pair: label, leaks c of n samples,
    whether the pair counts for Violation (private, eligible) or Completeness (needed)."""
    prep = prep or prepare(cube, opts)
    ctx, attr = cube.pair_ctx, cube.pair_attr
    samples = prep.samples[ctx]
    in_violation = np.zeros(len(ctx), bool)
    in_violation[prep.priv_rows] = True
    in_completeness = np.zeros(len(ctx), bool)
    in_completeness[prep.need_rows] = True
    trials_mask = cube.pair_mask & samples
    return pd.DataFrame(
        {
            "profile": _categorical(cube.profile_names, cube.ctx_profile[ctx]),
            "profile_pos": cube.ctx_profile[ctx],
            "ctx": ctx,
            "recipient": _categorical(cube.ctx_recipient, ctx),
            "task": _categorical(cube.ctx_task, ctx),
            "attr": attr,
            "key": _categorical(cube.attr_key, attr),
            "domain": _categorical(cube.attr_domain, attr),
            "event": _categorical(cube.attr_event, attr),
            "label": pd.Categorical.from_codes(
                _LABEL_CODE[prep.label + 1], categories=pd.Index(["share", "private", "ambiguous"])
            ),
            "leaks": popcount(trials_mask),
            "samples": popcount(samples),
            "leaked_trials": trials_mask,
            "in_violation": in_violation,
            "in_completeness": in_completeness,
        }
    )


def _categorical(values: list, index: np.ndarray) -> pd.Categorical:
    """values[index] as a categorical, factorising the short list once (fast on big tables)."""
    codes, uniques = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
    return pd.Categorical.from_codes(codes[index], categories=pd.Index(uniques, dtype=object))


def _group_rows(codes: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Number the distinct combinations of category codes (none missing; ``sizes``: the number
    of categories of each column): (each row's group, each group's first row), groups in the
    order of their codes. Counting on the codes with numpy: pandas' groupby with named
    aggregations cost 20-35 ms per table on a 60-profile run."""
    rows = len(codes[0]) if codes else 0
    gid = np.zeros(rows, np.int64)
    for code, size in zip(codes, sizes):
        gid = gid * size + code.astype(np.int64)
    space = int(np.prod(sizes, dtype=np.float64)) if sizes else 1
    if space <= 4 * rows + 1_000_000:
        present = np.bincount(gid, minlength=space) > 0
        position = (np.cumsum(present) - 1)[gid]
        n = int(present.sum())
    else:  # too many possible combinations to count them all
        ids, position = np.unique(gid, return_inverse=True)
        n = len(ids)
    first = np.full(n, rows, np.int64)
    np.minimum.at(first, position, np.arange(rows))
    return position, first


def _codes(pairs: pd.DataFrame, by: list[str]) -> tuple[list[np.ndarray], list[pd.Index]]:
    cats = [pairs[c].cat for c in by]
    return [c.codes.to_numpy() for c in cats], [c.categories for c in cats]


def _counted(pairs: pd.DataFrame, flag: str, by: list[str]) -> np.ndarray:
    """Rows with samples that count for ``flag`` and a name in every ``by`` column (as pandas'
    groupby drops a missing name)."""
    keep = pairs[flag].to_numpy() & (pairs["samples"].to_numpy() > 0)
    for col in by:
        keep &= pairs[col].cat.codes.to_numpy() >= 0
    return keep


def _sum(position: np.ndarray, n: int, values: np.ndarray | None = None) -> np.ndarray:
    return np.bincount(position, weights=values, minlength=n).astype(np.int64)


ATTRIBUTE_COLUMNS = [
    "profile",
    "key",
    "domain",
    "event",
    "private_tasks",
    "leaked_tasks",
    "leaks",
    "samples",
    "violated",
    "leak_rate",
]


def attribute_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per attribute (of a profile): private tasks, tasks where it leaked, leaks / samples, and
    whether it counts as a violation; most leaked first (ties: in the order they appear)."""
    by = ["profile", "key"]
    keep = _counted(pairs, "in_violation", by)
    if not keep.any():
        return pd.DataFrame(columns=ATTRIBUTE_COLUMNS)
    codes, cats = _codes(pairs, [*by, "domain", "event"])
    position, first = _group_rows([c[keep] for c in codes[:2]], [len(c) for c in cats[:2]])
    n = len(first)
    seen = np.argsort(first, kind="stable")  # groups in the order they first appear
    leaks = pairs["leaks"].to_numpy()[keep]
    out = pd.DataFrame(
        {
            col: pd.Categorical.from_codes(code[keep][first[seen]], categories=cat)
            for col, code, cat in zip([*by, "domain", "event"], codes, cats)
        }
    )
    out["private_tasks"] = _sum(position, n)[seen]
    out["leaked_tasks"] = _sum(position, n, (leaks > 0).astype(float))[seen]
    out["leaks"] = _sum(position, n, leaks)[seen]
    out["samples"] = _sum(position, n, pairs["samples"].to_numpy()[keep])[seen]
    out["violated"] = out["leaked_tasks"] > 0
    out["leak_rate"] = out["leaks"] / out["samples"]
    return out.sort_values(["leaked_tasks", "leaks"], ascending=False, kind="stable")


def group_table(pairs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group: Violation (share of eligible attributes leaked in the group's tasks), the
    per-message leak rate, and Completeness over the group's needed pairs. A group with no pair
    of one kind has no number (NaN) for that kind."""
    private = _counted(pairs, "in_violation", by)
    needed = _counted(pairs, "in_completeness", by)
    rows = private | needed
    codes, cats = _codes(pairs, by)
    position, first = _group_rows([c[rows] for c in codes], [len(c) for c in cats])
    n = len(first)
    priv, need = private[rows], needed[rows]
    leaks = pairs["leaks"].to_numpy()[rows]
    samples = pairs["samples"].to_numpy()[rows]

    def side(mask: np.ndarray, sums: dict[str, np.ndarray | None]) -> dict[str, np.ndarray]:
        """Counts and sums over the rows of one kind; no number for a group without one."""
        out = {
            name: _sum(position[mask], n, None if v is None else v[mask])
            for name, v in sums.items()
        }
        has = next(iter(out.values())) > 0
        return out if has.all() else {k: np.where(has, v, np.nan) for k, v in out.items()}

    out = pd.DataFrame(
        {
            col: pd.Categorical.from_codes(c[rows][first], categories=cat)
            for col, c, cat in zip(by, codes, cats)
        }
    )
    v = side(
        priv,
        {
            "private_pairs": None,
            "leaked_pairs": (leaks > 0).astype(float),
            "leaks": leaks,
            "samples": samples,
        },
    )
    c = side(need, {"needed_pairs": None, "revealed": leaks, "needed_samples": samples})
    for name, values in v.items():
        out[name] = values
    out["pairs_leaked_share"] = out["leaked_pairs"] / out["private_pairs"]
    if "profile" not in by:
        lo, hi = _share_intervals(pairs, rows, priv, position, n, leaks)
        out["pairs_leaked_lo"], out["pairs_leaked_hi"] = lo, hi
    out["leak_rate_per_message"] = out["leaks"] / out["samples"]
    for name, values in c.items():
        out[name] = values
    out["completeness"] = out["revealed"] / out["needed_samples"]
    # by the share of pairs leaked, as the tables show it first, then by how many, then by name
    # (as text): an order a reader sees in the table itself
    names = {f"_{c}": out[c].astype(str) for c in by}
    keys = ["pairs_leaked_share", "leaked_pairs", *names]
    order = out.assign(**names).sort_values(
        keys, ascending=[False, False, *[True] * len(by)], na_position="last", kind="stable"
    )
    return order.drop(columns=list(names))


def _share_intervals(
    pairs: pd.DataFrame,
    rows: np.ndarray,
    priv: np.ndarray,
    position: np.ndarray,
    n: int,
    leaks: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Each group's 95% interval of its pooled pairs-leaked share, over people like these
    (:func:`cimem.analysis.intervals.ratio_interval`: the profile is the cluster); nan where
    there is none (a group of one profile)."""
    profiles = pairs["profile"].cat.codes.to_numpy()[rows][priv]
    width = max(int(profiles.max()) + 1, 1) if len(profiles) else 1
    cell = position[priv] * width + profiles
    private = np.bincount(cell, minlength=n * width).reshape(n, width)
    leaked = np.bincount(cell, weights=(leaks[priv] > 0), minlength=n * width).reshape(n, width)
    lo, hi = np.full(n, np.nan), np.full(n, np.nan)
    for g in range(n):
        ci = ratio_interval(leaked[g], private[g])
        if ci.kind != IntervalKind.NONE:
            lo[g], hi[g] = ci.bounds
    return lo, hi


def _heat_rows(pairs: pd.DataFrame, only_private: bool) -> np.ndarray:
    keep = pairs["samples"].to_numpy() > 0
    if only_private:
        keep &= pairs["in_violation"].to_numpy()
    return keep


def most_leaked_keys(pairs: pd.DataFrame, only_private: bool, top: int) -> list[str]:
    """The ``top`` attribute keys of the heatmap by leaks (ties: by key), counted straight on
    the categorical codes, so the heatmap is built for the keys on screen only."""
    data = pairs[_heat_rows(pairs, only_private)]
    if data.empty:
        return []
    key = data["key"].cat
    leaks = np.bincount(
        key.codes.to_numpy(), weights=data["leaks"].to_numpy(), minlength=len(key.categories)
    )
    present = np.flatnonzero(np.bincount(key.codes.to_numpy(), minlength=len(key.categories)))
    names = np.asarray(key.categories[present].astype(str), dtype=object)
    ranked = np.lexsort((names, -leaks[present]))  # most leaks first, then by name
    return [str(names[i]) for i in ranked[:top]]


def heatmap_table(pairs: pd.DataFrame, only_private: bool = True) -> pd.DataFrame:
    """Attribute key x task cells: leak frequency (leaks / samples) pooled over profiles; the
    label shown is the first profile's (labels of one key and task rarely differ).

    Grouped on the categorical codes with numpy (pandas' groupby over three categoricals cost a
    Leaks rerun a quarter of a second on a 60-profile run); rows in key, recipient, task order."""
    data = pairs[_heat_rows(pairs, only_private)]
    cols = ["key", "recipient", "task", "leaks", "samples", "label", "profiles", "frequency"]
    if data.empty:
        return pd.DataFrame(columns=[*cols, "context"])
    codes, cats = _codes(data, ["key", "recipient", "task"])
    # a missing name (code -1) is a group of its own
    inverse, first = _group_rows([c + 1 for c in codes], [len(c) + 1 for c in cats])
    n = len(first)
    leaks = _sum(inverse, n, data["leaks"].to_numpy())
    samples = _sum(inverse, n, data["samples"].to_numpy())
    profile_of = data["profile_pos"].to_numpy().astype(np.int64)
    profiles = np.bincount(
        np.unique(inverse * (profile_of.max() + 1) + profile_of) // (profile_of.max() + 1),
        minlength=n,
    )  # distinct (cell, profile) combinations, counted per cell
    firsts = data.take(first)
    out = pd.DataFrame(
        {
            "key": firsts["key"].astype(str).to_numpy(),
            "recipient": firsts["recipient"].to_numpy(),
            "task": firsts["task"].to_numpy(),
            "leaks": leaks,
            "samples": samples,
            "label": firsts["label"].to_numpy(),
            "profiles": profiles,
            "frequency": leaks / samples,
        }
    )
    out["context"] = out["recipient"].astype(str) + ": " + out["task"].astype(str)
    return out
