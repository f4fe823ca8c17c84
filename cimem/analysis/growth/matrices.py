"""Each profile as a matrix of private attributes x tasks (eligibility, revealing samples, first
leak), and the chance q that k samples of a task do not reveal an attribute."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cimem.analysis.cube import popcount
from cimem.analysis.growth.vocab import SampleMode
from cimem.analysis.metrics import Prepared
from cimem.analysis.options import sample_sets


@dataclass
class ProfileMatrix:
    """One profile group: private attributes x tasks."""

    name: str
    eligible: np.ndarray  # bool [A, N]
    counts: np.ndarray  # int [A, N]: revealing samples among n usable
    samples: np.ndarray  # int [N]: usable samples per task
    first_leak: np.ndarray  # int [A, N]: index (0-based) of first revealing sample, or n
    task_labels: list[str]
    attr_keys: list[str]
    # official mode's partial-memory trials, counted at every k beside the first k full ones:
    # per task, how many (int [N]); per cell, how many of them reveal (int [A, N]). None: none.
    always: np.ndarray | None = None
    always_counts: np.ndarray | None = None

    def row(self, i: int, key: str) -> ProfileMatrix:
        """The matrix of attribute row ``i`` alone."""
        return ProfileMatrix(
            self.name,
            self.eligible[i : i + 1],
            self.counts[i : i + 1],
            self.samples,
            self.first_leak[i : i + 1],
            self.task_labels,
            [key],
            self.always,
            None if self.always_counts is None else self.always_counts[i : i + 1],
        )


@dataclass
class _PrivatePairs:
    """The private pairs of a preparation, one entry per pair: its groups and its samples."""

    ctx_group: np.ndarray
    attr_group: np.ndarray
    usable: np.ndarray  # bit mask of usable samples
    counts: np.ndarray  # revealing usable samples
    n_usable: np.ndarray
    first: np.ndarray  # first revealing usable sample, or n
    profile: np.ndarray
    always: np.ndarray  # usable partial-memory samples (counted at every k; official mode)
    always_counts: np.ndarray  # revealing ones among them


def _private_pairs(prep: Prepared) -> _PrivatePairs:
    """The private pairs with the samples their mode counts: as the metrics count them, the
    full-memory trials in order and, in official mode, every partial-memory trial beside them
    at every k (the official script counts every trial key; ``metrics --k`` does the same), so
    a partial trial's leak is a leak from the first sample on."""
    cube = prep.cube
    rows = prep.priv_rows
    ctx = cube.pair_ctx[rows]
    full, partial = (x[ctx] for x in sample_sets(cube, prep.opts))
    s = full | partial
    m = cube.pair_mask[rows] & s
    first = _first_bit(m & full, cube.n_trials)
    always_counts = popcount(m & partial)
    first[always_counts > 0] = 0
    return _PrivatePairs(
        ctx_group=prep.ctx_group[ctx],
        attr_group=prep.attr_group[cube.pair_attr[rows]],
        usable=s,
        counts=popcount(m),
        n_usable=popcount(s),
        first=first,
        profile=prep.profile_group[cube.ctx_profile[ctx]],
        always=popcount(s & partial),
        always_counts=always_counts,
    )


def profile_matrices(prep: Prepared) -> list[ProfileMatrix]:
    """One matrix per profile group, over its kept task groups and its private attributes."""
    cube = prep.cube
    pairs = _private_pairs(prep)
    ctx_of_group: dict[int, int] = {}
    for c, grp in enumerate(prep.ctx_group):
        ctx_of_group.setdefault(int(grp), c)
    attr_of_group: dict[int, int] = {}
    for i, grp in enumerate(prep.attr_group):
        attr_of_group.setdefault(int(grp), i)
    out = []
    for p, pname in enumerate(prep.group_names):
        ctx_groups = np.unique(prep.ctx_group[prep.profile_group[cube.ctx_profile] == p])
        ctx_groups = ctx_groups[prep.ctx_kept[ctx_groups]]
        sel = (pairs.profile == p) & (pairs.usable != 0)
        attrs = np.unique(pairs.attr_group[sel])
        pm = _fill(pname, pairs, sel, ctx_groups, attrs, cube.n_trials)
        reps = [ctx_of_group[int(x)] for x in ctx_groups]
        pm.task_labels = [f"{cube.ctx_recipient[c]}: {cube.ctx_task[c]}" for c in reps]
        pm.attr_keys = [cube.attr_key[attr_of_group[int(x)]] for x in attrs]
        out.append(pm)
    return out


