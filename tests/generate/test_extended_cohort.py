"""The documented path for the extended profile set (docs/labels.md): label it with the three
personas, run a model on it with those labels, and compare it with a run of the original
profiles; the comparison says the two ran on different people, and label sensitivity reads the
new labels' personas. Against the scripted server, on two profiles of each set."""

from __future__ import annotations

import json

from llm_server import FakeLLM, Reply

from cimem.cli.main import main
from cimem.generate.labelling import PERSONAS

from conftest import shared_file

WITHHOLD = {"fundamentalist": 6, "pragmatic": 3, "unconcerned": 1}  # how many memories each hides


def labeller(body: dict, n: int) -> Reply:
    """Needs the first two memories; withholds the next few, more for a warier persona."""
    prompt = body["messages"][0]["content"]
    persona = next(p for p, text in PERSONAS.items() if text in prompt)
    block = prompt.split("MEMORIES:\n", 1)[1].split("\n\n", 1)[0]
    memories = [ln.strip() for ln in block.splitlines() if ln.strip()]
    memories = [m[2:] if m.startswith("- ") else m for m in memories]
    hidden = memories[2 : 2 + WITHHOLD[persona]]
    return Reply(json.dumps({"needed": memories[:2], "not_shared": hidden}))


def test_label_run_and_compare_the_extended_set(tmp_path, capsys):
    extended = shared_file("profiles_extended.json")
    original = shared_file("results_sample.jsonl")
    db = str(tmp_path / "lab.duckdb")
    pick = ["--profiles-limit", "2", "--contexts", "0,1"]
    with FakeLLM(labeller) as server:
        label = ["label", "--db", db, "--profiles", str(extended), *pick, "--samples", "2"]
        assert main([*label, "--model", "lab-m", "--base-url", server.base_url]) == 0
    assert "--labels-from 1" in capsys.readouterr().out
    with FakeLLM(lambda body, n: Reply("Dear recipient, thank you.")) as server:
        common = [*pick, "--trials", "2", "--model", "gen-m", "--base-url", server.base_url]
        assert (
            main(
                [
                    "run",
                    "--db",
                    db,
                    "--profiles",
                    str(extended),
                    "--labels-from",
                    "1",
                    *common,
                    "--offline-judge",
                ]
            )
            == 0
        )
        assert (
            main(["run", "--db", db, "--profiles", str(original), *common, "--offline-judge"]) == 0
        )
    capsys.readouterr()
    assert main(["labels", "sensitivity", "--db", db, "--run", "2", "--run", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "2 different sets of people" in doc["cohort_note"]
    runs = {r["run_id"] for r in doc["results"] if r["scheme"] == "unanimous@fundamentalist"}
    assert runs == {2, 3}  # the new labels carry their personas, as the official ones do
    by = {(r["scheme"], r["run_id"]): r for r in doc["results"]}
    # the warier persona withholds more: its own unanimity finds more private pairs
    assert (
        by[("unanimous@fundamentalist", 2)]["private"] > by[("unanimous@unconcerned", 2)]["private"]
    )
