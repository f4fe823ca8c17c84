"""Accumulation curves against brute force over all task subsets, and their invariants."""

import itertools
import random

import numpy as np
import pytest

from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.growth import attribute_view, growth
from cimem.analysis.metrics import MetricOptions, compute

from conftest import shared_file
from fixtures import PRIVATE, SHARE, attribute, profile, write_jsonl


def random_profile(rng, name, n_ctx=5, n_attr=4, n_trials=3):
    attrs = {f"a{i}": attribute(i, "finance", f"Statement {i}.") for i in range(n_attr)}
    attrs["need"] = attribute("x", "general", "Need.")
    ctxs = []
    for c in range(n_ctx):
        labels = {"need": SHARE}
        for i in range(n_attr):
            labels[f"a{i}"] = PRIVATE if rng.random() < 0.6 else SHARE
        trials = []
        for t in range(n_trials):
            rev = {"need": 1}
            for i in range(n_attr):
                rev[f"a{i}"] = int(rng.random() < 0.25)
            trials.append((rev, {k: "s" for k, v in rev.items() if v}, f"m{c}{t}"))
        ctxs.append({"recipient": f"R{c}", "task": f"T{c}", "labels": labels, "trials": trials})
    return profile(name, attrs, ctxs)


@pytest.fixture(scope="module")
def cube(tmp_path_factory):
    rng = random.Random(3)
    path = tmp_path_factory.mktemp("g") / "r.jsonl"
    write_jsonl(path, [random_profile(rng, f"P{i}") for i in range(3)])
    return cube_from_official(path)


def brute(cube, T, k):
    """Per profile over every T-subset of tasks: (E[leaked], E[eligible], E[ratio])."""
    out = []
    for p in range(cube.n_profiles):
        ctxs = [c for c in range(len(cube.ctx_profile)) if cube.ctx_profile[c] == p]
        leaked_sets, elig_sets = {}, {}
        for r in range(len(cube.pair_ctx)):
            c = int(cube.pair_ctx[r])
            if cube.ctx_profile[c] != p or cube.pair_private[r] < 1:
                continue
            a = int(cube.pair_attr[r])
            elig_sets.setdefault(a, set()).add(c)
            if int(cube.pair_mask[r]) & ((1 << k) - 1):
                leaked_sets.setdefault(a, set()).add(c)
        nums, dens, ratios = [], [], []
        for subset in itertools.combinations(ctxs, T):
            s = set(subset)
            den = sum(1 for a, cs in elig_sets.items() if cs & s)
            num = sum(1 for a, cs in leaked_sets.items() if cs & s)
            nums.append(num)
            dens.append(den)
            if den:
                ratios.append(num / den)
        out.append((np.mean(nums), np.mean(dens), np.mean(ratios)))
    return out


@pytest.mark.parametrize("T,k", [(1, 1), (2, 1), (3, 2), (4, 3), (5, 3)])
def test_random_order_against_brute_force(cube, T, k):
    opts = MetricOptions(mode="definition")
    b = brute(cube, T, k)
    ratio_of_expectations = growth(
        cube, opts, order="random", tasks=[T], trials=[k], method="ratio-of-expectations"
    )
    assert ratio_of_expectations.method == "ratio-of-expectations"
    assert ratio_of_expectations.violation[0][0] == pytest.approx(np.mean([n / d for n, d, _ in b]))
    expected_ratio = np.mean([r for _, _, r in b])
    small = growth(cube, opts, order="random", tasks=[T], trials=[k], draws=4, seed=1)
    if small.method == "expected-ratio":  # few subsets: enumerated, no sampling error
        assert small.violation[0][0] == pytest.approx(expected_ratio)
        assert small.stderr[0][0] == 0
    else:
        assert small.method == "expected-ratio:4:1" and small.stderr[0][0] > 0
        big = growth(cube, opts, order="random", tasks=[T], trials=[k], draws=3000, seed=2)
        assert big.method == "expected-ratio"  # 3,000 > C(5, T): enumerated
        assert big.violation[0][0] == pytest.approx(expected_ratio)
    # the theory 1-(1-p)^k over the same random subsets, against brute force on p = c/n
    theory = growth(cube, opts, order="random", tasks=[T], trials=[k], draws=100000)
    assert theory.method == "expected-ratio"  # every subset enumerated
    assert theory.theory[0][0] == pytest.approx(brute_theory(cube, T, k))


