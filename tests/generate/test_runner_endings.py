"""The runner keeps how each generation ended and its tokens: the endpoint's finish reason ("length"
for a reply cut at the token limit) and usage, with the message, also when a later run answers
the same call from the call cache; the health scan flags the cut message."""

import json
import subprocess
import sys

from llm_server import FakeLLM, Reply
from llm_world import World, is_judge

import cimem.generate.runner as runner
from cimem.generate.runner import RunSettings

from conftest import REPO
from fixtures import runner_profiles, write_jsonl


class CutOnce(World):
    """The scripted model, whose first generation reply is cut at the token limit."""

    def __init__(self) -> None:
        super().__init__()
        self.cut: str | None = None  # the text of the reply that was cut

    def __call__(self, body: dict, n: int) -> Reply:
        reply = super().__call__(body, n)
        if not is_judge(body) and self.cut is None:
            self.cut = reply.content
            reply.finish_reason = "length"
        return reply


def endings(store, run_id: int) -> dict[str, tuple]:
    rows = store.con.execute(
        "SELECT text, finish_reason, prompt_tokens, completion_tokens FROM messages"
        " WHERE run_id = ?",
        [run_id],
    ).fetchall()
    return {text: tuple(rest) for text, *rest in rows}


def test_the_runner_stores_finish_reason_and_tokens_and_health_flags_the_cut(store, tmp_path):
    profiles = write_jsonl(tmp_path / "p.jsonl", runner_profiles(1, 2))
    world = CutOnce()
    with FakeLLM(world) as server:
        s = RunSettings(model="gen-m", base_url=server.base_url, trials=2, concurrency=1, retries=0)
        run_id = runner.create_run(store, profiles, s, name="cut")
        runner.run(store, run_id)
        got = endings(store, run_id)
        assert len(got) == 4
        assert got.pop(world.cut) == ("length", 10, 5)  # the scripted server's usage
        assert set(got.values()) == {("stop", 10, 5)}
        # a second run of the same calls is answered from the call cache: the ending comes too
        calls = len(server.log)
        again = runner.create_run(store, profiles, s, name="cached")
        summary = runner.run(store, again)
        assert summary.cached == 4 and len(server.log) == calls
        assert endings(store, again)[world.cut] == ("length", 10, 5)
    store.close()
    out = subprocess.run(
        [sys.executable, "-m", "cimem", "health", "--db", store.path, "--run", str(run_id)]
        + ["--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["flags"]["truncated"]["messages"] == 1
    assert doc["finish_reasons"] == {"stop": 3, "length": 1}
