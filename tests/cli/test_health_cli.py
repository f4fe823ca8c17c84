"""``cimem health``: counts per flag with example message ids and the metrics with and without the
flagged messages, as text and as the JSON contract, on the demo and on the shared real files."""

import json

import pytest

from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import compute
from cimem.cli.main import main
from cimem.ingest import ingest_file
from cimem.store import Store

from conftest import shared_file

FLAGS = ["failed", "empty", "refusal", "placeholder", "reasoning_left", "truncated", "duplicate"]


def health(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["health", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_health_on_the_demo_in_text_and_json(demo_db, capsys):
    code, text, _ = health(capsys, "--db", demo_db, "--run", "2")
    assert code == 0
    assert "SIMULATED" in text and "660 full-memory messages, 9 flagged (1.4%)" in text
    row = next(line.split() for line in text.splitlines() if line.startswith("duplicate "))
    assert row[:2] == ["duplicate", "9"] and row[-5:] == ["704,", "723,", "725,", "728,", "948"]
    assert "Violation@5 (official)" in text and "without flagged" in text
    code, out, _ = health(capsys, "--db", demo_db, "--run", "2", "--json", "--mode", "both")
    doc = json.loads(out)
    assert code == 0 and list(doc["flags"]) == FLAGS and doc["drop"] == FLAGS
    assert doc["flags"]["duplicate"]["messages"] == 9 == doc["flagged"] == doc["dropped_samples"]
    assert doc["flags"]["duplicate"]["examples"] == [704, 723, 725, 728, 948]
    assert doc["finish_reasons"] == {"unknown": 660} and doc["simulated"] is True
    official, definition = doc["metrics"]
    assert (official["mode"], definition["mode"]) == ("official", "definition")
    with Store.open(demo_db, read_only=True) as store:  # "all" is what `metrics` says
        want = compute(cube_from_store(store, 2))
    assert official["violation"]["all"] == want.violation.mean
    assert official["completeness"]["all"] == want.completeness.mean
    assert official["completeness"]["clean"] < official["completeness"]["all"]
    assert official["profiles"] == {"all": 6, "clean": 6}


def test_health_asks_for_a_run_and_names_unknown_flags(demo_db, capsys):
    code, _, err = health(capsys, "--db", demo_db)
    assert code == 2 and "3 runs with messages; choose one with --run" in err
    code, _, err = health(capsys, "--db", demo_db, "--run", "1", "--drop", "refusal,rude")
    assert code == 2 and "--drop rude: unknown flag" in err
    code, out, _ = health(capsys, "--db", demo_db, "--run", "1", "--drop", "refusal", "--json")
    assert code == 0 and json.loads(out)["drop"] == ["refusal"]
    assert json.loads(out)["flagged"] == 0  # the demo's repeats are not dropped here


@pytest.fixture
def real_db(tmp_path):
    db = tmp_path / "real.duckdb"
    with Store.open(db) as store:
        ingest_file(store, shared_file("results_sample.jsonl"))
        ingest_file(store, shared_file("persistbench_llama33_jeffery_day.json"))
    return str(db)


def test_health_on_the_real_persistbench_messages(real_db, capsys):
    code, out, _ = health(capsys, "--db", real_db, "--run", "2", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["messages"] == 49 and doc["finish_reasons"] == {"unknown": 49}
    counts = {k: v["messages"] for k, v in doc["flags"].items()}
    # Llama-3.3 left five "[... Name]" slots; no refusal, none cut off, no repeat
    assert counts == dict.fromkeys(FLAGS, 0) | {"placeholder": 5}
    assert doc["flags"]["placeholder"]["examples"] == [297, 299, 303, 306, 318]
    side = doc["metrics"][0]
    assert side["violation"]["all"] == pytest.approx(0.19424, abs=1e-4)
    assert side["completeness"]["clean"] > side["completeness"]["all"]
    code, text, _ = health(capsys, "--db", real_db, "--run", "2")
    assert code == 0 and "49 full-memory messages, 5 flagged (10.2%)" in text
    assert "297, 299, 303, 306, 318" in text


def test_health_on_the_sample_results_whose_messages_are_stand_ins(real_db, capsys):
    # results_sample.jsonl holds "[synthetic message, trial T]" for every message: no letter
    code, out, _ = health(capsys, "--db", real_db, "--run", "1", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["messages"] == doc["flagged"] == 294
    assert doc["flags"]["placeholder"]["messages"] == 294
    side = doc["metrics"][0]
    assert side["violation"]["all"] > 0 and side["violation"]["clean"] is None  # not sampled
    assert side["profiles"] == {"all": 2, "clean": 0}
    code, text, _ = health(capsys, "--db", real_db, "--run", "1")
    assert code == 0 and "n/a" in text
