"""docs/cli.md's tour, typed as documented at full size: the fabricated 10-profile x 5-trial run
output imported with the benchmark's profiles, its numbers both ways, re-judged by an LLM (the
tests' scripted server standing for vLLM) and offline, two judges compared; a model evaluated end
to end on the 10 official profiles (2,450 generations and as many judge calls), priced first and
resumed; and labels made by three personas, then used by a run. Each step's outcome is checked."""

from __future__ import annotations

import json
import shutil
import signal
import time

import pytest
from llm_server import FakeLLM
from llm_world import World
from typed import Typed, block

from cimem.store import Store

from conftest import shared_file

COMMANDS = block("docs/cli.md", "## A tour")


def _step(fragment: str) -> int:
    """The position of the documented command holding ``fragment`` (the first)."""
    return next(i for i, c in enumerate(COMMANDS) if fragment in c)


@pytest.fixture(scope="module")
def toured(full_run, tmp_path_factory):
    """The whole tour, typed once against the scripted server: the shell and what each
    command printed."""
    profiles = json.loads(shared_file("profiles.json").read_text())
    work = tmp_path_factory.mktemp("tour") / "work"
    work.mkdir()
    shutil.copyfile(full_run.judged, work / "results.jsonl")
    (work / "my_profiles.json").write_text(json.dumps(profiles[:2]))
    world = World()
    with FakeLLM(world) as server:
        server.keep_log = False
        shell = Typed(work, endpoint=server.base_url)
        made = _step("--judge-model deepseek-r1")
        said = shell.run_all(COMMANDS[:made])
        said.append(_killed_halfway(shell, COMMANDS[made], world))
        before = world.ok_generations
        said += shell.run_all(COMMANDS[made + 1 :])
        shell.env["generations"] = f"{before} then {world.ok_generations}"
    return shell, said


def _killed_halfway(shell: Typed, command: str, world: World) -> str:
    """The documented run, killed with SIGKILL once 1,000 of its 2,450 generations have
    answered (the later ones hang): the crash the next command, `--resume 3`, recovers from."""
    world.hold_after = 1000
    proc = shell.start(command)
    deadline = time.monotonic() + 600
    while world.ok_generations < 1000 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.0)  # a part's judging and storing under way, as a crash would find it
    shell.stop(proc, signal.SIGKILL)
    world.hold_after = None
    assert world.ok_generations == 1000, "the run ended before it could be killed"
    return ""


def test_imports_are_runs_one_and_two(toured):
    shell, said = toured
    assert "run 1 (llama-3.3 level 1)" in said[_step("ingest results.jsonl")]
    assert "10 profiles, 2,450 messages" in said[_step("ingest results.jsonl")]
    listed = said[_step("python -m cimem runs")]
    assert "llama-3.3-70b" in listed and "profiles" in listed.splitlines()[2]


def test_the_file_and_the_database_give_the_same_numbers(toured):
    shell, said = toured
    both = said[_step("--mode both")]
    assert "mode official" in both and "mode definition" in both
    from_file = json.loads(said[_step("--results results.jsonl --json")])["runs"][0]
    stored = json.loads(shell.run("python -m cimem metrics --db my.duckdb --run 1 --json"))
    stored_run = stored["runs"][0]
    for metric in ("violation", "completeness"):
        assert from_file[metric]["mean"] == pytest.approx(stored_run[metric]["mean"], abs=1e-12)


def test_two_new_judges_judge_every_message_and_are_compared(toured):
    shell, said = toured
    with Store.open(shell.cwd / "my.duckdb", read_only=True) as store:
        judges = store.judges(1)
        coverage = {c.judge_id: (c.judged, c.total) for c in store.judge_coverage(1)}
    assert [str(j.kind) for j in judges] == ["imported", "llm", "offline"]
    assert judges[1].model == "deepseek-r1"
    assert all(coverage[j.judge_id] == (2450, 2450) for j in judges)
    compared = said[_step("agreement --db my.duckdb --run 1 --judges 1,2")]
    assert "kappa" in compared.lower()


def test_a_model_evaluated_end_to_end_priced_first_and_resumed(toured):
    shell, said = toured
    priced = said[_step("--dry-run")]
    assert "would send 2450 calls" in priced and "estimated cost: $" in priced
    with Store.open(shell.cwd / "my.duckdb", read_only=True) as store:
        run = store.run_config(3)
        messages = store.messages_to_judge(3)
        (llm_judge,) = [j for j in store.judges(3) if str(j.kind) == "llm"]
        coverage = {c.judge_id: c.judged for c in store.judge_coverage(3)}
    assert run["model"] == "llama-3.3-70b" and len(messages) == 2450
    assert coverage[llm_judge.judge_id] == 2450
    resumed = next(err for cmd, _, _, err in shell.log if cmd.endswith("--resume 3"))
    assert "resuming run 3: 1450 generation calls to make again" in resumed
    assert "made 1450 calls" in said[_step("--resume 3")]
    # no generation paid twice across the kill: 1,000 before it, 1,450 after, the documented
    # run (2,450 generations) and the labelled run (2 profiles x 49 x 5) in all
    assert shell.env["generations"] == f"1000 then {1000 + 1450 + 490}"
    assert "made 0 calls" in said[_step("--resume 3 --retry-failed")]


def test_labels_made_by_personas_serve_a_run(toured):
    shell, said = toured
    with Store.open(shell.cwd / "my.duckdb", read_only=True) as store:
        assert store.run_config(4)["kind"] == "labels"
        personas = {r.persona for r in store.persona_labels_of(4, 0)}
        labelled = store.labels_of_run(5)
    assert {"combined"} < personas and len(personas) == 4
    assert labelled, "the run made with --labels-from 4 has no labels"
    doc = json.loads(shell.run("python -m cimem metrics --db my.duckdb --run 5 --json"))
    assert doc["runs"][0]["violation"]["mean"] is not None
