"""The runner end to end against a local OpenAI-compatible server that injects faults."""

from __future__ import annotations

import collections
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from llm_server import HUNG, FakeLLM
from llm_world import Faults, World, is_judge

import cimem.generate.runner as runner
from cimem.analysis.cube import cube_from_store
from cimem.analysis.cube_file import cube_from_official
from cimem.analysis.metrics import MetricOptions, compute
from cimem.errors import CimemError
from cimem.generate.runner import RunSettings
from cimem.ingest.export import export_official
from cimem.store import Store

from conftest import REPO
from fixtures import runner_profiles, write_jsonl

# 10% HTTP 500, 5% 429 with Retry-After, 2% hangs past the timeout, 5% malformed judge JSON
FAULTS = Faults(every500=10, every429=20, every_hang=50, every_malformed=20, hang_seconds=1.5)


def settings(server: FakeLLM, **kw) -> RunSettings:
    base = dict(
        model="gen-m",
        base_url=server.base_url,
        trials=3,
        concurrency=6,
        timeout=1.0,
        retries=1,
        backoff=0.01,
        judge_model="judge-m",
        judge_base_url=server.base_url,
        price_in=1.0,
        price_out=2.0,
    )
    return RunSettings(**(base | kw))


def successful(server: FakeLLM, judge: bool) -> list[str]:
    """The prompts of successful requests (generation or judge)."""
    return [
        r.body["messages"][0]["content"]
        for r in server.log
        if r.status == 200 and is_judge(r.body) == judge
    ]


def slot_states(store, run_id: int) -> dict[tuple, str]:
    """{(profile, context, trial): 'failed' | judgment status} for every stored message."""
    rows = store.con.execute(
        "SELECT m.profile_id, m.ctx_idx, m.trial, m.status, j.status FROM messages m"
        " LEFT JOIN judgments j USING (message_id) WHERE m.run_id = ?",
        [run_id],
    ).fetchall()
    return {(p, c, t): (st if st == "failed" else js) for p, c, t, st, js in rows}


@pytest.fixture
def profiles(tmp_path):
    return write_jsonl(tmp_path / "profiles.jsonl", runner_profiles(3, 4))


def test_run_with_faults_completes_and_never_repeats_a_success(store, profiles):
    with FakeLLM(World(FAULTS)) as server:
        s = settings(server, retries=0)
        run_id = runner.create_run(store, profiles, s, name="faulty")
        first = runner.run(store, run_id)
        states = slot_states(store, run_id)
        # every slot ends with a message and a judgment, or a recorded failure
        assert len(states) == first.slots == 3 * 4 * 3
        assert set(states.values()) <= {"ok", "parse_failure", "error", "failed"}
        assert None not in states.values()
        failed = [k for k, v in states.items() if v == "failed"]
        errors = store.con.execute("SELECT error FROM messages WHERE status = 'failed'").fetchall()
        assert all(e and e[0] for e in errors), "a failure keeps its error"
        assert (
            store.con.execute(
                "SELECT count(*) FROM messages WHERE status = 'failed' AND text IS NOT NULL"
            ).fetchall()[0][0]
            == 0
        )
        assert first.failed == len(failed) > 0, "retries=0 with 17% faults leaves failures"
        assert first.judge_errors > 0
        assert first.judged == 36 - len(failed)
        # failed generations are never judged
        assert (
            store.con.execute(
                "SELECT count(*) FROM judgments j JOIN messages m USING (message_id)"
                " WHERE m.status = 'failed'"
            ).fetchall()[0][0]
            == 0
        )
        assert "parse_failure" in states.values(), "5% malformed judge replies were injected"
        statuses = collections.Counter(r.status for r in server.log)
        assert statuses[500] and statuses[429], statuses

        # retry the failures until none is left (each pass may fail a few again)
        for _ in range(8):
            if not failed and "error" not in slot_states(store, run_id).values():
                break
            again = runner.run(store, run_id, retry_failed=True)
            assert again.calls + again.judge_calls >= 1
            failed = [k for k, v in slot_states(store, run_id).items() if v == "failed"]
        assert not failed and "error" not in slot_states(store, run_id).values()
        # a run with nothing missing makes no call at all
        n_log = len(server.log)
        idle = runner.run(store, run_id)
        assert idle.calls == idle.judge_calls == idle.judged == 0 and len(server.log) == n_log

        # no successful request was ever repeated: one success per stored message and judgment
        gens = successful(server, judge=False)
        ok_messages = store.con.execute(
            "SELECT prompt FROM messages WHERE run_id = ? AND status = 'ok'", [run_id]
        ).fetchall()
        assert collections.Counter(gens) == collections.Counter(p for (p,) in ok_messages)
        judged = store.con.execute(
            "SELECT count(*) FROM judgments WHERE status IN ('ok', 'parse_failure')"
        ).fetchall()
        assert judged[0][0] == 36
        assert len(successful(server, judge=True)) == judged[0][0]


