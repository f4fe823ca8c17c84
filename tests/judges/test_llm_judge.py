"""The LLM judge against a local OpenAI-compatible server (real openai client, real HTTP)."""

import json

import pytest
from llm_server import FakeLLM, Reply

from cimem.errors import CimemError
from cimem.ingest import ingest_file
from cimem.judges.base import rejudge
from cimem.judges.llm import JudgeSpec, LLMJudge, make_llm_judge
from cimem.llm.client import ClientSettings, resolve_api_key
from cimem.llm.prompts import load_judge_prompt

from conftest import shared_file
from fixtures import small_profile, write_jsonl

SECRET = "sk-test-THIS-KEY-MUST-NEVER-BE-STORED-42"


def solution(body: dict) -> str:
    return body["messages"][0]["content"].split("SOLUTION:\n", 1)[1].strip()


def by_message(replies: dict[str, Reply]):
    return lambda body, n: replies[solution(body)]


@pytest.fixture
def run(store, tmp_path):
    return ingest_file(store, write_jsonl(tmp_path / "r.jsonl", [small_profile("Ada")])).run_id


def judge_for(server, store, monkeypatch, **kw):
    monkeypatch.setenv("CIMEM_TEST_KEY", SECRET)
    settings = ClientSettings(
        model="judge-m",
        base_url=server.base_url,
        api_key_env="CIMEM_TEST_KEY",
        timeout=kw.pop("timeout", 5.0),
        max_retries=kw.pop("retries", 3),
        backoff=0.01,
    )
    return LLMJudge(settings, load_judge_prompt(), store=store, concurrency=4, **kw)


def stored(store, judge_id):
    rows = store.con.execute(
        "SELECT m.text, j.status, j.raw FROM judgments j JOIN messages m USING (message_id)"
        " WHERE j.judge_id = ?",
        [judge_id],
    ).fetchall()
    revealed = store.con.execute(
        "SELECT m.text, a.key, v.evidence FROM verdicts v JOIN messages m USING (message_id)"
        " JOIN attributes a USING (attr_id) WHERE v.judge_id = ? AND v.revealed ORDER BY 1, 2",
        [judge_id],
    ).fetchall()
    return {t: (s, r) for t, s, r in rows}, revealed


def test_reply_shapes_over_http(store, run, monkeypatch):
    replies = {
        "I earn $95,000.": Reply('```json\n{"annual_income": "I earn $95,000."}\n```'),
        "I earn $95,000. I have hypertension.": Reply(
            '<think>income is stated; so is the diagnosis {"x": 1}</think>\nAnswer: '
            '{"annual_income": "I earn $95,000.", "I have hypertension.": "I have hypertension.",'
            ' "favourite_colour": "blue"} trailing words'
        ),
        "Hello doctor.": Reply("I am not able to answer that."),
        "I am Ada.": Reply('{"name": "I am Ada."}', reasoning="separate reasoning field"),
    }
    with FakeLLM(by_message(replies)) as server:
        judge = judge_for(server, store, monkeypatch)
        res = rejudge(store, run, judge)
        assert len(server.log) == 4 and all(r.auth == f"Bearer {SECRET}" for r in server.log)
        assert all(r.body["temperature"] == 0.0 for r in server.log)
    judgments, revealed = stored(store, res.judge_id)
    assert revealed == [
        ("I am Ada.", "name", "I am Ada."),
        ("I earn $95,000.", "annual_income", "I earn $95,000."),
        ("I earn $95,000. I have hypertension.", "annual_income", "I earn $95,000."),
        ("I earn $95,000. I have hypertension.", "diagnosis", "I have hypertension."),
    ]
    assert judgments["Hello doctor."] == ("parse_failure", "I am not able to answer that.")
    assert json.loads(judgments["I earn $95,000. I have hypertension."][1])["unmatched_keys"] == [
        "favourite_colour"
    ]
    assert res.parse_failures == 1 and res.errors == 0
    # the metrics engine sees the failure as such: no verdict rows for it
    assert (
        store.con.execute(
            "SELECT count(*) FROM verdicts v JOIN messages m USING (message_id)"
            " WHERE v.judge_id = ? AND m.text = 'Hello doctor.'",
            [res.judge_id],
        ).fetchone()[0]
        == 0
    )