def brute_theory(cube, T, k):
    """Expected ratio of the independence prediction over every T-subset, mean over profiles."""
    per_profile = []
    for p in range(cube.n_profiles):
        ctxs = [c for c in range(len(cube.ctx_profile)) if cube.ctx_profile[c] == p]
        n = {c: cube.n_trials for c in ctxs}
        q = {}  # (attr, ctx) -> (1 - c/n)^k
        for r in range(len(cube.pair_ctx)):
            c = int(cube.pair_ctx[r])
            if cube.ctx_profile[c] != p or cube.pair_private[r] < 1:
                continue
            leaks = bin(int(cube.pair_mask[r])).count("1")
            q[(int(cube.pair_attr[r]), c)] = (1 - leaks / n[c]) ** k
        attrs = {a for a, _ in q}
        ratios = []
        for subset in itertools.combinations(ctxs, T):
            elig = [a for a in attrs if any((a, c) in q for c in subset)]
            if elig:
                leak = [1 - np.prod([q.get((a, c), 1.0) for c in subset]) for a in elig]
                ratios.append(np.mean(leak))
        per_profile.append(np.mean(ratios))
    return np.mean(per_profile)


def test_expected_ratio_sampled_within_its_standard_error(tmp_path):
    rng = random.Random(7)
    path = write_jsonl(
        tmp_path / "r.jsonl", [random_profile(rng, f"P{i}", n_ctx=9, n_attr=6) for i in range(2)]
    )
    nine = cube_from_official(path)
    opts = MetricOptions(mode="definition")
    for T, k in [(3, 1), (4, 2), (6, 3)]:  # 84, 126 and 84 subsets; 60 random orders
        curve = growth(nine, opts, order="random", tasks=[T], trials=[k], draws=60, seed=3)
        assert curve.method == "expected-ratio:60:3"
        se = curve.stderr[0][0]
        truth = np.mean([r for _, _, r in brute(nine, T, k)])
        assert 0 < se < 0.05 and abs(curve.violation[0][0] - truth) <= 4 * se


def test_method_names_old_and_new(cube):
    opts = MetricOptions(mode="definition")
    old = growth(cube, opts, order="random", tasks=[2], trials=[1], method="montecarlo")
    new = growth(cube, opts, order="random", tasks=[2], trials=[1], method="expected-ratio")
    assert old.violation == new.violation and old.method == new.method
    with pytest.raises(ValueError, match="ratio-of-expectations"):
        growth(cube, opts, method="exact")
    with pytest.raises(ValueError, match="expected-ratio"):
        growth(cube, opts, method="nonsense")


@pytest.mark.parametrize("order", ["random", "fixed", "worst"])
@pytest.mark.parametrize("mode", ["official", "definition"])
def test_full_curve_ends_at_violation_at_n(mode, order):
    cube = cube_from_official(shared_file("results_sample.jsonl"))
    opts = MetricOptions(mode=mode)
    curve = growth(cube, opts, order=order, method="ratio-of-expectations")
    metric = compute(cube, opts).violation.mean
    assert curve.tasks[-1] == 49 and curve.trials[-1] == 3
    assert curve.violation[-1][-1] == pytest.approx(metric)
    v = np.array(curve.violation, dtype=float)
    assert np.all(np.diff(v, axis=1) >= -1e-12)  # more samples never lower it
    if order == "random":
        # on this data the random-order curve does not fall with T either (a fixed order can:
        # a task may add withheld attributes that it does not leak)
        assert np.all(np.diff(v, axis=0) >= -1e-12)
        bound = np.array(curve.union_bound, dtype=float)
        assert np.all(v <= bound + 1e-12)
    if order == "worst":
        fixed = np.array(growth(cube, opts, order="fixed").violation, dtype=float)
        assert np.all(v >= fixed - 1e-9)


def test_one_task_one_sample_is_mean_of_per_context_fractions(cube):
    opts = MetricOptions(mode="definition")
    curve = growth(cube, opts, order="random", tasks=[1], trials=[1])
    per_profile = []
    for p in range(cube.n_profiles):
        fractions = []
        for c in range(len(cube.ctx_profile)):
            if cube.ctx_profile[c] != p:
                continue
            rows = [
                r
                for r in range(len(cube.pair_ctx))
                if cube.pair_ctx[r] == c and cube.pair_private[r] >= 1
            ]
            if rows:
                fractions.append(np.mean([int(cube.pair_mask[r]) & 1 for r in rows]))
        per_profile.append(np.mean(fractions))
    assert curve.method == "expected-ratio"  # one task at a time: enumerated exactly
    assert curve.violation[0][0] == pytest.approx(np.mean(per_profile))


def test_theory_matches_observed_for_one_sample(cube):
    curve = growth(cube, MetricOptions(mode="definition"), order="fixed", trials=[1])
    # with one sample and one task, p = c/n of all n samples, not the first one: both are
    # estimates of the same rate; at T = all and k = n the theory is below a leak seen once
    assert all(0 <= row[0] <= 1 for row in curve.theory)