def test_dry_run_sends_nothing_and_estimates(store, profiles):
    with FakeLLM(World()) as server:
        s = settings(server, price_in=2.0, price_out=10.0, max_tokens=100, judge_model=None)
        run_id = runner.create_run(store, profiles, s)
        dry = runner.run(store, run_id, dry_run=True)
        assert server.log == [] and dry.estimated
        assert dry.calls == 36 and dry.cached == 0 and dry.judge_calls == 0
        assert dry.completion_tokens == 36 * 100
        assert dry.prompt_tokens > 36 * 50
        assert dry.cost == pytest.approx((dry.prompt_tokens * 2 + dry.completion_tokens * 10) / 1e6)
        # with an LLM judge: one judge call per message, priced at the judge's prices
        s2 = settings(server, max_tokens=100, price_in=0.0, price_out=0.0, judge_price_out=1e6)
        dry2 = runner.run(store, runner.create_run(store, profiles, s2), dry_run=True)
        assert dry2.judge_calls == 36 and dry2.prompt_tokens > dry.prompt_tokens
        assert dry2.cost == pytest.approx(dry2.completion_tokens - 36 * 100)
        # after a real run, a dry run has nothing left to send
        runner.run(store, run_id)
        n_log = len(server.log)
        assert runner.run(store, run_id, dry_run=True).calls == 0
        assert len(server.log) == n_log


def test_export_gives_the_engine_numbers(store, profiles, tmp_path):
    with FakeLLM(World()) as server:
        run_id = runner.create_run(store, profiles, settings(server))
        summary = runner.run(store, run_id)
    assert summary.failed == 0 and summary.judged == 36
    # the server reports 10 prompt and 5 completion tokens per call (36 generations, 36 judgings)
    assert (summary.prompt_tokens, summary.completion_tokens) == (720, 360)
    assert summary.cost == pytest.approx((360 * 1.0 + 180 * 2.0) / 1e6)
    out = tmp_path / "export.jsonl"
    export_official(store, run_id, out)
    for mode in ("official", "definition"):
        opts = MetricOptions(mode=mode)
        a = compute(cube_from_store(store, run_id), opts)
        b = compute(cube_from_official(out), opts)
        assert a.violation.mean == pytest.approx(b.violation.mean)
        assert a.completeness.mean == pytest.approx(b.completeness.mean)
        assert 0 < a.violation.mean < 1


def test_settings_are_stored_without_the_key(store, profiles, monkeypatch):
    monkeypatch.setenv("CIMEM_RUNNER_KEY", "sk-runner-secret-123")
    with FakeLLM(World()) as server:
        s = settings(server, api_key_env="CIMEM_RUNNER_KEY", level=3, memory_format="json")
        run_id = runner.create_run(store, profiles, s)
        runner.run(store, run_id)
        assert all(
            r.auth == "Bearer sk-runner-secret-123" for r in server.log if not is_judge(r.body)
        )
    back = runner.settings_of(store, run_id)
    assert back == s
    prompt = store.con.execute("SELECT prompt FROM messages LIMIT 1").fetchall()[0][0]
    assert '"annual_income":' in prompt  # the JSON memory format
    dump = json.dumps(store.con.execute("SELECT * FROM runs").fetchall(), default=str)
    assert "sk-runner-secret-123" not in dump


