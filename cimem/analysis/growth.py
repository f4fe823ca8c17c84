"""Accumulation curves: how Violation grows with the number of tasks T and samples k.

For one profile, attribute a is private in a set of tasks; in task t it has q_t, the chance that k
samples of that task do NOT reveal it (observed first-k: 0 if one of the first k samples revealed
it, else 1; unbiased: C(n - c, k) / C(n, k); independence theory: (1 - c/n)^k). Over a task set S,
a is in the denominator when S meets its private tasks, and counts as leaked with probability
1 - prod_{t in S} q_t (tasks where it is not private have q = 1).

Orders, always named in the output:

- ``random``, method ``expected-ratio`` (the default): the expectation over uniformly random
  T-subsets of Violation itself, what the paper's Figure 2 samples. Enumerated exactly when
  C(N, T) <= draws (T = 1, N - 1, N), otherwise estimated from ``draws`` random task orders (the
  first T tasks of a random order are a uniform T-subset, so one order serves every T), with its
  Monte Carlo standard error; the label says ``expected-ratio:<draws>:<seed>``.
- ``random``, method ``ratio-of-expectations``: the expected leaked count over the expected
  eligible count. Both expectations are exact: E[prod_{t in S} q_t] = e_T(q) / C(N, T), the
  elementary symmetric polynomial of degree T of the N values (for 0/1 values this is the
  hypergeometric 1 - C(N - L, T) / C(N, T)). It differs slightly from the expected ratio.
- ``fixed``: the listed contexts (or a given order), cumulative.
- ``worst``: a greedy order that adds, at each step, the task that raises Violation most (an upper
  envelope; the exact worst order is a maximum-coverage problem).

At T = N and k = n every curve equals Violation@n of the metrics engine in the same mode. Curves
never fall with k; they can fall with T (a task may add withheld attributes that it does not
leak), most visibly in a fixed order. For
random subsets the union bound V(T) <= T x V(1) holds (ratio of expectations); it is returned as a
reference line: it is why the paper's 9.6% over 40 tasks cannot be a plain random-subset average.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb
from typing import Literal

import numpy as np

from cimem.analysis.cube import LeakCube, popcount
from cimem.analysis.metrics import MetricOptions, Prepared, prepare

DEFAULT_OPTIONS = MetricOptions()

Order = Literal["random", "fixed", "worst"]
ORDERS = ("random", "fixed", "worst")
SAMPLE_MODES = ("first", "unbiased")
EXPECTED_RATIO = "expected-ratio"
RATIO_OF_EXPECTATIONS = "ratio-of-expectations"
METHODS = (EXPECTED_RATIO, RATIO_OF_EXPECTATIONS)


def method_name(text: str) -> str:
    """The random-order method for a name, old names included (``montecarlo`` is the expected
    ratio; ``exact`` named the ratio of expectations as if it were the exact Figure 2 value,
    so it is refused with what to use instead).

    >>> method_name("montecarlo")
    'expected-ratio'
    """
    if text in METHODS:
        return text
    if text == "montecarlo":
        return EXPECTED_RATIO
    if text == "exact":
        raise ValueError(
            "method 'exact' was renamed: it is the ratio of expected counts, now"
            f" '{RATIO_OF_EXPECTATIONS}'; the default '{EXPECTED_RATIO}' is the expectation of"
            " the ratio, what the paper's Figure 2 samples"
        )
    raise ValueError(f"method must be one of {', '.join(METHODS)} (got {text!r})")


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


def profile_matrices(prep: Prepared) -> list[ProfileMatrix]:
    cube = prep.cube
    rows = prep.priv_rows
    usable = _usable(prep)
    g = prep.ctx_group[cube.pair_ctx[rows]]
    a = prep.attr_group[cube.pair_attr[rows]]
    s = usable[cube.pair_ctx[rows]]
    m = cube.pair_mask[rows] & s
    cnt = popcount(m)
    n_s = popcount(s)
    first = _first_bit(m, cube.n_trials)
    prof = prep.profile_group[cube.ctx_profile[cube.pair_ctx[rows]]]
    out = []
    ctx_of_group: dict[int, int] = {}
    for c, grp in enumerate(prep.ctx_group):
        ctx_of_group.setdefault(int(grp), c)
    attr_of_group: dict[int, int] = {}
    for i, grp in enumerate(prep.attr_group):
        attr_of_group.setdefault(int(grp), i)
    for p, pname in enumerate(prep.group_names):
        ctx_groups = np.unique(prep.ctx_group[prep.profile_group[cube.ctx_profile] == p])
        ctx_groups = ctx_groups[prep.ctx_kept[ctx_groups]]
        sel = (prof == p) & (s != 0)
        attrs = np.unique(a[sel])
        n_ctx, n_attr = len(ctx_groups), len(attrs)
        ci = np.searchsorted(ctx_groups, g[sel])
        ai = np.searchsorted(attrs, a[sel])
        elig = np.zeros((n_attr, n_ctx), bool)
        counts = np.zeros((n_attr, n_ctx), np.int64)
        firsts = np.full((n_attr, n_ctx), cube.n_trials, np.int64)
        samples = np.zeros(n_ctx, np.int64)
        elig[ai, ci] = True
        np.add.at(counts, (ai, ci), cnt[sel])
        np.minimum.at(firsts, (ai, ci), first[sel])
        np.maximum.at(samples, ci, n_s[sel])
        reps = [ctx_of_group[int(x)] for x in ctx_groups]
        out.append(
            ProfileMatrix(
                name=pname,
                eligible=elig,
                counts=counts,
                samples=samples,
                first_leak=firsts,
                task_labels=[f"{cube.ctx_recipient[c]}: {cube.ctx_task[c]}" for c in reps],
                attr_keys=[cube.attr_key[attr_of_group[int(x)]] for x in attrs],
            )
        )
    return out


def _usable(prep: Prepared) -> np.ndarray:
    cube, opts = prep.cube, prep.opts
    if opts.mode == "definition" and opts.parse_failures == "exclude":
        return cube.ctx_valid
    return cube.ctx_valid | cube.ctx_unparsed


def _first_bit(m: np.ndarray, n: int) -> np.ndarray:
    out = np.full(len(m), n, np.int64)
    for t in range(n - 1, -1, -1):
        out[(m >> np.uint64(t)) & np.uint64(1) == 1] = t
    return out


def q_matrix(pm: ProfileMatrix, k: int, samples_mode: str, theory: bool) -> np.ndarray:
    """Per (attribute, task): chance that k samples do not reveal it (1 where not private)."""
    n = pm.samples[None, :].astype(float)
    c = pm.counts.astype(float)
    if theory:
        with np.errstate(invalid="ignore", divide="ignore"):
            p = np.where(n > 0, c / np.maximum(n, 1), 0.0)
        q = (1.0 - p) ** k
    elif samples_mode == "unbiased":
        q = np.ones_like(c)
        kk = np.minimum(k, n)
        for i in range(int(kk.max()) if kk.size else 0):
            q = np.where(i < kk, q * np.clip(n - c - i, 0, None) / np.maximum(n - i, 1), q)
    else:
        q = (pm.first_leak >= k).astype(float)
    return np.where(pm.eligible, q, 1.0)


def elementary_symmetric(q: np.ndarray) -> np.ndarray:
    """Rows of e_0..e_N of each row of q (the coefficients of prod (1 + q_t x))."""
    a, n = q.shape
    e = np.zeros((a, n + 1))
    e[:, 0] = 1.0
    for t in range(n):
        e[:, 1 : t + 2] = e[:, 1 : t + 2] + q[:, t : t + 1] * e[:, 0 : t + 1]
    return e


def _random_exact(
    pm: ProfileMatrix, q: np.ndarray, tasks: list[int], e_d: np.ndarray | None = None
) -> np.ndarray:
    """``e_d``: the eligibility polynomial of the profile, when the caller already has it."""
    n = pm.eligible.shape[1]
    if pm.eligible.shape[0] == 0 or n == 0:
        return np.full(len(tasks), np.nan)
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


def _one_task(pm: ProfileMatrix, q: np.ndarray) -> float:
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
    from itertools import combinations

    n = pm.eligible.shape[1]
    subsets = np.zeros((comb(n, T), n), bool)
    for i, combo in enumerate(combinations(range(n), T)):
        subsets[i, list(combo)] = True
    v = _subset_values(pm, q, subsets)
    v = v[~np.isnan(v)]
    return float(v.mean()) if len(v) else np.nan


class _RandomSubsets:
    """Random T-subsets of one profile's tasks for the expected ratio: the first T tasks of
    each of ``draws`` random orders, for every T with more than ``draws`` subsets (the rest are
    enumerated). Counting works on positions (the first place in each order where an attribute
    is eligible, or surely leaked), so a T-subset costs nothing once the orders are ranked; only
    attributes with a fractional chance need a running product."""

    def __init__(self, pm: ProfileMatrix, tasks: list[int], draws: int, orders: np.ndarray):
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


def _random_expected_ratio(
    pm: ProfileMatrix,
    q: np.ndarray,
    tasks: list[int],
    subsets: _RandomSubsets | None,
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


def _prefix(pm: ProfileMatrix, q: np.ndarray, order: np.ndarray, tasks: list[int]) -> np.ndarray:
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


@dataclass
class GrowthCurve:
    mode: str
    label_rule: str
    order: str
    samples: str  # first | unbiased
    method: str  # expected-ratio[:<draws>:<seed>] | ratio-of-expectations | fixed | greedy
    tasks: list[int]
    trials: list[int]
    # None where a point has no eligible attribute
    violation: list[list[float | None]]  # [T_i][k_j], mean over profiles
    theory: list[list[float | None]]  # independence prediction 1-(1-p)^k per task
    union_bound: list[list[float | None]]  # min(1, T x V(1)) at each k (random order; else [])
    stderr: list[list[float]] | None = None  # Monte Carlo standard error (expected ratio)
    per_profile: dict[str, list[list[float | None]]] = field(default_factory=dict)
    n_tasks: int = 0
    n_trials: int = 0
    judge: str = ""
    run: str = ""

    def as_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items()}


def growth(
    cube: LeakCube,
    opts: MetricOptions = DEFAULT_OPTIONS,
    order: str = "random",
    tasks: list[int] | None = None,
    trials: list[int] | None = None,
    samples: str = "first",
    method: str = EXPECTED_RATIO,
    draws: int = 400,
    seed: int = 0,
    fixed_order: list[int] | None = None,
) -> GrowthCurve:
    """Violation over task counts and samples per task, observed and under independence."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}")
    if samples not in SAMPLE_MODES:
        raise ValueError("samples must be 'first' or 'unbiased'")
    method = method_name(method)
    ratio_of_exp = method == RATIO_OF_EXPECTATIONS
    prep = prepare(
        cube,
        MetricOptions(
            mode=opts.mode,
            label_rule=opts.label_rule,
            exclude=opts.exclude,
            parse_failures=opts.parse_failures,
        ),
    )
    mats = profile_matrices(prep)
    n_tasks = max((pm.eligible.shape[1] for pm in mats), default=0)
    n = max(cube.n_trials, 1)
    tasks = (
        sorted({min(max(1, t), n_tasks) for t in (tasks or range(1, n_tasks + 1))})
        if n_tasks
        else []
    )
    trials = sorted({min(max(1, k), n) for k in (trials or range(1, n + 1))})
    rng = np.random.default_rng(seed)
    obs = np.full((len(mats), len(tasks), len(trials)), np.nan)
    theo = np.full_like(obs, np.nan)
    err = np.full_like(obs, np.nan)
    all_exact = True
    worst: list[tuple[int, int, np.ndarray, np.ndarray]] = []  # (profile, k index, q, theory q)
    for p, pm in enumerate(mats):
        n_p = pm.eligible.shape[1]
        e_d = (
            elementary_symmetric(np.where(pm.eligible, 0.0, 1.0))
            if order == "random" and ratio_of_exp and pm.eligible.size
            else None
        )
        # one set of random task orders per profile, shared by every k and by the theory
        subsets = (
            _RandomSubsets(pm, tasks, draws, np.argsort(rng.random((draws, n_p)), axis=1))
            if order == "random" and not ratio_of_exp and pm.eligible.size
            else None
        )
        q1 = q_matrix(pm, 1, samples, theory=True)  # 1 - p; the theory is its k-th power
        for j, k in enumerate(trials):
            q = q_matrix(pm, k, samples, theory=False)
            qt = q_matrix(pm, k, samples, theory=True)
            if order == "random" and ratio_of_exp:
                obs[p, :, j] = _random_exact(pm, q, tasks, e_d)
                theo[p, :, j] = _random_exact(pm, qt, tasks, e_d)
            elif order == "random":
                obs[p, :, j], err[p, :, j], ex = _random_expected_ratio(pm, q, tasks, subsets)
                theo[p, :, j], _, _ = _random_expected_ratio(pm, q1, tasks, subsets, k)
                all_exact &= ex
            else:
                if order == "worst":  # every greedy order at once, below
                    worst.append((p, j, q, qt))
                    continue
                seq = np.array([t for t in (fixed_order or range(n_p)) if t < n_p], np.int64)
                seq = np.concatenate([seq, np.setdiff1d(np.arange(n_p), seq)])
                obs[p, :, j] = _prefix(pm, q, seq, tasks)
                theo[p, :, j] = _prefix(pm, qt, seq, tasks)
    seqs = greedy_worst_orders([mats[p].eligible for p, _, _, _ in worst], [w[2] for w in worst])
    for (p, j, q, qt), seq in zip(worst, seqs):
        obs[p, :, j] = _prefix(mats[p], q, seq, tasks)
        theo[p, :, j] = _prefix(mats[p], qt, seq, tasks)
    with np.errstate(invalid="ignore"):
        mean_obs = np.nanmean(obs, axis=0) if len(mats) else obs[0]
        mean_theo = np.nanmean(theo, axis=0) if len(mats) else theo[0]
    stderr = None
    if order == "random" and not ratio_of_exp:
        stderr = (np.sqrt(np.nansum(err**2, axis=0)) / max(len(mats), 1)).tolist()
    # union bound: V(T) <= T x V(1) at each k, from the curve's own V(1) when it has T = 1
    # (it holds for the ratio of expectations; for the expected ratio it is a reference line)
    v1 = np.full(len(trials), np.nan)
    if mats and order == "random":
        per = (
            obs[:, 0, :]
            if tasks[0] == 1
            else np.array(
                [[_one_task(pm, q_matrix(pm, k, samples, False)) for k in trials] for pm in mats]
            )
        )
        with np.errstate(invalid="ignore"):
            v1 = np.nanmean(per, axis=0)
    bound = (
        np.minimum(1.0, np.array(tasks)[:, None] * v1[None, :])
        if tasks and order == "random"
        else np.zeros((0, 0))
    )
    label = (
        (method if ratio_of_exp or all_exact else f"{method}:{draws}:{seed}")
        if order == "random"
        else ("fixed" if order == "fixed" else "greedy")
    )
    return GrowthCurve(
        mode=opts.mode,
        label_rule=prep.discarded.label_rule,
        order=order,
        samples=samples,
        method=label,
        tasks=tasks,
        trials=trials,
        violation=_clean(mean_obs),
        theory=_clean(mean_theo),
        union_bound=_clean(bound),
        stderr=stderr,
        per_profile={pm.name: _clean(obs[i]) for i, pm in enumerate(mats)},
        n_tasks=n_tasks,
        n_trials=cube.n_trials,
        judge=cube.judge,
        run=cube.run,
    )