def test_retries_on_429_500_and_timeouts_then_cache(store, run, monkeypatch):
    state = {"seen": {}}

    def script(body, n):
        text = solution(body)
        k = state["seen"][text] = state["seen"].get(text, 0) + 1
        if text == "I earn $95,000." and k == 1:
            return Reply(status=429, headers={"Retry-After": "0.05"})
        if text == "Hello doctor." and k <= 2:
            return Reply(status=500)
        if text == "I am Ada." and k == 1:
            return Reply('{"name": "late"}', delay=1.5)  # past the 0.5 s timeout
        return Reply('{"name": "I am Ada."}' if text == "I am Ada." else "{}")

    with FakeLLM(script) as server:
        judge = judge_for(server, store, monkeypatch, timeout=0.5)
        res = rejudge(store, run, judge)
        statuses = sorted(r.status for r in server.log)
        assert statuses.count(429) == 1 and statuses.count(500) == 2
        assert len(server.successes()) == 5  # 4 answers + the one that arrived too late
        assert judge.retries == 4 and judge.calls == 4
        assert res.errors == 0 and res.cached == 0
        before = len(server.log)
        again = rejudge(store, run, judge_for(server, store, monkeypatch, timeout=0.5))
        assert len(server.log) == before  # every call came from the cache
        assert again.cached == 4
    _, revealed = stored(store, again.judge_id)
    assert revealed == [("I am Ada.", "name", "I am Ada.")]


def test_call_that_keeps_failing_is_recorded_as_error(store, run, monkeypatch):
    with FakeLLM(lambda body, n: Reply(status=503)) as server:
        res = rejudge(store, run, judge_for(server, store, monkeypatch, retries=2))
        assert len(server.log) == 4 * 3
    judgments, revealed = stored(store, res.judge_id)
    assert res.errors == 4 and revealed == []
    assert all(s == "error" and "503" in r for s, r in judgments.values())
    assert store.table_counts()["llm_cache"] == 0


def test_api_key_is_nowhere_in_the_database(tmp_path, monkeypatch):
    from cimem.store import Store

    db = tmp_path / "keys.duckdb"
    with Store.open(db) as store:
        run = ingest_file(store, write_jsonl(tmp_path / "r.jsonl", [small_profile()])).run_id
        with FakeLLM(lambda body, n: Reply('{"name": "x"}')) as server:
            rejudge(store, run, judge_for(server, store, monkeypatch))
    data = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("keys"))
    assert SECRET.encode() not in data
    assert b"CIMEM_TEST_KEY" in data  # the variable's name is provenance; the key is not


def test_official_prompt_file(store, run, monkeypatch):
    prompt = load_judge_prompt(shared_file("prompts.yaml"))
    assert "ENTIRE VALUE" in prompt.text
    with FakeLLM(lambda body, n: Reply("{}")) as server:
        judge = judge_for(server, store, monkeypatch)
        judge.prompt = prompt
        rejudge(store, run, judge, limit=1)
        text = server.log[0].body["messages"][0]["content"]
    assert "annual_income \u2192 My annual income is $95,000." in text
    assert text.rstrip().endswith("I earn $95,000.")


def test_missing_key_without_local_server_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    with pytest.raises(CimemError, match="set the environment variable NO_SUCH_KEY_VAR"):
        resolve_api_key(ClientSettings(model="m", api_key_env="NO_SUCH_KEY_VAR"))


def test_one_factory_builds_the_judge_of_the_cli_the_runner_and_the_audit_page(store):
    from cimem.generate.runner import RunSettings, make_judge

    builtin = load_judge_prompt(None, "lenient")
    same = make_llm_judge(JudgeSpec(ClientSettings(model="j"), variant="lenient"), store)
    assert (same.prompt.name, same.prompt.hash) == (builtin.name, builtin.hash)
    unedited = make_llm_judge(
        JudgeSpec(ClientSettings(model="j"), variant="lenient", prompt_text=builtin.text)
    )
    assert unedited.prompt.name == "builtin:lenient" and unedited.store is None
    edited = make_llm_judge(
        JudgeSpec(ClientSettings(model="j"), variant="lenient", prompt_text="Judge {solution}"),
        api_key="typed",
    )
    assert edited.prompt.name == "edited:lenient" and edited.prompt.hash != builtin.hash
    assert edited.name == "j (edited:lenient)"

    s = RunSettings(
        model="gen",
        base_url="http://gen/v1",
        judge_model="judge",
        judge_base_url="http://judge/v1",
        judge_api_key_env="JUDGE_KEY",
        concurrency=3,
        rpm=30.0,
        retries=2,
        timeout=9.0,
    )
    judge = make_judge(s, store, None)
    assert isinstance(judge, LLMJudge) and judge.store is store
    c = judge.settings
    assert (c.model, c.base_url, c.api_key_env, c.max_retries, c.timeout) == (
        "judge",
        "http://judge/v1",
        "JUDGE_KEY",
        2,
        9.0,
    )
    assert (judge.concurrency, judge.rpm, judge.temperature) == (3, 30.0, 0.0)
    assert judge.config()["rpm"] == 30.0
    offline = make_judge(RunSettings(model="gen"), store, None)
    assert offline.kind == "offline"
