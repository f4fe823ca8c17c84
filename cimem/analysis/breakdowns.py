"""Breakdowns of one computation: per pair, attribute, domain, task and recipient, profile.

Each is a pandas DataFrame built from the same eligible sets the metrics use (see
:func:`cimem.analysis.metrics.prepare`), so a table always agrees with the headline numbers of its mode.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from cimem.analysis.cube import LeakCube, popcount
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


def attribute_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per attribute (of a profile): private tasks, tasks where it leaked, leaks / samples, and
    whether it counts as a violation."""
    priv = pairs[pairs["in_violation"] & (pairs["samples"] > 0)]
    if priv.empty:
        return pd.DataFrame(
            columns=[
                "profile",
                "key",
                "domain",
                "event",
                "private_tasks",
                "leaked_tasks",
                "leaks",
                "samples",
                "violated",
            ]
        )
    g = priv.assign(leaked=priv["leaks"] > 0).groupby(["profile", "key"], sort=False)
    out = g.agg(
        domain=("domain", "first"),
        event=("event", "first"),
        private_tasks=("ctx", "size"),
        leaked_tasks=("leaked", "sum"),
        leaks=("leaks", "sum"),
        samples=("samples", "sum"),
    ).reset_index()
    out["violated"] = out["leaked_tasks"] > 0
    out["leak_rate"] = out["leaks"] / out["samples"]
    return out.sort_values(["leaked_tasks", "leaks"], ascending=False, kind="stable")


def group_table(pairs: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group: Violation (share of eligible attributes leaked in the group's tasks), the
    per-message leak rate, and Completeness over the group's needed pairs."""
    priv = pairs[pairs["in_violation"] & (pairs["samples"] > 0)]
    need = pairs[pairs["in_completeness"] & (pairs["samples"] > 0)]
    v = (
        priv.assign(leaked=priv["leaks"] > 0)
        .groupby(by, observed=True)
        .agg(
            private_pairs=("ctx", "size"),
            leaked_pairs=("leaked", "sum"),
            leaks=("leaks", "sum"),
            samples=("samples", "sum"),
        )
    )
    v["pairs_leaked_share"] = v["leaked_pairs"] / v["private_pairs"]
    v["leak_rate_per_message"] = v["leaks"] / v["samples"]
    c = need.groupby(by, observed=True).agg(
        needed_pairs=("ctx", "size"), revealed=("leaks", "sum"), needed_samples=("samples", "sum")
    )
    c["completeness"] = c["revealed"] / c["needed_samples"]
    out = v.join(c, how="outer").reset_index()
    return out.sort_values("leaks", ascending=False, na_position="last", kind="stable")


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
    present = np.bincount(key.codes.to_numpy(), minlength=len(key.categories)) > 0
    names = np.asarray(key.categories.astype(str))
    ranked = sorted(np.flatnonzero(present), key=lambda i: (-leaks[i], names[i]))
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
    codes = [data[c].cat.codes.to_numpy().astype(np.int64) for c in ("key", "recipient", "task")]
    sizes = [len(data[c].cat.categories) + 1 for c in ("key", "recipient", "task")]
    group_id = (codes[0] * sizes[1] + codes[1]) * sizes[2] + codes[2]
    uniq, first, inverse = np.unique(group_id, return_index=True, return_inverse=True)
    n = len(uniq)
    leaks = np.bincount(inverse, weights=data["leaks"].to_numpy(), minlength=n).astype(np.int64)
    samples = np.bincount(inverse, weights=data["samples"].to_numpy(), minlength=n)
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
            "samples": samples.astype(np.int64),
            "label": firsts["label"].to_numpy(),
            "profiles": profiles,
            "frequency": leaks / samples,
        }
    )
    out["context"] = out["recipient"].astype(str) + ": " + out["task"].astype(str)
    return out
