"""The cimemories Inspect task end to end: run by Inspect against the tests' scripted
OpenAI-compatible server, its log read by `cimem ingest` into the same messages, verdicts and
metrics as `cimem run` on the same replies; the log's own metrics are cimem's; an exported run reads
back with Inspect and into the same numbers; other tasks' logs are refused."""

from __future__ import annotations

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai import score as inspect_score
from inspect_ai.dataset import Sample
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import match
from llm_server import FakeLLM, Reply
from llm_world import generation_reply, is_judge, judge_reply

import cimem.generate.runner as runner
from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import compute
from cimem.errors import CimemError, InputError
from cimem.generate.runner import RunSettings
from cimem.ingest import ingest_file, ingest_or_find
from cimem.inspect_eval.export_log import export_inspect
from cimem.inspect_eval.scoring import reveal
from cimem.inspect_eval.task import cimemories
from cimem.judges.base import OfflineJudge, rejudge
from cimem.store import Store
from cimem.store.rows import HumanVerdict

from fixtures import runner_profiles, write_jsonl

TRIALS = 3


def same_replies(body: dict, n: int) -> Reply:
    """Replies that depend on the prompt only, so two runners get the same ones."""
    if is_judge(body):
        return Reply(judge_reply(body))
    return Reply(generation_reply(body, 0))


@pytest.fixture
def profiles(tmp_path):
    return write_jsonl(tmp_path / "profiles.jsonl", runner_profiles(3, 4))


