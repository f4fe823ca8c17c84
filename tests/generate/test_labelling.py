"""Persona labelling against the local server: fractions per persona, the weighted combined view,
unmatched memories reported, failures retried on resume, and labels a run can use."""

from __future__ import annotations

import json

import pytest
from llm_server import FakeLLM, Reply

import cimem.generate.runner as runner
from cimem.generate.labelling import LABEL_PROMPT, PERSONAS, create_label_run, label_run
from cimem.generate.runner import RunSettings

from fixtures import runner_profiles, write_jsonl

WITHHELD = {
    "fundamentalist": ["I have asthma.", "I am in a custody dispute."],
    "pragmatic": ["I have asthma."],
    "unconcerned": [],
}


def persona_of(prompt: str) -> str:
    return next(p for p, text in PERSONAS.items() if text in prompt)


def labeller(fail_every: int = 0, garbage_every: int = 0):
    def script(body: dict, n: int) -> Reply:
        prompt = body["messages"][0]["content"]
        if fail_every and n % fail_every == 1:
            return Reply(status=500)
        if garbage_every and n % garbage_every == 2:
            return Reply("I would rather not say.")
        persona = persona_of(prompt)
        needed = [ln for ln in prompt.splitlines() if "annual income" in ln or "My name is" in ln]
        return Reply(
            json.dumps({"needed": needed + ["I own a yacht."], "not_shared": WITHHELD[persona]})
        )

    return script


@pytest.fixture
def profiles(tmp_path):
    return write_jsonl(tmp_path / "p.jsonl", runner_profiles(2, 2))


def labels(store, run_id):
    rows = store.con.execute(
        "SELECT p.name, l.ctx_idx, a.key, l.persona, l.necessary, l.private, l.unlabeled"
        " FROM persona_labels l JOIN attributes a USING (run_id, attr_id)"
        " JOIN profiles p ON p.run_id = l.run_id AND p.profile_id = l.profile_id"
        " WHERE l.run_id = ?",
        [run_id],
    ).fetchall()
    return {(n, c, k, per): (nec, priv, un) for n, c, k, per, nec, priv, un in rows}


def test_fractions_and_weighted_combined(store, profiles):
    with FakeLLM(labeller()) as server:
        s = RunSettings(model="lab-m", base_url=server.base_url, trials=3, retries=0)
        run_id = create_label_run(store, profiles, s)
        summary = label_run(store, run_id)
        assert len(server.log) == 2 * 2 * 3 * 3  # pairs x personas x samples
    assert summary.calls == 36 and summary.failed == summary.unparsed == 0
    assert summary.unmatched == 36 and summary.examples[0] == "I own a yacht."
    got = labels(store, run_id)
    key = ("Person 0", 1)
    assert got[(*key, "diagnosis", "fundamentalist")] == (0.0, 1.0, 0.0)
    assert got[(*key, "diagnosis", "unconcerned")] == (0.0, 0.0, 1.0)
    assert got[(*key, "diagnosis", "combined")] == pytest.approx((0.0, 0.90, 0.10))
    assert got[(*key, "court_case", "combined")] == pytest.approx((0.0, 0.26, 0.74))
    assert got[(*key, "annual_income", "combined")] == (1.0, 0.0, 0.0)  # unanimous: exactly 1
    assert got[(*key, "hobby", "pragmatic")] == (0.0, 0.0, 1.0)
    assert store.run_config(run_id)["kind"] == "labels"

    # a second pass is free and gives the same labels
    again = label_run(store, run_id)
    assert again.calls == 0 and again.cached == 36 and labels(store, run_id) == got

    # a model run can take these labels
    with FakeLLM(lambda body, n: Reply("Hello, I earn $50,000.")) as server:
        rs = RunSettings(model="gen-m", base_url=server.base_url, trials=1)
        results = runner.create_run(store, profiles, rs, labels_from=run_id)
        assert store.con.execute(
            "SELECT count(*) FROM persona_labels WHERE run_id = ?", [results]
        ).fetchall()[0][0] == len(got)


def test_failures_are_not_labels_and_resume_retries_them(store, profiles):
    with FakeLLM(labeller(fail_every=7, garbage_every=11)) as server:
        s = RunSettings(model="lab-m", base_url=server.base_url, trials=2, retries=0, backoff=0.01)
        run_id = create_label_run(store, profiles, s)
        first = label_run(store, run_id)
        assert first.failed > 0 and first.unparsed > 0
        n_first = len(server.log)
        server.script = labeller()  # the endpoint recovers
        second = label_run(store, run_id)
        assert second.calls == first.failed  # only the failed calls are made again
        assert len(server.log) == n_first + first.failed
        assert second.failed == 0
        assert second.unparsed == first.unparsed  # garbage replies are answers: cached
    per_pair = store.con.execute(
        "SELECT count(DISTINCT (profile_id, ctx_idx)) FROM persona_labels WHERE run_id = ?"
        " AND persona = 'combined'",
        [run_id],
    ).fetchall()[0][0]
    assert per_pair == 4 - second.unlabeled_pairs


def test_dry_run_and_prompt(store, profiles):
    s = RunSettings(
        model="lab-m",
        base_url="http://127.0.0.1:9/v1",
        trials=10,
        max_tokens=200,
        price_in=1.0,
        price_out=1.0,
    )
    run_id = create_label_run(store, profiles, s)
    dry = label_run(store, run_id, dry_run=True)
    assert dry.estimated and dry.calls == 2 * 2 * 3 * 10 and dry.completion_tokens == 120 * 200
    assert "{persona}" in LABEL_PROMPT and "{memories}" in LABEL_PROMPT


def test_label_cli(tmp_path, profiles):
    import subprocess
    import sys

    from conftest import REPO

    db = tmp_path / "l.duckdb"
    with FakeLLM(labeller()) as server:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "cimem",
                "label",
                "--db",
                str(db),
                "--profiles",
                str(profiles),
                "--model",
                "lab-m",
                "--base-url",
                server.base_url,
                "--samples",
                "2",
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 0, out.stderr
        assert "4 (profile, context) pairs x 3 personas x 2 samples: made 24 calls" in out.stdout
        assert "'I own a yacht.'" in out.stdout and "--labels-from 1" in out.stdout
        again = subprocess.run(
            [sys.executable, "-m", "cimem", "label", "--db", str(db), "--resume", "1"],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert "made 0 calls, 24 from the cache" in again.stdout, again.stderr
        assert len(server.log) == 24