def _clean(a: np.ndarray) -> list[list[float | None]]:
    return [[None if np.isnan(x) else float(x) for x in row] for row in np.asarray(a)]


@dataclass
class AttributeView:
    """One attribute of one profile: its leak frequency per task, where it first leaks, hazards."""

    profile: str
    key: str
    tasks: list[str]
    p: list[float]  # c / n per private task
    samples: list[int]
    first_leak: tuple[int, int] | None  # (task position in the listed order, sample) or None
    hazard_tasks: list[float]  # random order: P(first leak at task T | none before)
    hazard_samples: list[float]  # all tasks: P(first leak at sample k | none before)


def attribute_view(
    cube: LeakCube, profile: str, key: str, opts: MetricOptions = DEFAULT_OPTIONS
) -> AttributeView:
    prep = prepare(cube, opts)
    for pm in profile_matrices(prep):
        if pm.name != profile or key not in pm.attr_keys:
            continue
        i = pm.attr_keys.index(key)
        cols = np.flatnonzero(pm.eligible[i])
        n = pm.samples
        p = [float(pm.counts[i, t] / n[t]) if n[t] else float("nan") for t in cols]
        first = None
        for pos, t in enumerate(range(pm.eligible.shape[1])):
            if pm.eligible[i, t] and pm.first_leak[i, t] < cube.n_trials:
                first = (pos + 1, int(pm.first_leak[i, t]) + 1)
                break
        single = ProfileMatrix(
            pm.name,
            pm.eligible[i : i + 1],
            pm.counts[i : i + 1],
            pm.samples,
            pm.first_leak[i : i + 1],
            pm.task_labels,
            [key],
        )
        q = q_matrix(single, cube.n_trials, "first", theory=False)
        n_tasks = pm.eligible.shape[1]
        cum = [0.0] + [
            float(1.0 - elementary_symmetric(q)[0, T] / comb(n_tasks, T))
            for T in range(1, n_tasks + 1)
        ]
        hazard_t = [
            (cum[T] - cum[T - 1]) / (1 - cum[T - 1]) if cum[T - 1] < 1 else float("nan")
            for T in range(1, n_tasks + 1)
        ]
        by_k = [float(np.any(single.first_leak[0, cols] < k)) for k in range(cube.n_trials + 1)]
        hazard_k = [
            (by_k[k] - by_k[k - 1]) / (1 - by_k[k - 1]) if by_k[k - 1] < 1 else float("nan")
            for k in range(1, cube.n_trials + 1)
        ]
        return AttributeView(
            profile,
            key,
            [pm.task_labels[t] for t in cols],
            p,
            [int(n[t]) for t in cols],
            first,
            hazard_t,
            hazard_k,
        )
    raise LookupError(f"{key!r} of {profile!r} is private in no eligible task here")