def test_attribute_view(cube):
    name = cube.profile_names[0]
    opts = MetricOptions(mode="definition")
    curve_keys = [k for k in cube.attr_key[:5] if k != "need"]
    view = attribute_view(cube, name, curve_keys[0], opts)
    assert len(view.p) == len(view.tasks) > 0
    assert all(0 <= x <= 1 for x in view.p)
    assert len(view.hazard_samples) == cube.n_trials
    with pytest.raises(LookupError):
        attribute_view(cube, name, "no_such_key", opts)


def test_cli_method_names(capsys):
    from cimem.cli.main import main

    results = str(shared_file("results_sample.jsonl"))
    with pytest.raises(SystemExit) as stop:
        main(["growth", "--results", results, "--method", "exact"])
    assert stop.value.code == 2
    assert "now 'ratio-of-expectations'" in capsys.readouterr().err
    assert main(["growth", "--results", results, "--tasks", "1,10,49", "--json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert doc["method"] == "expected-ratio:400:0" and doc["stderr"][0][0] == 0.0


def test_union_bound_without_t1_in_the_request(cube):
    opts = MetricOptions(mode="definition")
    full = growth(cube, opts, method="ratio-of-expectations")
    part = growth(cube, opts, tasks=[3, 5], method="ratio-of-expectations")
    assert part.union_bound[0] == pytest.approx(full.union_bound[2])
    assert part.union_bound[1] == pytest.approx(full.union_bound[4])
    # slices of the expected ratio agree with the whole grid where they meet (same orders)
    grid = growth(cube, opts, draws=3, seed=5)
    column = growth(cube, opts, trials=[2], draws=3, seed=5)
    row = growth(cube, opts, tasks=[3], draws=3, seed=5)
    assert [r[0] for r in column.violation] == pytest.approx([r[1] for r in grid.violation])
    assert row.violation[0] == pytest.approx(grid.violation[2])


def _greedy_reference(eligible: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The greedy worst order step by step, one problem at a time (the definition)."""
    n = eligible.shape[1]
    chosen: list[int] = []
    prod = np.ones(eligible.shape[0])
    seen = np.zeros(eligible.shape[0], bool)
    for _ in range(n):
        best, best_v = -1, -np.inf
        for r in range(n):
            if r in chosen:
                continue
            den = seen | eligible[:, r]
            v = (1.0 - prod[den] * q[den, r]).sum() / den.sum() if den.any() else -1.0
            if round(v, 6) > best_v:
                best, best_v = r, round(v, 6)
        chosen.append(best)
        prod = prod * q[:, best]
        seen |= eligible[:, best]
    return np.array(chosen)


def test_batched_greedy_orders_match_the_step_by_step_definition():
    from cimem.analysis.growth import greedy_worst_orders

    rng = np.random.default_rng(3)
    shapes = [(6, 5), (3, 8), (1, 1), (9, 4), (0, 3), (4, 0), (7, 7)]
    eligible = [rng.random(s) < 0.5 for s in shapes]
    # coarse q values make exact ties common: the first task of a tie must win
    qs = [rng.choice([0.25, 0.5, 1.0], size=s) for s in shapes]
    got = greedy_worst_orders(eligible, qs)
    for e, q, order in zip(eligible, qs, got):
        assert order.tolist() == _greedy_reference(e, q).tolist()
        assert sorted(order.tolist()) == list(range(e.shape[1]))
    assert greedy_worst_orders([], []) == []


def test_one_profile_gets_the_whole_budget_so_small_task_counts_are_exact(tmp_path):
    """A one-profile run of 23 tasks: C(23, 2) = 253 pairs fit its 400 orders, so T = 2 is the
    exact mean over every pair (the page once drew 32 orders there and read 0.6 points low)."""
    rng = random.Random(11)
    path = write_jsonl(tmp_path / "r.jsonl", [random_profile(rng, "P", n_ctx=23, n_attr=6)])
    one = cube_from_official(path)
    opts = MetricOptions(mode="definition")
    curve = growth(one, opts, order="random", tasks=[2, 3], trials=[1])
    truth = np.mean([r for _, _, r in brute(one, 2, 1)])
    assert curve.violation[0][0] == pytest.approx(truth, abs=1e-12)
    assert curve.stderr[0][0] == 0 and curve.stderr[1][0] > 0  # C(23, 3) = 1771 is sampled
    assert curve.method == "expected-ratio:400:0"


def test_the_budget_of_orders_is_shared_by_a_runs_profiles():
    from cimem.analysis.growth.random_order import ORDERS_PER_RUN, orders_per_profile

    assert [orders_per_profile(p) for p in (1, 2, 10, 60, 1000)] == [400, 400, 100, 32, 32]
    assert 10 * orders_per_profile(10) == ORDERS_PER_RUN