def test_composition_adds_withheld_attributes_in_steps(store, profiles):
    with FakeLLM(World()) as server:
        s = settings(server, trials=1, composition_step=2, contexts=[0])
        run_id = runner.create_run(store, profiles, s)
        runner.run(store, run_id)
    rows = store.con.execute(
        "SELECT num_to_share, num_not_to_share, shared_json, prompt FROM messages"
        " WHERE run_id = ? AND shared_json IS NOT NULL AND profile_id = 0 ORDER BY 2",
        [run_id],
    ).fetchall()
    # context 0 needs name and income; diagnosis, court_case and hobby are withheld
    assert [r[1] for r in rows] == [0, 2]
    needed, extra = json.loads(rows[1][2])
    assert sorted(needed) == ["annual_income", "name"] and len(extra) == 2
    assert "I have asthma." not in rows[0][3] and "My annual income" in rows[0][3]


def test_create_run_rejects_bad_input(store, tmp_path, profiles):
    with pytest.raises(CimemError, match="no such profiles file"):
        runner.create_run(store, tmp_path / "missing.json", RunSettings(model="m"))
    with pytest.raises(CimemError, match="level 7"):
        runner.create_run(store, profiles, RunSettings(model="m", level=7))
    with pytest.raises(CimemError, match="no profile matches"):
        runner.create_run(store, profiles, RunSettings(model="m", profiles=["Nobody"]))
    assert store.list_runs() == []


