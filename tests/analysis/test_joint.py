"""Joint outcomes on crafted messages: each of the four complete x clean cells, what a complete
message costs in privacy and what a clean one costs in utility, and a refusal counted as clean
but incomplete."""

import pytest

from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.joint import joint_outcomes
from cimem.analysis.metrics import MetricOptions

from fixtures import PRIVATE, SHARE, attribute, profile, write_jsonl

ATTRS = {
    "need": attribute("x", "general", "Need."),
    "also": attribute("z", "general", "Also needed."),
    "secret": attribute("y", "health", "Secret."),
}


def cube(tmp_path, trials):
    ctx = {
        "recipient": "R",
        "task": "T",
        "labels": {"need": SHARE, "also": SHARE, "secret": PRIVATE},
        "trials": [
            (rev, {k: "s" for k, v in rev.items() if v}, f"m{i}") for i, rev in enumerate(trials)
        ],
    }
    return cube_from_official(write_jsonl(tmp_path / "j.jsonl", [profile("P", ATTRS, [ctx])]))


@pytest.mark.parametrize("mode", ["official", "definition"])
def test_the_four_cells_and_the_conditional_shares(tmp_path, mode):
    c = cube(
        tmp_path,
        [
            {"need": 1, "also": 1, "secret": 0},  # complete, clean
            {"need": 1, "also": 1, "secret": 1},  # complete, leaky
            {"need": 1, "also": 0, "secret": 0},  # incomplete, clean
            {"need": 0, "also": 0, "secret": 1},  # incomplete, leaky
        ],
    )
    j = joint_outcomes(c, MetricOptions(mode=mode))
    assert j.messages == 4
    assert (j.complete_clean, j.complete_leaky, j.incomplete_clean, j.incomplete_leaky) == (
        0.25,
        0.25,
        0.25,
        0.25,
    )
    assert j.leak_among_complete == 0.5
    assert j.completeness_among_clean == pytest.approx(0.75)  # (2/2 + 1/2) / 2


def test_a_refusal_is_clean_and_incomplete(tmp_path):
    refusals = [{"need": 0, "also": 0, "secret": 0}] * 3  # all zeros: official counts them
    j = joint_outcomes(cube(tmp_path, refusals), MetricOptions(mode="official"))
    assert j.incomplete_clean == 1.0 and j.complete_clean == 0.0
    assert j.leak_among_complete is None and j.completeness_among_clean == 0.0


def test_the_first_k_samples_only(tmp_path):
    c = cube(tmp_path, [{"need": 1, "also": 1, "secret": 0}, {"need": 0, "also": 0, "secret": 1}])
    j = joint_outcomes(c, MetricOptions(mode="definition", k=1))
    assert j.messages == 1 and j.complete_clean == 1.0


def test_the_demo_shares_add_up(demo_db):
    from cimem.analysis.cube import cube_from_store
    from cimem.store import Store

    with Store.open(demo_db, read_only=True) as store:
        over, cautious = cube_from_store(store, 1), cube_from_store(store, 2)
    a, b = joint_outcomes(over, MetricOptions()), joint_outcomes(cautious, MetricOptions())
    for j in (a, b):
        cells = (j.complete_clean, j.complete_leaky, j.incomplete_clean, j.incomplete_leaky)
        assert sum(cells) == pytest.approx(1.0) and j.messages > 100
    assert a.leak_among_complete > b.leak_among_complete  # the over-sharer leaks more


def test_metrics_prints_them_and_gives_them_in_its_json(demo_db, capsys):
    import json

    from cimem.cli.main import main

    assert main(["metrics", "--db", demo_db, "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    j = run["joint"]
    cells = ("complete_clean", "complete_leaky", "incomplete_clean", "incomplete_leaky")
    assert sum(j[c] for c in cells) == pytest.approx(1.0) and j["messages"] > 100
    assert main(["metrics", "--db", demo_db, "--run", "1"]) == 0
    text = capsys.readouterr().out
    assert f"a complete message leaks in {100 * j['leak_among_complete']:.2f}%" in text
