"""``audit-plan``: the draws a margin needs, before and after an audit."""

from __future__ import annotations

import json
import shutil

from cimem.cli.main import main

from fixtures import fill_sample_with_truth


def plan(db, capsys, *extra: str) -> dict:
    capsys.readouterr()
    assert main(["audit-plan", "--db", str(db), "--run", "1", "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_plan_shrinks_as_people_decide_and_grows_with_precision(demo_db, tmp_path, capsys):
    db = tmp_path / "plan.duckdb"
    shutil.copy(demo_db, db)
    before = plan(db, capsys)
    strata = {(s["metric"], s["judge_yes"]) for s in before["strata"]}
    # Violation's "judge no" needs no reading: units the judge never saw count 0
    assert strata == {("violation", True), ("completeness", True), ("completeness", False)}
    assert all(s["decided"] == 0 and s["more_draws"] > 0 for s in before["strata"])
    tighter = plan(db, capsys, "--margin", "1.5")
    for wide, tight in zip(before["strata"], tighter["strata"]):
        assert 3 < tight["needed"] / wide["needed"] < 5  # half the margin: about 4x the draws

    sample = tmp_path / "s.csv"
    assert main(["audit-sample", "--db", str(db), "--run", "1", "--out", str(sample)]) == 0
    fill_sample_with_truth(db, sample)
    assert main(["human", "import", str(sample), "--db", str(db), "--run", "1"]) == 0
    after = plan(db, capsys)
    assert all(s["decided"] > 0 for s in after["strata"])
    assert sum(s["more_cells"] for s in after["strata"]) < sum(
        s["more_cells"] for s in before["strata"]
    )
    assert main(["audit-plan", "--db", str(db), "--run", "1"]) == 0
    text = capsys.readouterr().out
    assert "+/- 3 points" in text and "more cells: `cimem audit-sample --run 1" in text
    assert "--undecided --size" in text