def cli(*args: str, db) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "cimem", "run", "--db", str(db), *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def journaled(db: Path, calls: int, seconds: float = 120.0) -> None:
    """Wait until the run's call journal (``DB.calls.PID``, a line per completed call) holds
    ``calls`` calls: a call the server answered is completed only once the run wrote it down."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        lines = sum(p.read_bytes().count(b"\n") for p in db.parent.glob(f"{db.name}.calls.*"))
        if lines >= calls:
            return
        time.sleep(0.05)
    pytest.fail(f"the run wrote fewer than {calls} calls to its journal in {seconds:g} s")


def held_run(profiles, server: FakeLLM, *args: str, db) -> subprocess.Popen:
    """Start `cimem run` (3 trials, 4 calls in flight, a long timeout) against a server that
    holds calls after World.hold_after; return the process once the first held call hangs."""
    proc = cli(
        "--profiles",
        str(profiles),
        "--model",
        "gen-m",
        "--base-url",
        server.base_url,
        "--trials",
        "3",
        "--concurrency",
        "4",
        "--timeout",
        "600",
        *args,
        db=db,
    )
    deadline = time.monotonic() + 60
    while not any(r.status == HUNG for r in server.log):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    return proc


def test_sigkill_halfway_then_resume_repeats_no_successful_call(tmp_path, profiles):
    db = tmp_path / "killed.duckdb"
    world = World()
    world.hold_after = 18  # of 36 generations; later ones hang until the process is killed
    with FakeLLM(world) as server:
        proc = held_run(profiles, server, "--judge-model", "judge-m", "--chunk", "16", db=db)
        time.sleep(1.0)  # the completed answers reach the cache
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert len(successful(server, judge=False)) == 18
        with Store.open(db, read_only=True) as store:  # the first part, whole: judged and counted
            (row,) = store.run_progress(1)
            assert (row.done, row.total, row.finished_at) == (16, 36, None)
            assert store.judge_coverage(1)[0].judged == 16 == store.table_counts()["messages"]
        world.hold_after = None
        n_log = len(server.log)
        dry = cli("--resume", "1", "--dry-run", db=db)
        out, err = dry.communicate(timeout=120)
        assert dry.returncode == 0, err
        # 16 messages stored; of the 20 left, the 2 the second part had answered are cached
        assert "would send 18 calls, 2 from the cache" in out  # the cost before paying it
        assert len(server.log) == n_log
        resumed = cli("--resume", "1", db=db)
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err
        assert "resuming run 1: 18 generation calls to make again (2 answered from the call" in err
        assert "18 calls, 2 from the cache, 0 failed" in out
        assert "20 messages judged, 20 calls made" in out
    with Store.open(db, read_only=True) as store:
        prompts = [
            p
            for (p,) in store.con.execute(
                "SELECT prompt FROM messages WHERE status = 'ok'"
            ).fetchall()
        ]
        assert len(prompts) == 36
    # every stored message came from exactly one successful call, across the kill
    assert collections.Counter(successful(server, judge=False)) == collections.Counter(prompts)
    assert len(successful(server, judge=True)) == 36


def test_cli_dry_run_and_errors(tmp_path, profiles):
    db = tmp_path / "cli.duckdb"
    proc = cli(
        "--profiles",
        str(profiles),
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--dry-run",
        "--price-in",
        "3",
        "--trials",
        "2",
        db=db,
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "dry run (nothing stored): 24 slots" in out and "would send 24 calls" in out
    with Store.open(db, read_only=True) as store:
        assert store.list_runs() == []
    for args, message in (
        (("--model", "m"), "give --profiles PATH"),
        (("--resume", "1", "--profiles", str(profiles)), "leave out --profiles"),
        (("--profiles", str(profiles), "--model", "m", "--where", "x=1"), "expected profile=NAME"),
        (
            (
                "--resume",
                "7",
            ),
            "7",
        ),
    ):
        proc = cli(*args, db=db)
        _out, err = proc.communicate(timeout=60)
        assert proc.returncode == 2 and message in err, (args, err)


def test_requests_per_minute_spaces_the_calls(store, profiles, call_starts):
    with FakeLLM(World()) as server:
        s = settings(server, rpm=600.0, trials=1, contexts=[0], judge_model=None, concurrency=8)
        runner.run(store, runner.create_run(store, profiles, s))
        assert len(server.log) == len(call_starts) == 3
    gaps = [b - a for a, b in zip(call_starts, call_starts[1:])]
    assert min(gaps) >= 0.09, gaps  # 600 per minute: one every 0.1 s, although 8 may fly


def test_composition_curve_counts_withheld_leaks(store, profiles, capsys):
    from cimem.analysis.composition import composition_curve
    from cimem.cli.main import main

    with FakeLLM(World()) as server:
        s = settings(server, trials=2, composition_step=1, judge_model=None)
        run_id = runner.create_run(store, profiles, s)
        runner.run(store, run_id)
    curve = composition_curve(store, run_id)
    assert curve.steps == [0, 1, 2, 3]  # 3 withheld memories per context, steps of 1
    assert all(n == 3 * 4 * 2 for n in curve.messages)
    assert curve.leak_rate[0] is None and curve.any_leak[0] is None
    # recompute one point from the stored messages and the offline judge's verdicts
    rows = store.composition_messages(run_id, curve.judge)
    step2 = [
        (json.loads(r.shared_json), set(r.revealed_keys)) for r in rows if r.num_not_to_share == 2
    ]
    expect = sum(len(r & set(extra)) / 2 for (needed, extra), r in step2) / len(step2)
    assert curve.leak_rate[2] == pytest.approx(expect)
    assert 0 <= curve.completeness[0] <= 1
    store.close()
    assert main(["composition", "--db", store.path, "--run", str(run_id), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)["leak_rate"]
    assert printed == pytest.approx(curve.leak_rate)  # rows come unordered: sums may round apart


def test_price_table_prices_a_dry_run(tmp_path, profiles):
    db = tmp_path / "prices.duckdb"
    table = tmp_path / "prices.yaml"
    table.write_text("m:\n  input: 1000000\n  output: 0\nother:\n  input: 5\n  output: 5\n")
    proc = cli(
        "--profiles",
        str(profiles),
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--dry-run",
        "--prices",
        str(table),
        "--trials",
        "1",
        db=db,
    )
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    prompt_tokens = int(out.split("estimated tokens: ")[1].split(" prompt")[0].replace(",", ""))
    assert f"estimated cost: ${prompt_tokens:.4f}" in out  # 1 USD per prompt token
    proc = cli(
        "--profiles",
        str(profiles),
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--dry-run",
        "--prices",
        str(table),
        "--price-in",
        "0",
        db=db,
    )
    assert "estimated cost: $0.0000" in proc.communicate(timeout=60)[0]  # the flag wins
    table.write_text("m: 3\n")
    proc = cli(
        "--profiles", str(profiles), "--model", "m", "--dry-run", "--prices", str(table), db=db
    )
    err = proc.communicate(timeout=60)[1]
    assert proc.returncode == 2 and "model 'm': expected {input:" in err


def test_ctrl_c_stops_cleanly_and_resume_repeats_nothing(tmp_path, profiles):
    db = tmp_path / "interrupted.duckdb"
    world = World()
    world.hold_after = 10
    with FakeLLM(world) as server:
        proc = held_run(profiles, server, db=db)
        journaled(db, 10)  # the answered calls are on disk: a busy machine takes its time
        proc.send_signal(signal.SIGINT)
        try:  # past the database wait (CIMEM_DB_WAIT, 60 s) the way out may take
            _out, err = proc.communicate(timeout=180)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(f"one Ctrl-C did not stop cimem run in 180 s: {proc.communicate()[1]}")
        assert proc.returncode == 130, err
        assert "interrupted: every completed call is cached; continue with" in err
        assert "Traceback" not in err
        with Store.open(db, read_only=True) as store:  # merged on the way out, not left behind
            assert store.table_counts()["llm_cache"] == 10
        assert not list(tmp_path.glob("interrupted.duckdb.calls*"))
        world.hold_after = None
        resumed = cli("--resume", "1", db=db)
        out, err = resumed.communicate(timeout=120)
        assert resumed.returncode == 0, err
        assert "26 calls, 10 from the cache, 0 failed" in out
    assert len(successful(server, judge=False)) == 36


def test_a_run_without_labels_says_so_before_it_starts(tmp_path):
    unlabelled = [
        p | {"contexts": [{"recipient": c["recipient"], "task": c["task"]} for c in p["contexts"]]}
        for p in runner_profiles(2, 2)
    ]
    path = tmp_path / "profiles.json"
    path.write_text(json.dumps(unlabelled))
    proc = cli(
        "--profiles",
        str(path),
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--dry-run",
        db=tmp_path / "n.duckdb",
    )
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert "carries no labels, so this run will have none" in err
    assert "--labels-from RUN" in err and "`cimem label`" in err
    labelled = cli(
        "--profiles",
        str(write_jsonl(tmp_path / "l.jsonl", runner_profiles(2, 2))),
        "--model",
        "m",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--dry-run",
        db=tmp_path / "l.duckdb",
    )
    _, err = labelled.communicate(timeout=120)
    assert "no labels" not in err


def test_a_dry_run_leaves_nothing_behind_not_even_a_run_id(tmp_path, profiles):
    """`run --dry-run` and `label --dry-run` store nothing: the run made next gets the id the
    dry run would have had (the docs' tour numbers its runs so)."""
    from cimem.cli.main import main

    db = str(tmp_path / "dry.duckdb")
    with Store.open(db) as store:
        before = store.table_counts()
    base = ["--db", db, "--profiles", str(profiles), "--model", "m", "--base-url", "http://x/v1"]
    assert main(["run", *base, "--dry-run"]) == 0
    assert main(["label", *base, "--dry-run"]) == 0
    with Store.open(db) as store:
        assert store.table_counts() == before
    with FakeLLM(World()) as server:
        base[base.index("http://x/v1")] = server.base_url
        assert main(["run", *base, "--trials", "1"]) == 0
    with Store.open(db, read_only=True) as store:
        assert store.run_ids() == [1]
