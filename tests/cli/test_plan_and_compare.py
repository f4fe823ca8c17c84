"""docs/cli.md's `plan` and `metrics --compare`, typed as a user types them on two fabricated
full-size runs (10 profiles x 5 trials), and on the benchmark's real files: the numbers are the
library's, the interval the one Summary carries, and one and two profiles are handled."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from full_size import fabricate

from cimem.analysis.intervals import FEWEST_TO_TELL, share_interval

from conftest import REPO, shared_file


def cimem(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "cimem", *args], capture_output=True, text=True, env=env, cwd=REPO
    )


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("plan")
    db = folder / "my.duckdb"
    for seed, name in ((1, "A"), (2, "B")):
        run = fabricate(folder / f"{name}.jsonl", seed=seed)
        done = cimem("ingest", str(run), "--db", str(db), "--name", name)
        assert done.returncode == 0, done.stderr
    return db


def test_plan_as_documented(lab):
    done = cimem("plan", "--db", str(lab), "--run", "1", "--run", "2", "--difference", "5")
    assert done.returncode == 0, done.stderr
    assert "profiles for 5 pts (80% power)" in done.stdout and "Violation@n" in done.stdout
    doc = json.loads(cimem("plan", "--db", str(lab), "--run", "1", "--run", "2", "--json").stdout)
    metrics = json.loads(cimem("metrics", "--db", str(lab), "--json").stdout)["runs"]
    violation = doc["metrics"][0]
    a = metrics[0]["violation"]["per_profile"]
    b = metrics[1]["violation"]["per_profile"]
    d = np.array([b[p] - a[p] for p in a])
    assert violation["spread"] == pytest.approx(d.std(ddof=1))
    assert violation["profiles_for_difference"] >= FEWEST_TO_TELL
    assert doc["calls_per_profile"] == 2 * 49 * 5


def test_metrics_interval_is_the_share_interval_of_its_profiles(lab):
    run = json.loads(cimem("metrics", "--db", str(lab), "--run", "1", "--json").stdout)["runs"][0]
    for metric in ("violation", "completeness", "leak_rate"):
        s = run[metric]
        values = np.array(list(s["per_profile"].values()))
        assert s["ci95"] == pytest.approx(list(share_interval(values).bounds))
        assert s["ci95_kind"] == "two-sided"


def test_metrics_gives_both_estimands_and_says_why_one_is_missing(lab, tmp_path):
    run = json.loads(cimem("metrics", "--db", str(lab), "--run", "1", "--json").stdout)["runs"][0]
    lo, hi = run["completeness"]["ci95_these_people"]
    assert lo < run["completeness"]["mean"] < hi
    assert hi - lo < run["completeness"]["ci95"][1] - run["completeness"]["ci95"][0]
    assert run["violation"]["ci95_these_people"] is None
    assert "no replicate" in run["violation"]["these_people_reason"]
    one = fabricate(tmp_path / "one.jsonl", trials=1)
    single = json.loads(cimem("metrics", "--results", str(one), "--json").stdout)["runs"][0]
    assert single["completeness"]["ci95_these_people"] is None
    assert single["completeness"]["these_people_reason"].startswith("one trial")


def test_compare_as_documented(lab):
    done = cimem("metrics", "--db", str(lab), "--compare", "--json")
    assert done.returncode == 0, done.stderr
    comparisons = json.loads(done.stdout)["comparisons"]
    assert {c["metric"] for c in comparisons} == {"violation", "completeness"}
    for c in comparisons:
        assert c["p_holm"] >= c["p_value"] and c["method"].startswith("exact sign-flip")
        assert c["ci95"][0] <= c["difference"] <= c["ci95"][1]
    text = cimem("metrics", "--db", str(lab), "--compare").stdout
    assert "80% power to see" in text and "Holm" in text


def test_plan_on_the_benchmarks_real_files(tmp_path):
    """results_sample (2 profiles, 3 trials) and PersistBench (one profile, one trial)."""
    sample = shared_file("results_sample.jsonl")
    done = cimem("plan", "--results", str(sample), "--json")
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["trials"] == 3 and doc["metrics"][0]["pilot_profiles"] == 2
    db = tmp_path / "p.duckdb"
    persist = shared_file("persistbench_llama33_jeffery_day.json")
    assert cimem("ingest", str(persist), "--db", str(db)).returncode == 0
    one = cimem("plan", "--db", str(db), "--json")
    assert one.returncode == 0, one.stderr
    (violation, _) = json.loads(one.stdout)["metrics"]
    assert violation["pilot_profiles"] == 1 and violation["power_now"] is None


def test_growth_ends_on_the_metrics_number_and_interval(lab):
    """One number everywhere: at all tasks and samples (random order, all samples) Growth's
    observed point and its interval are Violation@n's."""
    curve = json.loads(cimem("growth", "--db", str(lab), "--run", "1", "--json").stdout)
    run = json.loads(cimem("metrics", "--db", str(lab), "--run", "1", "--json").stdout)["runs"][0]
    assert curve["violation"][-1][-1] == pytest.approx(run["violation"]["mean"])
    assert curve["violation_ci95"][-1][-1] == pytest.approx(run["violation"]["ci95"])
    text = cimem("growth", "--db", str(lab), "--run", "1").stdout
    lo, hi = run["violation"]["ci95"]
    assert f"95% interval [{100 * lo:.2f}, {100 * hi:.2f}]" in text
