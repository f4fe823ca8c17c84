"""``labels template | import | export | agreement | sensitivity`` end to end on the demo and on
the real run files (one run with one profile and one trial among them)."""

from __future__ import annotations

import csv
import json
import shutil

import pytest

from cimem.cli.main import main
from cimem.ingest import ingest_file
from cimem.store import Store

from conftest import shared_file


def filled(path, labels, reviewer):
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    for row, label in zip(rows, labels):
        row["label"], row["reviewer"] = label, reviewer
    out = path.with_name(f"{reviewer}.csv")
    with out.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, rows[0].keys())
        writer.writeheader()
        writer.writerows(rows)
    return out


def test_people_label_a_sheet_and_the_numbers_follow(demo_db, tmp_path, capsys):
    db = tmp_path / "lab.duckdb"
    shutil.copy(demo_db, db)
    sheet = tmp_path / "sheet.csv"
    assert (
        main(
            [
                "labels",
                "template",
                "--db",
                str(db),
                "--run",
                "2",
                "--contexts",
                "3",
                "--out",
                str(sheet),
            ]
        )
        == 0
    )
    n = len(list(csv.DictReader(sheet.open())))
    assert f"wrote {n} pairs of run 2" in capsys.readouterr().out
    ana = filled(sheet, ["withhold"] * n, "ana")
    ben = filled(sheet, ["withhold"] * (n - 1) + ["share"], "ben")
    for path in (ana, ben):
        assert main(["labels", "import", "--db", str(db), str(path)]) == 0
    assert f"recorded {n} people's labels" in capsys.readouterr().out
    assert main(["labels", "agreement", "--db", str(db), "--run", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["labelled"] == n and doc["disputed"] == 1
    assert doc["by_label"] == {"withhold": n - 1}
    assert [s["source"] for s in doc["sources"]] == [
        "combined",
        "fundamentalist",
        "pragmatic",
        "unconcerned",
    ]
    assert main(["labels", "sensitivity", "--db", str(db), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    names = [s["name"] for s in doc["schemes"]]
    assert names[0] == "unanimous" and {"people", "unanimous@reviewed"} <= set(names)
    people = [r for r in doc["results"] if r["scheme"] == "people"]
    assert len(people) == 3 and all(r["share"] == 0 for r in people)  # nobody said share
    assert main(["labels", "sensitivity", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert "Kendall's tau-b" in text and "per domain" in text
    out = tmp_path / "export.csv"
    assert main(["labels", "export", "--db", str(db), "--out", str(out), "--history"]) == 0
    assert len(list(csv.DictReader(out.open()))) == 2 * n


def test_a_bad_sheet_stops_with_one_line_and_nothing_written(demo_db, tmp_path, capsys):
    db = tmp_path / "lab.duckdb"
    shutil.copy(demo_db, db)
    bad = tmp_path / "bad.csv"
    bad.write_text("profile,recipient,task,attribute,label,reviewer\nNobody,A,B,c,share,ana\n")
    assert main(["labels", "import", "--db", str(db), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.csv: line 2: no stored run has profile 'Nobody'" in err
    assert "Traceback" not in err
    with Store.open(db, read_only=True) as store:
        assert store.people_labels() == []
    assert main(["labels", "import", "--db", str(db), str(tmp_path / "missing.csv")]) == 2
    assert "missing.csv: no such file" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["results_sample.jsonl", "persistbench_llama33_jeffery_day.json"])
def test_sensitivity_and_a_sheet_of_each_real_file(tmp_path, capsys, name):
    db = tmp_path / "real.duckdb"
    with Store.open(db) as store:
        ingest_file(store, shared_file(name))
    assert main(["labels", "sensitivity", "--db", str(db), "--n", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["n"] == 1 and doc["results"] and doc["results"][0]["scheme"] == "unanimous"
    sheet = tmp_path / "s.csv"
    assert (
        main(
            [
                "labels",
                "template",
                "--db",
                str(db),
                "--run",
                "1",
                "--pairs",
                "5",
                "--out",
                str(sheet),
            ]
        )
        == 0
    )
    assert len(list(csv.DictReader(sheet.open()))) == 5
