"""A labelling answer that puts one memory in both lists counts that memory as unlabeled in the
sample (and as a conflict), matches memories without case or a final full stop, and a persona
whose every reply is unparsed leaves its pairs without a combined label."""

from __future__ import annotations

import json

from llm_server import FakeLLM, Reply

from cimem.generate.labelling import PERSONAS, create_label_run, label_run
from cimem.generate.runner import RunSettings

from fixtures import runner_profiles, write_jsonl


def _labeller(body: dict, n: int) -> Reply:
    prompt = body["messages"][0]["content"]
    if PERSONAS["unconcerned"] in prompt:
        return Reply("no lists here")
    both = "I HAVE ASTHMA"  # the profile's "I have asthma.", another case, no full stop
    return Reply(json.dumps({"needed": [both, "I play chess on Sundays."], "not_shared": [both]}))


def test_a_memory_in_both_lists_is_unlabeled(store, tmp_path):
    profiles = write_jsonl(tmp_path / "p.jsonl", runner_profiles(1, 2))
    with FakeLLM(_labeller) as server:
        s = RunSettings(model="lab-m", base_url=server.base_url, trials=2, retries=0)
        run_id = create_label_run(store, profiles, s)
        summary = label_run(store, run_id)
    # 2 contexts x 2 samples of the two personas that answer
    assert summary.conflicts == 8 and summary.unmatched == 0 and summary.unparsed == 4
    assert summary.unlabeled_pairs == 2  # the unconcerned persona never answered
    rows = store.con.execute(
        "SELECT a.key, l.persona, l.necessary, l.private, l.unlabeled FROM persona_labels l"
        " JOIN attributes a USING (run_id, attr_id) WHERE l.run_id = ? AND l.ctx_idx = 0",
        [run_id],
    ).fetchall()
    got = {(key, persona): (nec, priv, un) for key, persona, nec, priv, un in rows}
    assert got[("diagnosis", "pragmatic")] == (0.0, 0.0, 1.0)
    assert got[("hobby", "fundamentalist")] == (1.0, 0.0, 0.0)
    assert {persona for _key, persona in got} == {"fundamentalist", "pragmatic"}
