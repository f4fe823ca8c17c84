"""docs/inspect.md typed as documented, at full size: the Inspect task over the fabricated
full-size run's 10 labelled profiles with n = 5 (2,450 generations and as many grader calls) against the tests' scripted
server standing for the lab's, its log folder imported, the metrics equal to the log's own, and
the run exported as an Inspect log that Inspect reads back."""

from __future__ import annotations

import json
import shutil

from inspect_ai.log import read_eval_log
from llm_server import FakeLLM
from llm_world import World
from typed import Typed, block

from conftest import shared_file

COMMANDS = block("docs/inspect.md", "## From `inspect eval` to the app")
RESCORED = block("docs/inspect.md", "## Another judge, with `inspect score`")
TRIAL = block("docs/inspect.md", "## Trying it with no model and no network")


def test_the_task_tried_with_no_model_and_no_network(full_run, tmp_path):
    """The documented first try, with every download made to fail: an empty tokenizer cache,
    a proxy that answers nothing, Hugging Face offline. No sample errors; the log imports as a
    run whose numbers are the log's own."""
    work = tmp_path / "work"
    work.mkdir()
    shutil.copyfile(full_run.judged, work / "results.jsonl")
    (tmp_path / "tokenizers").mkdir()
    dead = "http://127.0.0.1:9"
    shell = Typed(work)
    shell.env.update(
        TIKTOKEN_CACHE_DIR=str(tmp_path / "tokenizers"),
        HF_HUB_OFFLINE="1",
        http_proxy=dead,
        https_proxy=dead,
        HTTP_PROXY=dead,
        HTTPS_PROXY=dead,
        NO_PROXY="",
    )
    said = shell.run_all(TRIAL)
    [log_file] = sorted((work / "trial-logs").glob("*.eval"))
    log = read_eval_log(str(log_file))
    assert log.status == "success" and log.samples
    assert not [s for s in log.samples if s.error is not None]
    assert len(log.samples) == 2 * 2 * 49  # n = 2 samples of 49 tasks of 2 profiles
    assert not list((tmp_path / "tokenizers").iterdir())  # nothing was fetched to it
    own = {m.name: m.value for m in log.results.scores[0].metrics.values()}
    assert 0 < own["violation"] < 1 and 0 < own["completeness"] < 1
    assert "inspect, 2 profiles, 196 messages" in said[1]
    assert f"Violation@2  (first 2 trials)    {100 * own['violation']:.2f}" in said[2]


def test_inspect_guide_at_full_size(full_run, tmp_path):
    profiles = json.loads(shared_file("profiles.json").read_text())
    work = tmp_path / "work"
    work.mkdir()
    shutil.copyfile(full_run.judged, work / "results.jsonl")  # 10 profiles, labelled
    with FakeLLM(World()) as server:
        server.keep_log = False
        shell = Typed(work, endpoint=server.base_url)
        said = shell.run_all(COMMANDS)
        rescored = shell.run_all(RESCORED)
    contexts = sum(len(p["contexts"]) for p in profiles)
    assert server.count == 2 * 5 * contexts  # every generation and every grader call, once
    [log_file] = sorted((work / "logs").glob("*.eval"))
    log = read_eval_log(str(log_file))
    assert log.status == "success" and len(log.samples) == 5 * contexts
    assert "inspect, 10 profiles" in said[-3]
    [run] = json.loads(said[-2])["runs"]
    assert run["n_trials"] == 5 and run["violation"]["n_profiles"] == 10
    own = {m.name: m.value for m in log.results.scores[0].metrics.values()}
    assert own == {
        "violation": run["violation"]["mean"],
        "completeness": run["completeness"]["mean"],
    }
    assert 0 < own["violation"] < 1
    back = read_eval_log(str(work / "run1.eval"))
    assert len(back.samples) == 5 * contexts
    exported = {m.name: m.value for m in back.results.scores[0].metrics.values()}
    assert exported == own
    assert "adds 1 judge" in rescored[1]
    agreement = json.loads(rescored[2])
    assert (agreement["judge_a"], agreement["judge_b"]) == (1, 2)
    pairs = agreement["overall"]["n"]
    assert pairs > 10 * 5 * contexts  # the pairs of every message (tens of attributes each)
    assert 0 < agreement["overall"]["agreement"] < 1  # the LLM and the offline judge differ
