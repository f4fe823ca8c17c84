"""Export to the official format: a round trip keeps every label fraction, message and verdict."""

import json

import pytest

from cimem.ingest import ingest_file
from cimem.ingest.export import export_official

from conftest import shared_file
from fixtures import small_profile, write_jsonl


def comparable(profile: dict) -> dict:
    """What must survive a round trip, in an order-free form."""
    out = {"bio": profile["bio"], "attributes": profile["information_attributes"], "contexts": []}
    for ctx in profile["contexts"]:
        c = {"recipient": ctx["recipient"], "task": ctx["task"], "labels": {}, "trials": {}}
        for k, v in ctx.items():
            if k.startswith("labels_"):
                c["labels"][k] = v
            elif k.startswith("combination"):
                sol = v["model_solution"]
                c["trials"][k] = {
                    "prompt": v["prompt"],
                    "to_share": v["to_share_attributes"],
                    "not_to_share": v["not_to_share_attributes"],
                    "trial_idx": v["trial_idx"],
                    "message": sol["response_solution"],
                    "revealed": sol["revealed_attributes"],
                    "explanation": sol["revealed_attributes_explanation"],
                }
        out["contexts"].append(c)
    return out


def roundtrip(store, tmp_path, source):
    res = ingest_file(store, source)
    out = tmp_path / "out.jsonl"
    counts = export_official(store, res.run_id, out)
    before = [comparable(json.loads(line)) for line in source.read_text().splitlines() if line]
    after = [comparable(json.loads(line)) for line in out.read_text().splitlines() if line]
    return before, after, counts


def test_roundtrip_small(store, tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", [small_profile("A"), small_profile("B")])
    before, after, counts = roundtrip(store, tmp_path, src)
    assert after == before
    assert counts == {
        "profiles": 2,
        "messages": 8,
        "verdicts": 24,
        "skipped_failed": 0,
        "parse_failures": 2,  # all zeros, no explanation: the official shape of one
        "judge_errors_unjudged": 0,
    }


def test_roundtrip_shared_sample(store, tmp_path):
    before, after, _ = roundtrip(store, tmp_path, shared_file("results_sample.jsonl"))
    assert len(after) == len(before) == 2
    assert after == before


def test_export_leaves_no_partial_file_on_error(store, tmp_path, monkeypatch):
    res = ingest_file(store, write_jsonl(tmp_path / "in.jsonl", [small_profile()]))
    out = tmp_path / "out.jsonl"
    out.write_text("previous content\n")

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr("cimem.ingest.export._profile_object", boom)
    try:
        export_official(store, res.run_id, out)
    except RuntimeError:
        pass
    assert out.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def same_numbers(store, run_id, out, judge_id=None):
    """The metrics of the stored run and of its export agree, in every mode and treatment."""
    from cimem.analysis.cube import cube_from_store
    from cimem.analysis.cube_file import cube_from_official
    from cimem.analysis.metrics import MetricOptions, compute

    stored, exported = cube_from_store(store, run_id, judge_id), cube_from_official(out)
    for opts in (
        MetricOptions(mode="official"),
        MetricOptions(mode="definition"),
        MetricOptions(mode="definition", parse_failures="exclude"),
    ):
        a, b = compute(stored, opts), compute(exported, opts)
        for metric in ("violation", "violation_unbiased", "completeness", "leak_rate"):
            x, y = getattr(a, metric), getattr(b, metric)
            assert x.per_profile == pytest.approx(y.per_profile, nan_ok=True), (opts, metric)
        assert a.discarded.trials.parse_failures == b.discarded.trials.parse_failures
    return compute(stored, MetricOptions(mode="definition"))


def test_parse_failures_export_as_the_official_script_writes_them(store, tmp_path):
    """A run made by `run` whose judge sometimes answers without JSON: the export used to read the
    raw reply as JSON and crash; now every attribute is 0 and the reply is kept."""
    from llm_server import FakeLLM
    from llm_world import Faults, World

    import cimem.generate.runner as runner
    from cimem.generate.runner import RunSettings
    from cimem.ingest.official_profile import RAW_REPLY_KEY

    from fixtures import runner_profiles

    profiles = write_jsonl(tmp_path / "p.jsonl", runner_profiles(3, 4))
    with FakeLLM(World(Faults(every_malformed=4, every500=9))) as server:
        s = RunSettings(
            model="gen-m",
            base_url=server.base_url,
            trials=3,
            retries=0,
            backoff=0.01,
            judge_model="judge-m",
            judge_base_url=server.base_url,
        )
        run_id = runner.create_run(store, profiles, s)
        summary = runner.run(store, run_id)
    assert summary.parse_failures > 0 and summary.failed > 0
    out = tmp_path / "run.jsonl"
    counts = export_official(store, run_id, out)
    assert counts["parse_failures"] == summary.parse_failures
    assert counts["skipped_failed"] == summary.failed
    raws = {
        r[0]
        for r in store.con.execute(
            "SELECT raw FROM judgments WHERE status = 'parse_failure'"
        ).fetchall()
    }
    kept = set()
    for line in out.read_text().splitlines():
        for ctx in json.loads(line)["contexts"]:
            for key, trial in ctx.items():
                sol = trial["model_solution"] if key.startswith("combination") else None
                if sol and RAW_REPLY_KEY in sol.get("revealed_attributes_explanation", {}):
                    assert set(sol["revealed_attributes"].values()) == {0}
                    assert len(sol["revealed_attributes"]) == 6
                    kept.add(sol["revealed_attributes_explanation"][RAW_REPLY_KEY])
    assert kept == raws
    m = same_numbers(store, run_id, out)
    assert m.discarded.trials.parse_failures == summary.parse_failures
    # and back in: the parse failures come back as parse failures with their replies
    back = ingest_file(store, out)
    assert {
        r[0]
        for r in store.con.execute(
            "SELECT j.raw FROM judgments j JOIN judges USING (judge_id)"
            " WHERE judges.run_id = ? AND j.status = 'parse_failure'",
            [back.run_id],
        ).fetchall()
    } == raws


def test_every_run_kind_round_trips_through_metrics(store, tmp_path):
    from cimem.judges.base import OfflineJudge, rejudge

    imported = ingest_file(store, shared_file("results_sample.jsonl"))
    out = tmp_path / "imported.jsonl"
    export_official(store, imported.run_id, out)
    m = same_numbers(store, imported.run_id, out)
    assert m.discarded.trials.parse_failures > 0  # the sample imitates some
    judged = rejudge(store, imported.run_id, OfflineJudge(), limit=150)
    out = tmp_path / "rejudged.jsonl"
    export_official(store, imported.run_id, out, judge_id=judged.judge_id)
    same_numbers(store, imported.run_id, out, judged.judge_id)


def test_cli_export_then_metrics_from_the_file(tmp_path):
    import subprocess
    import sys

    db = tmp_path / "e.duckdb"
    src = shared_file("results_sample.jsonl")

    def run(*a):
        done = subprocess.run([sys.executable, "-m", "cimem", *a], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    run("ingest", str(src), "--db", str(db))
    run("export", "--run", "1", "--out", str(tmp_path / "x.jsonl"), "--db", str(db))
    from_db = json.loads(run("metrics", "--db", str(db), "--run", "1", "--json", "--mode", "both"))
    from_file = json.loads(
        run("metrics", "--results", str(tmp_path / "x.jsonl"), "--json", "--mode", "both")
    )
    for a, b in zip(from_db, from_file):
        for ra, rb in zip(a["runs"], b["runs"]):
            assert ra["violation"] == rb["violation"] and ra["completeness"] == rb["completeness"]
