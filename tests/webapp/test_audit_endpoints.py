"""Live re-judging on the Audit page (streamlit.testing AppTest against the scripted local
server): a listed endpoint gets its own key and nothing else; a typed endpoint needs the
visitor's own key and is refused when free endpoints are off; an unreachable endpoint fails
after one attempt with a message naming the URL and the cause."""

from __future__ import annotations

import pytest
from app_server import free_port
from apptest import APP
from llm_server import FakeLLM, Reply
from streamlit.testing.v1 import AppTest

from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import small_profile, write_jsonl

CANARY = "sk-server-canary-3b9e"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "a.duckdb"
    with Store.open(path) as s:
        run = ingest_file(s, write_jsonl(tmp_path / "a.jsonl", [small_profile()])).run_id
        message = s.find_message(run, 0, 0, 0)
    return path, message


def audit(db, monkeypatch, tmp_path, endpoints: str) -> AppTest:
    path, message = db
    monkeypatch.setenv("CIMEM_DB", str(path))
    monkeypatch.setenv("OPENAI_API_KEY", CANARY)
    (tmp_path / "endpoints.toml").write_text(endpoints)
    monkeypatch.setenv("CIMEM_ENDPOINTS", str(tmp_path / "endpoints.toml"))
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params["message"] = str(message)
    at.run()
    at.switch_page("webapp/pages/audit.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def listed(url: str, key_env: str | None = "LAB_KEY", allow: str = "") -> str:
    key = f'key_env = "{key_env}"\n' if key_env else ""
    return f'{allow}\n[[endpoints]]\nname = "lab"\nbase_url = "{url}"\nmodel = "m"\n{key}'


def errors(at: AppTest) -> str:
    return " ".join(e.value for e in at.error).replace("\\", "").replace("\u2060", "")


def test_a_listed_endpoint_gets_its_key_and_never_the_server_key(db, monkeypatch, tmp_path):
    with FakeLLM(lambda body, n: Reply(content="{}")) as llm:
        monkeypatch.setenv("LAB_KEY", "lab-key-1")
        at = audit(db, monkeypatch, tmp_path, listed(llm.base_url))
        at.radio(key="judge_kind").set_value("listed endpoint").run()
        at.button(key="run_live").click().run()
        assert not at.exception
    assert [r.auth for r in llm.log] == ["Bearer lab-key-1"]


def test_a_listed_endpoint_without_a_key_variable_sends_no_server_key(db, monkeypatch, tmp_path):
    with FakeLLM(lambda body, n: Reply(content="{}")) as llm:
        at = audit(db, monkeypatch, tmp_path, listed(llm.base_url, key_env=None))
        at.radio(key="judge_kind").set_value("listed endpoint").run()
        at.button(key="run_live").click().run()
    assert len(llm.log) == 1 and CANARY not in str(llm.log[0].auth)


def test_a_listed_key_missing_on_the_server_is_one_line(db, monkeypatch, tmp_path):
    monkeypatch.delenv("LAB_KEY", raising=False)
    at = audit(db, monkeypatch, tmp_path, listed("http://127.0.0.1:9/v1"))
    at.radio(key="judge_kind").set_value("listed endpoint").run()
    assert "endpoint lab: the server has no key in LAB_KEY" in errors(at)
    assert not [b for b in at.button if b.key == "run_live"]


def test_a_typed_endpoint_is_refused_unless_free_endpoints_are_allowed(db, monkeypatch, tmp_path):
    # AppTest has no browser on loopback: like a served app, free endpoints are off by default
    at = audit(db, monkeypatch, tmp_path, listed("http://127.0.0.1:9/v1"))
    at.radio(key="judge_kind").set_value("another endpoint").run()
    assert any("does not let visitors call endpoints" in i.value for i in at.info)
    assert not [t for t in at.text_input if t.key == "free_url"]


def test_a_typed_endpoint_needs_the_visitors_own_key(db, monkeypatch, tmp_path):
    allow = "allow_free_endpoints = true"
    with FakeLLM(lambda body, n: Reply(content="{}")) as llm:
        at = audit(db, monkeypatch, tmp_path, listed("http://127.0.0.1:9/v1", allow=allow))
        at.radio(key="judge_kind").set_value("another endpoint").run()
        at.text_input(key="free_url").set_value(llm.base_url)
        at.text_input(key="free_model").set_value("m").run()
        assert "needs your own API key" in errors(at)
        assert not [b for b in at.button if b.key == "run_live"]
        at.text_input(key="free_key").set_value("visitor-key").run()
        at.button(key="run_live").click().run()
    assert [r.auth for r in llm.log] == ["Bearer visitor-key"]


@pytest.mark.parametrize("trouble", ["refused", "hangs"])
def test_an_unreachable_endpoint_names_the_url_and_the_cause(db, monkeypatch, tmp_path, trouble):
    allow = "allow_free_endpoints = true"
    with FakeLLM(lambda body, n: Reply(content="{}", delay=5, hang=True)) as llm:
        url = llm.base_url if trouble == "hangs" else f"http://127.0.0.1:{free_port()}/v1"
        at = audit(db, monkeypatch, tmp_path, listed("http://127.0.0.1:9/v1", allow=allow))
        at.radio(key="judge_kind").set_value("another endpoint").run()
        at.text_input(key="free_url").set_value(url)
        at.text_input(key="free_model").set_value("m")
        at.number_input(key="free_timeout").set_value(1)
        at.text_input(key="free_key").set_value("k").run()
        at.button(key="run_live").click().run()
        assert not at.exception
        message = errors(at)
        assert f"{url} did not answer" in message
        if trouble == "hangs":
            assert "APITimeoutError" in message and len(llm.log) == 1  # one attempt, no retry
        else:
            assert "APIConnectionError" in message and "Errno 111" in message  # refused


def test_a_visitors_endpoint_never_answers_for_a_listed_one(db, monkeypatch, tmp_path):
    # same model name, same prompt: the visitor's reply must not be cached for the lab's calls
    allow = "allow_free_endpoints = true"
    with (
        FakeLLM(lambda b, n: Reply(content="{}")) as lab,
        FakeLLM(lambda b, n: Reply(content="{}")) as visitor,
    ):
        monkeypatch.setenv("LAB_KEY", "lab-key-1")
        at = audit(db, monkeypatch, tmp_path, listed(lab.base_url, allow=allow))
        at.radio(key="judge_kind").set_value("another endpoint").run()
        at.text_input(key="free_url").set_value(visitor.base_url)
        at.text_input(key="free_model").set_value("m")
        at.text_input(key="free_key").set_value("k").run()
        at.button(key="run_live").click().run()
        at.radio(key="judge_kind").set_value("listed endpoint").run()
        at.button(key="run_live").click().run()
        assert not at.exception
    assert len(visitor.log) == 1 and len(lab.log) == 1