def run_inspect(profiles, server: FakeLLM, log_dir, monkeypatch, **task_args):
    monkeypatch.setenv("SCRIPTED_BASE_URL", server.base_url)
    monkeypatch.setenv("SCRIPTED_API_KEY", "test-key")

    def model(name: str):  # not memoized: Inspect would keep an earlier test's server
        return get_model(f"openai-api/scripted/{name}", memoize=False)

    [log] = inspect_eval(
        cimemories(profiles=str(profiles), n=TRIALS, judge="grader", **task_args),
        model=model("gen-m"),
        model_roles={"grader": model("judge-m")},
        log_dir=str(log_dir),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def cimem_run(store: Store, profiles, server: FakeLLM) -> int:
    """`cimem run` of the profiles, n = TRIALS, judged by the LLM judge, on the server."""
    settings = RunSettings(
        model="gen-m",
        base_url=server.base_url,
        trials=TRIALS,
        judge_model="judge-m",
        judge_base_url=server.base_url,
    )
    run_id = runner.create_run(store, profiles, settings)
    runner.run(store, run_id, api_key="test-key")
    return run_id


def numbers(store: Store, run_id: int):
    m = compute(cube_from_store(store, run_id))
    return m.violation.per_profile, m.completeness.per_profile, m.n_trials


def messages(store: Store, run_id: int) -> list[tuple]:
    return store.con.execute(
        "SELECT p.name, m.ctx_idx, m.trial, m.prompt, m.text, m.status FROM messages m"
        " JOIN profiles p USING (run_id, profile_id) WHERE m.run_id = ?"
        " ORDER BY p.name, m.ctx_idx, m.trial",
        [run_id],
    ).fetchall()


def verdicts(store: Store, run_id: int) -> list[tuple]:
    return store.con.execute(
        "SELECT p.name, m.ctx_idx, m.trial, a.key, v.revealed, v.evidence FROM verdicts v"
        " JOIN messages m USING (message_id) JOIN attributes a USING (attr_id)"
        " JOIN profiles p ON p.run_id = m.run_id AND p.profile_id = m.profile_id"
        " WHERE m.run_id = ? ORDER BY 1, 2, 3, 4",
        [run_id],
    ).fetchall()


def test_inspect_log_reads_into_the_numbers_of_cimem_run(store, profiles, tmp_path, monkeypatch):
    with FakeLLM(same_replies) as server:
        ours = cimem_run(store, profiles, server)
        cimem_prompts = sorted(r.body["messages"][0]["content"] for r in server.log)
        server.log.clear()
        log = run_inspect(profiles, server, tmp_path / "logs", monkeypatch)
        inspect_prompts = sorted(r.body["messages"][0]["content"] for r in server.log)
    assert inspect_prompts == cimem_prompts  # the same bytes, generation and judge
    theirs = ingest_file(store, log.location).run_id
    assert messages(store, theirs) == messages(store, ours)
    assert verdicts(store, theirs) == verdicts(store, ours)
    assert numbers(store, theirs) == numbers(store, ours)
    violation, completeness, n = numbers(store, ours)
    assert n == TRIALS and 0 < max(violation.values())  # the test can tell runs apart
    metrics = {m.name: m.value for m in log.results.scores[0].metrics.values()}
    run = compute(cube_from_store(store, ours))
    assert metrics == {"violation": run.violation.mean, "completeness": run.completeness.mean}
    provenance = store.run_config(theirs)
    assert provenance["model"] == "openai-api/scripted/gen-m"
    assert "test-key" not in str(provenance)
    assert "test-key" not in read_eval_log(log.location).model_dump_json()
    tokens = store.con.execute(
        "SELECT sum(prompt_tokens), sum(completion_tokens) FROM messages WHERE run_id = ?",
        [theirs],
    ).fetchone()
    assert tokens == (10 * 3 * 4 * TRIALS, 5 * 3 * 4 * TRIALS)  # the server's usage, per call


def test_exported_run_reads_back_in_inspect_and_into_the_same_numbers(store, profiles, tmp_path):
    with FakeLLM(same_replies) as server:
        run_id = cimem_run(store, profiles, server)
    first = store.con.execute(
        "SELECT m.message_id, a.attr_id, a.key, p.name, m.ctx_idx, m.trial FROM messages m"
        " JOIN attributes a USING (run_id, profile_id) JOIN profiles p USING (run_id, profile_id)"
        " WHERE m.run_id = ? ORDER BY m.message_id, a.attr_id LIMIT 1",
        [run_id],
    ).fetchone()
    people = store.get_or_create_human_judge(run_id)
    store.add_human_verdicts(
        people,
        [
            HumanVerdict(first[0], first[1], True, "ana", "says it outright"),
            HumanVerdict(first[0], first[1], False, "ben", None),
        ],
    )
    out = tmp_path / "run.eval"
    counts = export_inspect(store, run_id, out)
    log = read_eval_log(str(out))
    assert counts["samples"] == len(log.samples) == 3 * 4 * TRIALS
    assert {s.epoch for s in log.samples} == {1, 2, 3}
    [reviewed] = [s for s in log.samples if "people" in s.scores]
    assert (reviewed.metadata["profile"], reviewed.metadata["context"], reviewed.epoch - 1) == (
        first[3],
        first[4],
        first[5],
    )
    said = reviewed.scores["people"].metadata["people"]
    assert sorted((v["reviewer"], v["key"], v["revealed"]) for v in said) == [
        ("ana", first[2], True),
        ("ben", first[2], False),
    ]
    back = ingest_file(store, out).run_id
    assert numbers(store, back) == numbers(store, run_id)
    assert verdicts(store, back) == verdicts(store, run_id)
    judge = store.judges(back)[0]
    assert judge.model == "judge-m"


def mock_outputs(text: str, n: int) -> list[ModelOutput]:
    """Replies of Inspect's mockllm (with usage set: the default counts tokens with a
    tokenizer it downloads)."""
    out = []
    for _ in range(n):
        o = ModelOutput.from_content(model="mockllm/model", content=text)
        o.usage = ModelUsage(input_tokens=7, output_tokens=3, total_tokens=10)
        out.append(o)
    return out


def test_mockllm_offline_judge_and_a_log_of_another_task(store, profiles, tmp_path):
    statement = "I have asthma. I play chess on Sundays."
    model = get_model("mockllm/model", custom_outputs=mock_outputs(statement, 3 * 4 * 2))
    [log] = inspect_eval(
        cimemories(profiles=str(profiles), n=2), model=model, log_dir=str(tmp_path), display="none"
    )
    run_id = ingest_file(store, log.location).run_id
    revealed = {k for (_, _, _, k, r, _) in verdicts(store, run_id) if r}
    assert revealed == {"diagnosis", "hobby"}
    m = compute(cube_from_store(store, run_id))
    task_metrics = {k: v.value for k, v in log.results.scores[0].metrics.items()}
    assert task_metrics == {"violation": m.violation.mean, "completeness": m.completeness.mean}
    assert store.judges(run_id)[0].kind == "offline"

    other = Task(dataset=[Sample(input="2+2?", target="4")], scorer=match(), name="arith")
    [olog] = inspect_eval(
        other,
        model=get_model("mockllm/model", custom_outputs=mock_outputs("4", 1)),
        log_dir=str(tmp_path / "other"),
        display="none",
    )
    with pytest.raises(InputError, match="a log of the cimemories task"):
        ingest_file(store, olog.location)


def test_a_log_still_being_written_is_read_as_far_as_it_goes(store, profiles, tmp_path):
    model = get_model("mockllm/model", custom_outputs=mock_outputs("Hello.", 3 * 4))
    [log] = inspect_eval(
        cimemories(profiles=str(profiles), n=1), model=model, log_dir=str(tmp_path), display="none"
    )
    log.status = "started"
    log.samples = log.samples[:5]
    partial = tmp_path / "partial.eval"
    write_eval_log(log, str(partial))
    run_id = ingest_file(store, partial).run_id
    assert len(messages(store, run_id)) == 5
    provenance = store.run_config(run_id)["config"]
    assert (
        b'"still_being_written":true' in provenance.encode()
        if isinstance(provenance, str)
        else provenance
    )


def test_task_arguments_are_checked_before_any_call(profiles):
    with pytest.raises(Exception, match="profiles=PATH"):
        cimemories()
    with pytest.raises(Exception, match="offline or grader"):
        cimemories(profiles=str(profiles), judge="gpt")
    with pytest.raises(Exception, match="positions"):
        cimemories(profiles=str(profiles), contexts="a,b")


def test_inspect_finds_the_task_by_its_registered_name():
    """The package's entry point, which `inspect eval cimem/cimemories` loads (typed in
    tests/workflows/test_inspect_guide.py)."""
    from importlib.metadata import entry_points

    [ep] = [e for e in entry_points(group="inspect_ai") if e.name == "cimem"]
    assert ep.load().cimemories is cimemories


def judge_verdicts(store: Store, judge_id: int) -> list[tuple]:
    return store.con.execute(
        "SELECT p.name, m.ctx_idx, m.trial, a.key, v.revealed, v.evidence FROM verdicts v"
        " JOIN messages m USING (message_id) JOIN attributes a USING (attr_id)"
        " JOIN profiles p ON p.run_id = m.run_id AND p.profile_id = m.profile_id"
        " WHERE v.judge_id = ? ORDER BY 1, 2, 3, 4",
        [judge_id],
    ).fetchall()


def test_a_log_rescored_by_another_judge_adds_a_judge_to_its_run(
    store, profiles, tmp_path, monkeypatch
):
    """`inspect score --action append` with the offline judge: the rescored copy adds one
    judge to the run already imported (no second run), whose verdicts are cimem's offline
    judge's on the same messages; a log holding both scores imports with both judges."""
    with FakeLLM(same_replies) as server:
        log = run_inspect(profiles, server, tmp_path / "logs", monkeypatch)
    run_id = ingest_file(store, log.location).run_id
    rescored = inspect_score(
        read_eval_log(log.location), reveal(judge="offline"), action="append", display="none"
    )
    copy = tmp_path / "rescored.eval"
    write_eval_log(rescored, str(copy))
    again = ingest_or_find(store, copy)
    assert (again.run_id, again.created, again.judges_added) == (run_id, False, 1)
    assert len(store.list_runs()) == 1
    grader, offline = store.judges(run_id)
    assert (grader.kind, grader.model) == ("llm", "openai-api/scripted/judge-m")
    assert offline.kind == "offline"
    ours = rejudge(store, run_id, OfflineJudge()).judge_id
    assert judge_verdicts(store, offline.judge_id) == judge_verdicts(store, ours)
    assert judge_verdicts(store, offline.judge_id) != judge_verdicts(store, grader.judge_id)
    assert ingest_or_find(store, copy).judges_added == 0  # nothing new the second time

    with Store.open(tmp_path / "fresh.duckdb") as fresh:
        both = ingest_file(fresh, copy).run_id
        assert [j.kind for j in fresh.judges(both)] == ["llm", "offline"]
        assert judge_verdicts(fresh, fresh.judges(both)[1].judge_id) == judge_verdicts(
            store, offline.judge_id
        )


def test_export_refuses_a_bad_name_and_leaves_nothing_half_written(store, profiles, tmp_path):
    run_id = ingest_file(store, profiles).run_id
    with pytest.raises(CimemError, match=r"\.eval file"):
        export_inspect(store, run_id, tmp_path / "run.json")
    with pytest.raises(CimemError, match="no such folder"):
        export_inspect(store, run_id, tmp_path / "nowhere" / "run.eval")
    export_inspect(store, run_id, tmp_path / "run.eval")
    assert sorted(p.name for p in tmp_path.iterdir() if "run" in p.name) == ["run.eval"]
