"""Random task orders: the expected Violation over uniformly random T-subsets of a profile's
tasks (enumerated when there are few subsets, else sampled from random task orders), and the
ratio of expected counts, exact through elementary symmetric polynomials."""

from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from cimem.analysis.growth.matrices import ProfileMatrix, elementary_symmetric

ORDERS_PER_RUN = 1000
"""The expected ratio's Monte Carlo budget: random task orders per run, shared by its profiles,
so every run's mean has about the same Monte Carlo error and costs about the same (a profile-draw
costs alike whatever the run). The page and ``cimem growth`` both take it, with seed 0."""
ORDERS_PER_PROFILE = (32, 400)  # the fewest and the most orders one profile gets


def orders_per_profile(profiles: int) -> int:
    """Random task orders per profile for a run of ``profiles`` profiles (T-subsets are
    enumerated instead where a task count has no more than this many).

    >>> orders_per_profile(1), orders_per_profile(10), orders_per_profile(60)
    (400, 100, 32)
    """
    low, high = ORDERS_PER_PROFILE
    return max(low, min(high, ORDERS_PER_RUN // max(profiles, 1)))


def ratio_of_expectations(
    pm: ProfileMatrix,
    q: np.ndarray,
    tasks: list[int],
    e_d: np.ndarray | None = None,
    e_q: np.ndarray | None = None,
) -> np.ndarray:
    """Expected leaked over expected eligible attributes at each T. ``e_d``: the eligibility
    polynomial of the profile, ``e_q`` that of ``q``, when the caller already has them."""
    n = pm.eligible.shape[1]
    if pm.eligible.shape[0] == 0 or n == 0:
        return np.full(len(tasks), np.nan)
    if e_q is None:
        e_q = elementary_symmetric(q)
    if e_d is None:
        e_d = elementary_symmetric(np.where(pm.eligible, 0.0, 1.0))
    out = []
    for T in tasks:
        T = min(T, n)
        total = comb(n, T)
        num = np.sum(1.0 - e_q[:, T] / total)
        den = np.sum(1.0 - e_d[:, T] / total)
        out.append(num / den if den > 0 else np.nan)
    return np.array(out)


def one_task_ratio(pm: ProfileMatrix, q: np.ndarray) -> float:
    """The ratio of expectations at T = 1 (e_1 is a row sum): the union bound's V(1)."""
    n = pm.eligible.shape[1]
    if pm.eligible.shape[0] == 0 or n == 0:
        return np.nan
    num = np.sum(1.0 - q.sum(axis=1) / n)
    den = np.sum(1.0 - (~pm.eligible).sum(axis=1) / n)
    return num / den if den > 0 else np.nan


def _subset_values(pm: ProfileMatrix, q: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """Violation of each subset (rows of a bool [S, N] matrix)."""
    sel = subsets.astype(float).T  # [N, S]
    den = (pm.eligible.astype(float) @ sel) > 0  # [A, S]
    hit_zero = ((q == 0).astype(float) @ sel) > 0  # a sure leak in the subset
    logq = np.log(np.where(q > 0, q, 1.0))
    leak = np.where(hit_zero, 1.0, 1.0 - np.exp(logq @ sel))
    num = np.sum(np.where(den, leak, 0.0), axis=0)
    d = den.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d > 0, num / np.maximum(d, 1), np.nan)


def _enumerated(pm: ProfileMatrix, q: np.ndarray, T: int) -> float:
    """The expected ratio over every T-subset (few of them)."""
    n = pm.eligible.shape[1]
    subsets = np.zeros((comb(n, T), n), bool)
    for i, combo in enumerate(combinations(range(n), T)):
        subsets[i, list(combo)] = True
    v = _subset_values(pm, q, subsets)
    v = v[~np.isnan(v)]
    return float(v.mean()) if len(v) else np.nan


class RandomSubsets:
    """Random T-subsets of one profile's tasks for the expected ratio: the first T tasks of
    each of ``draws`` random orders, for every T with more than ``draws`` subsets (the rest are
    enumerated). Counting works on positions (the first place in each order where an attribute
    is eligible, or surely leaked), so a T-subset costs nothing once the orders are ranked; only
    attributes with a fractional chance need a running product."""

    def __init__(self, pm: ProfileMatrix, tasks: list[int], draws: int, orders: np.ndarray) -> None:
        n = pm.eligible.shape[1]
        self.n, self.draws, self.orders = n, draws, orders
        self.sampled = sorted({min(T, n) for T in tasks if comb(n, min(T, n)) > draws})
        self.idx = np.asarray(self.sampled, np.int64) - 1
        self.pos = np.argsort(orders, axis=1).astype(np.int16)  # [D, N]: place of each task
        self.d = self._count(pm.eligible)
        self._run: tuple[np.ndarray, np.ndarray] | None = None

    def _first(self, m: np.ndarray) -> np.ndarray:
        """[A, D]: the first place in each order of a task where ``m`` holds (N if none)."""
        out = np.full((m.shape[0], self.draws), self.n, np.int64)
        rows = m.any(axis=1)
        if rows.any():
            ordered = m[rows][:, self.orders]  # [A', D, N]: m along each order
            out[rows] = np.where(ordered.any(axis=2), ordered.argmax(axis=2), self.n)
        return out

    def _count(self, m: np.ndarray) -> np.ndarray:
        """[D, m]: attributes for which ``m`` holds in some task among the first T."""
        first = self._first(m)
        flat = (np.arange(self.draws)[None, :] * (self.n + 1) + first).ravel()
        hist = np.bincount(flat, minlength=self.draws * (self.n + 1))
        return np.cumsum(hist.reshape(self.draws, self.n + 1), axis=1)[:, self.idx]

    def values(self, q: np.ndarray, power: int = 1) -> np.ndarray:
        """Violation of each sampled subset for chances q**power: [D, m] (nan where nothing is
        eligible). The running sums of log q are kept for the last q, so the theory's
        (1 - p)^k for every k costs one pass each."""
        sure = q == 0
        num = self._count(sure).astype(float)
        frac = (q > 0) & (q < 1)
        rows = frac.any(axis=1)
        if rows.any():
            if self._run is None or self._run[0] is not q:
                logq = np.log(np.where(frac[rows], q[rows], 1.0)).astype(np.float32)
                run = np.cumsum(logq[:, self.orders], axis=2)[:, :, self.idx]  # [A', D, m]
                free = self._first(sure[rows])[:, :, None] > self.idx[None, None, :]
                self._run = (q, np.where(free, run, np.float32(np.nan)))
            num += np.nansum(-np.expm1(power * self._run[1]), axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.d > 0, num / np.maximum(self.d, 1), np.nan)


def expected_ratio(
    pm: ProfileMatrix,
    q: np.ndarray,
    tasks: list[int],
    subsets: RandomSubsets | None,
    power: int = 1,
) -> tuple[np.ndarray, np.ndarray, bool]:
    """Expected ratio at each T for chances q**power with its standard error, and whether every
    T was enumerated."""
    n = pm.eligible.shape[1]
    means, ses = np.full(len(tasks), np.nan), np.full(len(tasks), np.nan)
    if subsets is None or pm.eligible.shape[0] == 0 or n == 0:
        return means, ses, True
    if subsets.sampled:
        v = subsets.values(q, power)
        ok = (~np.isnan(v)).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.nansum(v, axis=0) / np.maximum(ok, 1)
            var = np.nansum((v - mean) ** 2, axis=0) / np.maximum(ok - 1, 1)
        mean = np.where(ok > 0, mean, np.nan)
        se = np.where(ok > 1, np.sqrt(var / np.maximum(ok, 1)), np.nan)
    where = {T: j for j, T in enumerate(subsets.sampled)}
    for i, T in enumerate(tasks):
        T = min(T, n)
        if T in where:
            means[i], ses[i] = mean[where[T]], se[where[T]]
        else:
            means[i], ses[i] = _enumerated(pm, q**power, T), 0.0
    return means, ses, not subsets.sampled