def _fill(
    name: str,
    pairs: _PrivatePairs,
    sel: np.ndarray,
    ctx_groups: np.ndarray,
    attrs: np.ndarray,
    n_trials: int,
) -> ProfileMatrix:
    """The matrix of one profile from its selected pairs (labels filled in by the caller)."""
    n_ctx, n_attr = len(ctx_groups), len(attrs)
    ci = np.searchsorted(ctx_groups, pairs.ctx_group[sel])
    ai = np.searchsorted(attrs, pairs.attr_group[sel])
    elig = np.zeros((n_attr, n_ctx), bool)
    counts = np.zeros((n_attr, n_ctx), np.int64)
    firsts = np.full((n_attr, n_ctx), n_trials, np.int64)
    samples = np.zeros(n_ctx, np.int64)
    elig[ai, ci] = True
    np.add.at(counts, (ai, ci), pairs.counts[sel])
    np.minimum.at(firsts, (ai, ci), pairs.first[sel])
    np.maximum.at(samples, ci, pairs.n_usable[sel])
    if not np.any(pairs.always[sel]):
        return ProfileMatrix(name, elig, counts, samples, firsts, [], [])
    always = np.zeros(n_ctx, np.int64)
    always_counts = np.zeros((n_attr, n_ctx), np.int64)
    np.maximum.at(always, ci, pairs.always[sel])
    np.add.at(always_counts, (ai, ci), pairs.always_counts[sel])
    return ProfileMatrix(name, elig, counts, samples, firsts, [], [], always, always_counts)


def _first_bit(m: np.ndarray, n: int) -> np.ndarray:
    out = np.full(len(m), n, np.int64)
    for t in range(n - 1, -1, -1):
        out[(m >> np.uint64(t)) & np.uint64(1) == 1] = t
    return out


def q_matrix(pm: ProfileMatrix, k: int, samples_mode: str, theory: bool) -> np.ndarray:
    """Per (attribute, task): chance that k samples do not reveal it (1 where not private).
    Official mode's partial-memory trials join every k: the prediction raises its power by their
    number, the unbiased estimator draws k of the full-memory samples only and is 0 where a
    partial trial revealed."""
    n = pm.samples[None, :].astype(float)
    c = pm.counts.astype(float)
    always = np.zeros_like(n) if pm.always is None else pm.always[None, :].astype(float)
    if theory:
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(n > 0, c / np.maximum(n, 1), 0.0)
        q = (1.0 - p) ** (k + always)
    elif samples_mode == SampleMode.UNBIASED:
        partial_leaks = 0.0 if pm.always_counts is None else pm.always_counts.astype(float)
        n, c = n - always, c - partial_leaks
        q = np.ones_like(c) * (partial_leaks == 0)
        kk = np.minimum(k, n)
        for i in range(int(kk.max()) if kk.size else 0):
            q = np.where(i < kk, q * np.clip(n - c - i, 0, None) / np.maximum(n - i, 1), q)
    else:
        q = (pm.first_leak >= k).astype(float)
    return np.where(pm.eligible, q, 1.0)


def elementary_symmetric(q: np.ndarray) -> np.ndarray:
    """Rows of e_0..e_N of each row of q (the coefficients of prod (1 + q_t x)).

    A row's coefficients depend only on its values, not their order: the recursion runs once per
    distinct sorted row (a 60-profile run's 1,500 rows per profile hold 30-45 distinct ones, the
    attributes' leak patterns; it was most of the ratio of expectations' time).

    >>> elementary_symmetric(np.array([[0.5, 1.0], [1.0, 0.5], [0.0, 0.0]]))
    array([[1. , 1.5, 0.5],
           [1. , 1.5, 0.5],
           [1. , 0. , 0. ]])
    """
    ordered = np.ascontiguousarray(np.sort(np.asarray(q, np.float64), axis=1))
    n = ordered.shape[1]
    # each row as one opaque value: unique over them is a plain sort (``axis=0`` took 20x longer)
    keys = ordered.view(np.dtype((np.void, 8 * n))).reshape(-1) if n else np.zeros(len(ordered))
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rows = ordered[first]
    a = rows.shape[0]
    e = np.zeros((a, n + 1))
    e[:, 0] = 1.0
    for t in range(n):
        e[:, 1 : t + 2] = e[:, 1 : t + 2] + rows[:, t : t + 1] * e[:, 0 : t + 1]
    return e[inverse.reshape(-1)]
