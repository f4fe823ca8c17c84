"""Re-judging stores a new judge without touching the old one; agreement; human verdicts;
and the offline judge measured against Kimi-K2 on real messages."""

import json
import subprocess
import sys

import pytest

from cimem.analysis.agreement import agreement, cohen_kappa
from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import MetricOptions, compute
from cimem.ingest import ingest_file
from cimem.judges.base import OfflineJudge, rejudge

from conftest import shared_file
from fixtures import small_profile, write_jsonl


@pytest.fixture
def run(store, tmp_path):
    return ingest_file(store, write_jsonl(tmp_path / "r.jsonl", [small_profile("Ada")])).run_id


def test_rejudge_is_a_new_judge_and_keeps_the_original(store, run):
    original = store.find_default_judge(run)
    before = store.con.execute(
        "SELECT * FROM verdicts WHERE judge_id = ? ORDER BY ALL", [original]
    ).fetchall()
    res = rejudge(store, run, OfflineJudge())
    assert res.judge_id != original and res.messages == 4 and res.verdicts == 12
    after = store.con.execute(
        "SELECT * FROM verdicts WHERE judge_id = ? ORDER BY ALL", [original]
    ).fetchall()
    assert after == before
    info = store.judge_info(res.judge_id)
    assert info.kind == "offline" and info.prompt_hash
    got = dict(
        store.con.execute(
            "SELECT m.text || ' / ' || a.key, v.revealed FROM verdicts v JOIN messages m USING"
            " (message_id) JOIN attributes a USING (attr_id) WHERE v.judge_id = ? AND v.revealed",
            [res.judge_id],
        ).fetchall()
    )
    assert set(got) == {
        "I earn $95,000. / annual_income",
        "I earn $95,000. I have hypertension. / annual_income",
        "I earn $95,000. I have hypertension. / diagnosis",
        "I am Ada. / name",
    }
    # the metrics take a judge id; the offline judge parsed every message
    m = compute(cube_from_store(store, run, res.judge_id), MetricOptions(mode="definition"))
    assert m.discarded.trials.parse_failures == 0


def test_rejudge_selection(store, run):
    res = rejudge(store, run, OfflineJudge(), context=1, trial=0)
    assert res.messages == 1


def test_agreement_and_human_verdicts(store, run):
    first = store.find_default_judge(run)
    second = rejudge(store, run, OfflineJudge()).judge_id
    ag = agreement(store, first, second)
    # the imported judge's parse failure (context 1, trial 0) is left out: 3 messages x 3 attrs
    assert ag.overall.n == 9 and ag.overall.agreement == 1.0
    human = store.get_or_create_human_judge(run)
    mid, aid = store.con.execute(
        "SELECT m.message_id, a.attr_id FROM messages m, attributes a WHERE m.ctx_idx = 0 AND"
        " m.trial = 1 AND a.key = 'diagnosis'"
    ).fetchone()
    store.set_human_verdict(human, mid, aid, False, "only a condition, not the diagnosis")
    store.set_human_verdict(human, mid, aid, False, "second thought, same answer")
    ag = agreement(store, second, human)
    assert ag.overall.n == 1 and ag.overall.confusion == {
        "both_yes": 0,
        "a_only": 1,
        "b_only": 0,
        "both_no": 0,
    }
    assert ag.disagreements[0]["b_evidence"] == "second thought, same answer"
    assert store.get_or_create_human_judge(run) == human


def test_cohen_kappa_known_values():
    import numpy as np

    a = np.array([True, True, False, False, True, False])
    assert cohen_kappa(a, a) == 1.0
    assert cohen_kappa(a, ~a) == pytest.approx(-1.0)


def test_offline_judge_agrees_with_kimi_on_real_messages(store):
    """Cohen's kappa of the offline judge against Kimi-K2's verdicts on 49 real Llama-3.3-70B
    messages (a naive "value occurs in the message" scores about 0.2 there)."""
    profiles = ingest_file(store, shared_file("profiles.json")).run_id
    run = ingest_file(store, shared_file("persistbench_llama33_jeffery_day.json")).run_id
    res = rejudge(store, run, OfflineJudge(), values_from=profiles)
    ag = agreement(store, store.find_default_judge(run), res.judge_id)
    assert ag.overall.n > 2000
    assert ag.overall.kappa >= 0.6


def test_cli_judge_and_agreement(tmp_path):
    src = write_jsonl(tmp_path / "r.jsonl", [small_profile("Ada")])
    db = str(tmp_path / "db.duckdb")

    def run(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cimem", *a, "--db", db], capture_output=True, text=True
        )

    assert run("ingest", str(src)).returncode == 0
    out = run("judge", "--run", "1", "--offline")
    assert out.returncode == 0 and out.stdout.startswith("judge 2: 4 messages, 12 verdicts")
    out = run("agreement", "--run", "1", "--json")
    doc = json.loads(out.stdout)
    assert doc["judge_a"] == 1 and doc["judge_b"] == 2 and doc["overall"]["n"] == 9
    bad = run("agreement", "--run", "1", "--judges", "1,7")
    assert bad.returncode == 2 and "judge 7 is not a judge of run 1" in bad.stderr


def test_the_same_judge_made_twice_is_named_apart(tmp_path):
    """`judge --offline --name X` run twice: the second judge is 'X (2)', and the command says
    so, so that a picker or a table never shows two judges as one."""
    from cimem.cli.main import main
    from cimem.store import Store

    db = str(tmp_path / "twice.duckdb")
    path = write_jsonl(tmp_path / "r.jsonl", [small_profile()])
    assert main(["ingest", str(path), "--db", db]) == 0
    for _ in range(2):
        assert main(["judge", "--db", db, "--run", "1", "--offline", "--name", "X"]) == 0
    assert main(["judge", "--db", db, "--run", "1", "--offline", "--name", "Y"]) == 0
    with Store.open(db, read_only=True) as store:
        names = [j.name for j in store.judges(1)]
    assert names[1:] == ["X", "X (2)", "Y"]
