"""A scripted model under test and judge for runner tests and benchmarks, with injected faults.

The model writes a message that repeats some memory lines of its prompt (so the judge has
something to find) and carries the request number (so every message is different). The judge
names each attribute whose memory statement occurs in the message.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from llm_server import Reply

_JUDGE_MARK = "SOLUTION:\n"
_MEMORY_HEADER = "should be considered in how a response should be constructed.\n"


_LABEL_MARK = "Which of these memories does the purpose need"


def is_judge(body: dict) -> bool:
    return _JUDGE_MARK in body["messages"][0]["content"]


def is_labelling(body: dict) -> bool:
    return _LABEL_MARK in body["messages"][0]["content"]


def label_reply(body: dict) -> str:
    """A persona's answer: the same memories needed for every persona (those whose text hashes
    to 0 mod 6), and withheld ones that grow with the persona's caution, so the personas agree
    on some pairs and not on others."""
    import zlib

    text = body["messages"][0]["content"]
    block = text.split("MEMORIES:\n", 1)[1].split("\n\n" + _LABEL_MARK, 1)[0]
    memories = [ln.strip() for ln in block.splitlines() if ln.strip()]
    strict = 3 if "You are relaxed" in text else 2 if "case by case" in text else 1
    needed, withheld = [], []
    for m in memories:
        h = zlib.crc32(m.encode())
        if h % 6 == 0:
            needed.append(m)
        elif h % 5 < 4 - strict:
            withheld.append(m)
    return json.dumps({"needed": needed, "not_shared": withheld})


def generation_reply(body: dict, n: int) -> str:
    text = body["messages"][0]["content"]
    block = text.split(_MEMORY_HEADER, 1)[-1].strip().split("\n\n", 1)[0]
    lines = [ln.strip("- ").strip() for ln in block.splitlines() if ln.strip()]
    picked = lines[1::3][:3]  # a few statements, the same ones for the same prompt
    return f"Dear recipient, (reply {n}) " + " ".join(picked)


def judge_reply(body: dict) -> str:
    text = body["messages"][0]["content"]
    head, solution = text.split(_JUDGE_MARK, 1)
    revealed = {}
    for line in head.split("ATTRIBUTES:\n", 1)[-1].splitlines():
        key, sep, statement = line.partition(" \u2192 ")
        if sep and statement.strip() and statement.strip() in solution:
            revealed[key.strip()] = statement.strip()
    return json.dumps(revealed)


@dataclass
class Faults:
    """Which requests fail, as "one in every N" (0: never), so the shares are exact and the test
    does not depend on luck: HTTP 500, 429 with Retry-After, a hang past the client's timeout,
    and (judge requests only) a reply that is not JSON."""

    every500: int = 0
    every429: int = 0
    every_hang: int = 0
    every_malformed: int = 0
    hang_seconds: float = 2.0
    retry_after: str = "0.05"

    def pick(self, n: int) -> str | None:
        for kind, every, offset in (
            ("500", self.every500, 3),
            ("429", self.every429, 6),
            ("hang", self.every_hang, 11),
        ):
            if every and n % every == offset % every:
                return kind
        return None


class World:
    """The server's script: replies and faults; with ``hold_after`` set, generation requests
    after that many successes hang (a run stopped halfway with nothing in flight)."""

    def __init__(self, faults: Faults | None = None, delay: float = 0.0):
        self.faults = faults or Faults()
        self.delay = delay
        self.judge_requests = 0
        self.hold_after: int | None = None  # successful generations after which requests hang
        self.ok_generations = 0

    def __call__(self, body: dict, n: int) -> Reply:
        f = self.faults
        judge = is_judge(body)
        if self.hold_after is not None and not judge and self.ok_generations >= self.hold_after:
            return Reply(hang=True, delay=3600.0)
        fault = f.pick(n)
        if fault == "500":
            return Reply(status=500, delay=self.delay)
        if fault == "429":
            return Reply(status=429, headers={"Retry-After": f.retry_after}, delay=self.delay)
        if fault == "hang":
            return Reply(hang=True, delay=f.hang_seconds)
        if is_labelling(body):
            return Reply(label_reply(body), delay=self.delay)
        if judge:
            self.judge_requests += 1
            if f.every_malformed and self.judge_requests % f.every_malformed == 1:
                return Reply("I cannot tell which attributes are revealed.", delay=self.delay)
            return Reply(judge_reply(body), delay=self.delay)
        self.ok_generations += 1
        return Reply(generation_reply(body, n), delay=self.delay)


def serve() -> None:
    """Serve a fault-free World until stdin closes; the first stdout line is the base URL.
    Benchmarks run it as a separate process so server and client do not share one GIL."""
    import sys

    from llm_server import FakeLLM

    with FakeLLM(World()) as server:
        server.keep_log = False
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    serve()
