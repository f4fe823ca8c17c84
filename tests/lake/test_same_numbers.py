"""A lake and a file holding the same runs give the same answers: every command's ``--json`` on a
full-size run (10 profiles x 5 trials), its re-judging, people's verdicts and people's labels,
written the same way into a file and into a lake over PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from full_size import fill_sheet, truth_table
from lakes import cimem, differences

from conftest import shared_file

pytestmark = pytest.mark.slow

WRITES = [  # the same work into each database, one command after another
    "ingest {judged} --name judged",
    "ingest {results_sample}",
    "judge --run judged --offline --name offline",
    "audit-sample --run judged --judge 1 --size 40 --out {sample}",
]
READS = [  # every command that prints JSON
    "runs --json",
    "runs --leaderboard --json",
    "metrics --json",
    "metrics --run judged --judge 3 --json",
    "metrics --run judged --corrected-by 4 --json",
    "growth --run judged --json",
    "agreement --run judged --judges 1,3 --json",
    "health --run judged --json",
    "audit-plan --run judged --judge 1 --json",
    "human agreement --run judged --json",
    "labels sensitivity --json",
    "labels agreement --run results_sample --json",
]


def fill(db: str, work: Path, full_run) -> None:
    """The documented work, done into ``db``: imports, a judge, people's verdicts and labels."""
    names = {
        "judged": full_run.judged,
        "results_sample": shared_file("results_sample.jsonl"),
        "sample": work / "sample.csv",
    }
    for command in WRITES:
        cimem(db, command.format(**names), work)
    fill_sheet(work / "sample.csv", truth_table(full_run.truth), {"ana": work / "ana.csv"})
    cimem(db, f"human import {work / 'ana.csv'} --run judged", work)
    cimem(db, f"labels template --run results_sample --out {work / 'labels.csv'}", work)
    _label_sheet(work / "labels.csv")
    cimem(db, f"labels import {work / 'labels.csv'} --reviewer ana", work)


def _label_sheet(path: Path) -> None:
    """A person's labels: every third pair withheld, the rest shared."""
    lines = path.read_text(encoding="utf-8").splitlines()
    header = lines[0].split(",")
    at = header.index("label")
    out = [lines[0]]
    for i, line in enumerate(lines[1:]):
        cells = line.split(",")
        if len(cells) == len(header):
            cells[at] = "withhold" if i % 3 == 0 else "share"
        out.append(",".join(cells))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _comparable(text: str, db: str) -> object:
    """The JSON with the database's own name and the import times left out."""
    doc = json.loads(text.replace(db, "DB"))
    return _drop(doc, {"created_at", "date", "database", "seconds"})


def _drop(value: object, keys: set[str]) -> object:
    if isinstance(value, dict):
        return {k: _drop(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_drop(v, keys) for v in value]
    return value


def test_every_json_answer_is_the_same_on_a_file_and_a_lake(full_run, lake, tmp_path):
    file_db = str(tmp_path / "lab.duckdb")
    for db, work in ((file_db, tmp_path / "file"), (lake, tmp_path / "lake")):
        work.mkdir()
        fill(db, work, full_run)
    for command in READS:
        on_file = _comparable(cimem(file_db, command, tmp_path), file_db)
        on_lake = _comparable(cimem(lake, command, tmp_path), lake)
        assert on_file == on_lake, (command, list(differences(on_lake, on_file))[:10])
