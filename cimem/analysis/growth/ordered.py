"""Orders fixed in advance: Violation along one order of a profile's tasks (its prefixes), and the
greedy worst order that adds, at each step, the task that raises Violation most."""

from __future__ import annotations

import numpy as np

from cimem.analysis.growth.matrices import ProfileMatrix


def prefix_violation(
    pm: ProfileMatrix, q: np.ndarray, order: np.ndarray, tasks: list[int]
) -> np.ndarray:
    """Violation of the first T tasks of ``order``, at each T of ``tasks``."""
    n = pm.eligible.shape[1]
    if pm.eligible.shape[0] == 0 or n == 0:
        return np.full(len(tasks), np.nan)
    leak = 1.0 - np.cumprod(q[:, order], axis=1)
    den = np.cumsum(pm.eligible[:, order], axis=1) > 0
    num = np.where(den, leak, 0.0).sum(axis=0)
    d = den.sum(axis=0)
    idx = np.minimum(np.asarray(tasks), n) - 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(d[idx] > 0, num[idx] / np.maximum(d[idx], 1), np.nan)


def greedy_worst_order(pm: ProfileMatrix, q: np.ndarray) -> np.ndarray:
    """Add, step by step, the task that gives the highest Violation so far (ties within 1e-6:
    the first). One profile; :func:`greedy_worst_orders` does many at once."""
    return greedy_worst_orders([pm.eligible], [q])[0]


def greedy_worst_orders(eligible: list[np.ndarray], qs: list[np.ndarray]) -> list[np.ndarray]:
    """:func:`greedy_worst_order` for many (eligible [A, N], q [A, N]) problems at once, padded
    into one batch: each step is three batched matrix-vector products instead of a loop of
    small array operations per problem (a 60-profile run at five sample counts: 300 problems).

    With ``den = eligible | seen`` (an attribute counts once some chosen task made it eligible)
    and ``prod`` the product of q over the chosen tasks, a candidate task r gives
    ``d_r = sum_a den[a, r]`` counted attributes and ``sum_a den[a, r] (1 - prod_a q[a, r])``
    leaked: both are sums over attributes of known matrices times ``seen`` and ``prod``."""
    if not eligible:
        return []
    n_b = len(eligible)
    a_max = max(e.shape[0] for e in eligible)
    n_max = max(e.shape[1] for e in eligible)
    if n_max == 0:
        return [np.zeros(0, np.int64) for _ in eligible]
    elig = np.zeros((n_b, a_max, n_max), bool)
    q = np.ones((n_b, a_max, n_max))
    real = np.zeros((n_b, n_max), bool)
    for i, (e, qi) in enumerate(zip(eligible, qs)):
        elig[i, : e.shape[0], : e.shape[1]] = e
        q[i, : e.shape[0], : e.shape[1]] = qi
        real[i, : e.shape[1]] = True
    # float32 (four times faster here); scores that agree to 1e-6 count as ties
    f32 = np.float32
    e_t = np.ascontiguousarray(elig.transpose(0, 2, 1), dtype=f32)  # [B, N, A]
    q_t = np.ascontiguousarray(q.transpose(0, 2, 1), dtype=f32)
    not_e = 1.0 - e_t
    both = np.concatenate([e_t * q_t, not_e * q_t], axis=2)  # [B, N, 2A]: eligible, seen-only
    e_sum = e_t.sum(axis=2)  # [B, N]
    seen = np.zeros((n_b, a_max), f32)
    prod = np.ones((n_b, a_max), f32)
    taken = ~real
    orders = np.zeros((n_b, n_max), np.int64)
    rows = np.arange(n_b)
    for step in range(n_max):
        d = e_sum + np.matmul(not_e, seen[:, :, None])[:, :, 0]
        weights = np.concatenate([prod, prod * seen], axis=1)[:, :, None]
        kept = np.matmul(both, weights)[:, :, 0]  # sum over counted attributes of prod * q
        with np.errstate(invalid="ignore", divide="ignore"):
            v = np.where(d > 0.5, (d - kept) / np.maximum(d, 1.0), -1.0)
        v = np.where(taken, -np.inf, np.round(v, 6))
        best = np.argmax(v, axis=1)
        orders[:, step] = best
        taken[rows, best] = True
        prod *= q_t[rows, best, :]
        seen = np.maximum(seen, e_t[rows, best, :])
    return [orders[i, : e.shape[1]] for i, e in enumerate(eligible)]
