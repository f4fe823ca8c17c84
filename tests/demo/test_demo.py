"""The embedded demo: deterministic, equal to what the generator makes, imports cleanly, and its
metrics follow the documented simulator behaviour."""

import hashlib
import random

import orjson
import pytest

import cimem.demo.simulate as demo
from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import MetricOptions, compute
from cimem.store import Store


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    demo.build_demo_database(path)
    with Store.open(path) as store:
        yield store


def test_generator_is_deterministic():
    a = demo.simulate(random.Random(1), demo.make_profiles(random.Random(7)), "erratic")
    b = demo.simulate(random.Random(1), demo.make_profiles(random.Random(7)), "erratic")
    assert orjson.dumps(a) == orjson.dumps(b)
    c = demo.simulate(random.Random(2), demo.make_profiles(random.Random(7)), "erratic")
    assert orjson.dumps(a) != orjson.dumps(c)


def test_committed_bundle_equals_a_fresh_build(tmp_path):
    manifest = demo.build_bundle(tmp_path / "fresh")
    committed = demo.default_bundle()
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((committed / name).read_bytes()).hexdigest() == digest, name
    assert (committed / "manifest.json").read_bytes() == (
        tmp_path / "fresh" / "manifest.json"
    ).read_bytes()


def test_profiles_are_synthetic_and_complete():
    profiles = orjson.loads((demo.default_bundle() / "profiles.json").read_bytes())
    assert len(profiles) >= 6
    for p in profiles:
        assert {"name", "sex", "address", "age"} <= set(p["bio"])
        n = len(p["information_attributes"])
        assert 60 <= n <= 150
        events = {a["event"] for a in p["information_attributes"].values()} - {"general"}
        assert len(events) == 3
        assert len(p["contexts"]) >= 20


def test_bundle_imports_as_simulated_runs(demo_db):
    runs = demo_db.list_runs()
    assert [r.name for r in runs] == [
        "demo: over-sharer (simulated)",
        "demo: cautious (simulated)",
        "demo: erratic (simulated)",
    ]
    assert all(r.simulated and r.n_trials == 5 and r.judges == 2 for r in runs)
    kinds = {j.kind for r in runs for j in demo_db.judges(r.run_id)}
    assert kinds == {"imported", "simulator"}


def metrics(store, run, k=None, judge=None):
    return compute(cube_from_store(store, run, judge), MetricOptions(mode="definition", k=k))


def test_metrics_follow_the_simulated_behaviour(demo_db):
    over, cautious, erratic = (r.run_id for r in demo_db.list_runs())
    v5 = {r: metrics(demo_db, r).violation.mean for r in (over, cautious, erratic)}
    c5 = {r: metrics(demo_db, r).completeness.mean for r in (over, cautious, erratic)}
    v1 = {r: metrics(demo_db, r, k=1).violation.mean for r in (over, cautious, erratic)}
    assert v5[over] > v5[cautious] and v5[erratic] > v5[cautious]
    assert c5[over] > c5[erratic] > c5[cautious]
    assert v5[cautious] < 0.25
    # the erratic assistant leaks different things per sample: its violation grows most with n
    assert v5[erratic] / v1[erratic] > 2 > v5[over] / v1[over]
    # ground truth as a judge: the same ordering
    gt = {
        r: [j.judge_id for j in demo_db.judges(r) if j.kind == "simulator"][0]
        for r in (over, cautious)
    }
    assert (
        metrics(demo_db, over, judge=gt[over]).violation.mean
        > metrics(demo_db, cautious, judge=gt[cautious]).violation.mean
    )


def test_figure1_worked_case_follows_the_definitions():
    from cimem.demo.teaching import FIGURE1, attribute_chances, simulate_mixed, worked_case

    def rows(revealed):
        return [
            {
                "attribute": a,
                "task": "advisor",
                "label": "needed" if a in FIGURE1["needed"] else "withheld",
                "R": [int(a in revealed)],
            }
            for a in FIGURE1["needed"] + FIGURE1["withheld"]
        ]

    paper = worked_case(rows(FIGURE1["revealed"]), 1)
    assert paper.violation == 1.0 and abs(paper.completeness - 2 / 3) < 1e-12
    flipped = worked_case(rows(["age", "income", "employment status"]), 1)
    assert flipped.violation == 0.0 and flipped.completeness == 1.0
    # two tasks, two samples: the maximum over both, the mean per task then over tasks
    two = worked_case(
        [
            {"attribute": "h", "task": "a", "label": "withheld", "R": [0, 0]},
            {"attribute": "h", "task": "b", "label": "withheld", "R": [0, 1]},
            {"attribute": "x", "task": "a", "label": "needed", "R": [1, 0]},
            {"attribute": "y", "task": "b", "label": "needed", "R": [1, 1]},
        ],
        2,
    )
    assert two.violation == 1.0 and two.completeness == (0.5 + 1.0) / 2
    assert (
        worked_case(
            two_rows := [{"attribute": "h", "task": "b", "label": "withheld", "R": [0, 1]}], 1
        ).violation
        == 0.0
    )
    assert two_rows  # Violation@1 sees only the first sample
    # equal chances: the formula with one p matches; uneven ones: it over-states the worst case
    same = simulate_mixed(attribute_chances(0.05, 0.0, 0.0, 2000, seed=2), 10, 5, seed=3)
    assert abs(same.observed[-1] - same.one_p[-1]) < 0.03
    uneven = simulate_mixed(attribute_chances(0.05, 0.9, 0.0, 2000, seed=2), 10, 5, seed=3)
    assert uneven.one_p[-1] - uneven.observed[-1] > 0.1
    assert abs(uneven.own_p[-1] - uneven.observed[-1]) < 0.03
