"""The one call loop: cache first, bounded concurrency, retries, pacing, failures never cached."""

import threading

import pytest
from llm_server import FakeLLM, Reply

from cimem.llm.calls import CallOptions, CallProgress, call_many
from cimem.llm.client import ClientSettings, cache_key


def asks(*texts: str) -> list[list[dict[str, str]]]:
    return [[{"role": "user", "content": t}] for t in texts]


def settings(server: FakeLLM, **kw) -> ClientSettings:
    return ClientSettings(
        model="m", base_url=server.base_url, api_key_env="CIMEM_NO_KEY", backoff=0.01, **kw
    )


def keys_of(requests) -> list[str]:
    return [cache_key("m", r, {}) for r in requests]


def echo(body: dict, n: int) -> Reply:
    text = body["messages"][0]["content"]
    if text.startswith("fail"):
        return Reply(status=400)  # not retryable: fails at once
    return Reply(f"re: {text}")


def test_answers_in_request_order_and_the_cache_answers_the_second_pass(store):
    requests = asks("a", "b", "c", "fail d")
    seen: list[tuple[int, int, int, int, int]] = []

    def watch(p: CallProgress) -> None:
        seen.append((p.done, p.cached, p.failed, p.prompt_tokens, p.completion_tokens))

    with FakeLLM(echo) as server:
        opts = CallOptions(purpose="test", concurrency=2)
        first = call_many(
            requests, keys_of(requests), settings(server), opts, store=store, on_progress=watch
        )
        assert [r.text for r in first.results] == ["re: a", "re: b", "re: c", None]
        assert "BadRequestError" in (first.results[3].error or "")
        p = first.progress
        assert (p.total, p.done, p.made, p.cached, p.failed) == (4, 4, 4, 0, 1)
        assert (p.prompt_tokens, p.completion_tokens) == (30, 15)  # 10 + 5 per answered call
        assert seen[0] == (0, 0, 0, 0, 0) and seen[-1] == (4, 0, 1, 30, 15)
        assert [s[0] for s in seen] == list(range(5))  # once after the look-up, once per call
        sent = server.count

        second = call_many(requests, keys_of(requests), settings(server), opts, store=store)
        # only the failure is sent again: failures are never cached (as empty text or otherwise)
        assert server.count == sent + 1
    assert [r.cached for r in second.results] == [True, True, True, False]
    assert [r.text for r in second.results[:3]] == ["re: a", "re: b", "re: c"]
    q = second.progress
    assert (q.cached, q.made, q.failed, q.prompt_tokens) == (3, 1, 1, 0)
    assert q.cost(1e6, 1e6) == 0.0  # cached answers cost nothing; the failure had no usage
    assert store.cache_get(keys_of(requests[3:])) == {}


def test_without_a_store_nothing_is_cached(store):
    requests = asks("x")
    with FakeLLM(echo) as server:
        for _ in range(2):
            batch = call_many(
                requests, keys_of(requests), settings(server), CallOptions(purpose="test")
            )
            assert batch.results[0].text == "re: x" and not batch.results[0].cached
        assert server.count == 2
    assert store.cache_get(keys_of(requests)) == {}


def test_retries_are_counted_and_concurrency_is_bounded():
    lock = threading.Lock()
    state = {"now": 0, "most": 0, "seen": set()}

    def script(body: dict, n: int) -> Reply:
        text = body["messages"][0]["content"]
        with lock:
            first = text not in state["seen"]
            state["seen"].add(text)
        if first and text in ("a", "b"):
            return Reply(status=503)
        return Reply(f"re: {text}", delay=0.05)

    requests = asks(*"abcdefgh")
    with FakeLLM(script) as server:
        batch = call_many(
            requests,
            keys_of(requests),
            settings(server),
            CallOptions(purpose="test", concurrency=3),
        )
        in_flight = _most_in_flight(server)
    assert all(r.ok for r in batch.results) and batch.progress.retries == 2
    assert [r.attempts for r in batch.results[:3]] == [2, 2, 1]
    assert in_flight <= 3


def _most_in_flight(server: FakeLLM) -> int:
    """The most requests that arrived within one reply's delay of each other."""
    starts = sorted(r.at for r in server.log if r.status == 200)
    return max(sum(1 for t in starts if s <= t < s + 0.045) for s in starts)


def test_requests_per_minute_space_the_starts(call_starts):
    requests = asks("a", "b", "c", "d")
    with FakeLLM(echo) as server:
        call_many(
            requests,
            keys_of(requests),
            settings(server),
            CallOptions(purpose="test", concurrency=8, rpm=1200.0),
        )
        assert server.count == 4
    gaps = [b - a for a, b in zip(call_starts, call_starts[1:])]
    assert len(call_starts) == 4 and min(gaps) >= 0.045, gaps  # one every 0.05 s, 8 may fly


def test_requests_and_keys_must_pair_up():
    with pytest.raises(ValueError, match="2 requests but 1 cache keys"):
        call_many(asks("a", "b"), ["k"], ClientSettings(model="m"), CallOptions(purpose="test"))
