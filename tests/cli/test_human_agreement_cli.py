"""Two reviewers through the command line: their verdicts imported by CSV with the reviewer
column, their agreement, the queue of what they disagree on, an adjudication, and the export
that keeps all of it."""

from __future__ import annotations

import csv
import json
import shutil

from cimem.cli.main import main
from cimem.store import Store


def run(capsys, *args: str) -> str:
    capsys.readouterr()
    assert main(list(args)) == 0
    return capsys.readouterr().out


def test_two_reviewers_disagree_then_an_adjudication_settles_it(demo_db, tmp_path, capsys):
    db = tmp_path / "two.duckdb"
    shutil.copy(demo_db, db)
    sample = tmp_path / "s.csv"
    run(capsys, "audit-sample", "--db", str(db), "--run", "1", "--size", "20", "--out", str(sample))
    rows = list(csv.DictReader(sample.open()))
    for who, flip in (("ana", False), ("ben", True)):
        filled = tmp_path / f"{who}.csv"
        with filled.open("w", newline="") as f:
            w = csv.DictWriter(f, rows[0].keys())
            w.writeheader()
            for i, r in enumerate(rows):  # ben reads the first two cells the other way
                said = (i % 3 == 0) != (flip and i < 2)
                w.writerow(r | {"revealed": "yes" if said else "no", "reviewer": who})
        run(capsys, "human", "import", str(filled), "--db", str(db), "--run", "1")
    doc = json.loads(run(capsys, "human", "agreement", "--db", str(db), "--run", "1", "--json"))
    (pair,) = doc["pairs"]
    assert (pair["a"], pair["b"], pair["cells"], pair["agree"]) == (
        "ana",
        "ben",
        len(rows),
        len(rows) - 2,
    )
    assert len(doc["disagreements"]) == 2 and doc["adjudicated"] == 0
    text = run(capsys, "human", "agreement", "--db", str(db), "--run", "1")
    assert (
        "Cohen's kappa" in text
        and "Krippendorff's alpha" in text
        and "2 cells to adjudicate" in text
    )
    queue = json.loads(
        run(
            capsys,
            "audit-queue",
            "--db",
            str(db),
            "--run",
            "1",
            "--filter",
            "people_disagree",
            "--json",
        )
    )
    disputed = {(int(r["message_id"]), r["attribute"]) for r in rows[:2]}
    assert {(i["message_id"], a) for i in queue["items"] for a in i["attributes"]} == disputed
    with Store.open(db, read_only=True) as store:
        settled = store.settled_human_verdicts(store.find_human_judge(1))
    assert not {(int(r["message_id"]), int(r["attr_id"])) for r in rows[:2]} & set(settled)
    # an adjudication by a third person settles the first cell
    adj = tmp_path / "adj.csv"
    with adj.open("w", newline="") as f:
        w = csv.DictWriter(f, ["message_id", "attr_id", "revealed", "reviewer", "adjudication"])
        w.writeheader()
        w.writerow(
            {
                "message_id": rows[0]["message_id"],
                "attr_id": rows[0]["attr_id"],
                "revealed": "yes",
                "reviewer": "cy",
                "adjudication": "yes",
            }
        )
    run(capsys, "human", "import", str(adj), "--db", str(db), "--run", "1")
    doc = json.loads(run(capsys, "human", "agreement", "--db", str(db), "--run", "1", "--json"))
    assert len(doc["disagreements"]) == 1 and doc["adjudicated"] == 1
    # the export keeps every reviewer and the adjudication, and reads back the same
    out = tmp_path / "all.csv"
    run(capsys, "human", "export", "--db", str(db), "--run", "1", "--out", str(out))
    exported = list(csv.DictReader(out.open()))
    assert {r["reviewer"] for r in exported} == {"ana", "ben", "cy"}
    assert [r["adjudication"] for r in exported].count("yes") == 1
    again = tmp_path / "again.duckdb"
    shutil.copy(demo_db, again)
    run(capsys, "human", "import", str(out), "--db", str(again), "--run", "1")
    with Store.open(db, read_only=True) as a, Store.open(again, read_only=True) as b:
        assert a.settled_human_verdicts(a.find_human_judge(1)) == b.settled_human_verdicts(
            b.find_human_judge(1)
        )
