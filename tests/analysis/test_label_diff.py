"""Two runs' labels compared on the contexts they share."""

from __future__ import annotations

import json
import shutil

from cimem.analysis.cube import cube_from_store
from cimem.analysis.label_diff import label_diff
from cimem.analysis.labels import LabelRule
from cimem.cli.main import main
from cimem.ingest import ingest_file
from cimem.store import Store

from conftest import shared_file

RULE = LabelRule.parse("unanimous")


def test_a_changed_label_is_found_and_named(demo_db, tmp_path, capsys):
    db = tmp_path / "labels.duckdb"
    shutil.copy(demo_db, db)
    with Store.open(db) as store:
        same = label_diff(cube_from_store(store, 1), cube_from_store(store, 2), RULE)
        assert same.agree and same.shared_contexts > 0 and same.compared > 0
        # run 2 now calls one needed pair private, for every persona
        ctx, attr = store.con.execute(
            "SELECT ctx_idx, attr_id FROM persona_labels WHERE run_id = 2 AND necessary = 1"
            " ORDER BY profile_id, ctx_idx, attr_id LIMIT 1"
        ).fetchone()
        store.con.execute(
            "UPDATE persona_labels SET necessary = 0, private = 1 WHERE run_id = 2"
            " AND ctx_idx = ? AND attr_id = ?",
            [ctx, attr],
        )
    with Store.open(db, read_only=True) as store:
        diff = label_diff(cube_from_store(store, 1), cube_from_store(store, 2), RULE)
    assert diff.changes == {"share -> private": 1} and diff.same == diff.compared - 1
    (example,) = diff.examples
    assert example[-2:] == ("share", "private")
    capsys.readouterr()
    assert main(["labels", "diff", "--db", str(db), "--run", "1", "--run", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["changes"] == {"share -> private": 1} and doc["examples"][0]["b"] == "private"
    assert main(["labels", "diff", "--db", str(db), "--run", "1", "--run", "2"]) == 0
    assert "share -> private: 1" in capsys.readouterr().out


def test_the_release_and_the_run_output_label_alike_whatever_the_case(tmp_path, capsys):
    """The Hugging Face rows write "bank loan officer" where the run output writes "Bank Loan
    Officer": the same contexts, and the same labels."""
    db = tmp_path / "real.duckdb"
    with Store.open(db) as store:
        ingest_file(store, shared_file("results_sample.jsonl"))
        ingest_file(store, shared_file("hf_rows_sample.parquet"))
        diff = label_diff(cube_from_store(store, 1), cube_from_store(store, 2), RULE)
    assert diff.shared_contexts == 98 and diff.agree and diff.compared > 10_000
    capsys.readouterr()
    assert main(["labels", "diff", "--db", str(db), "--run", "1", "--run", "2"]) == 0
    assert "the labels agree on every shared pair" in capsys.readouterr().out
    assert main(["labels", "diff", "--db", str(db), "--run", "1"]) != 0  # two runs needed
