"""A batch's counts: every finished call is counted once, with its retries and tokens."""

from cimem.llm.calls import CallProgress
from cimem.llm.client import ChatResult


def test_count_adds_answers_failures_retries_and_tokens():
    prog = CallProgress(total=3, done=1, cached=1)
    prog.count(ChatResult("yes", attempts=1, prompt_tokens=10, completion_tokens=2))
    prog.count(ChatResult(None, error="HTTP 500", attempts=4, prompt_tokens=0))
    assert (prog.done, prog.cached, prog.made, prog.failed) == (3, 1, 2, 1)
    assert prog.retries == 3  # the failed call's attempts beyond its first
    assert (prog.prompt_tokens, prog.completion_tokens) == (10, 2)
    assert prog.cost(1.0, 10.0) == (10 * 1.0 + 2 * 10.0) / 1e6
