"""A run of one profile has no interval: the command line says "- (1 profile)" as the
Overview page does, and its JSON gives ``ci95: null`` with the reason."""

import json
import re

from cimem.cli.main import main
from cimem.ingest import ingest_file
from cimem.store import Store

from conftest import shared_file

SUMMARIES = ("violation", "violation_unbiased", "completeness", "leak_rate")


def test_one_profile_run_has_no_interval_in_text_or_json(tmp_path, capsys):
    source = shared_file("persistbench_llama33_jeffery_day.json")
    db = tmp_path / "pb.duckdb"
    with Store.open(db) as store:
        ingest_file(store, source)
    assert main(["metrics", "--db", str(db)]) == 0
    text = capsys.readouterr().out
    assert text.count("- (1 profile)") == 4
    assert "1 profiles" not in text and "first 1 trial)" in text  # counts said in the singular
    assert not re.search(r"\[\d+\.\d+, \d+\.\d+\]", text)  # no zero-width interval
    assert main(["metrics", "--db", str(db), "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    for name in SUMMARIES:
        assert run[name]["n_profiles"] == 1
        assert run[name]["ci95"] is None
        assert run[name]["ci95_reason"] == "1 profile"
