"""Several machines' work into one lake at once, as issue's lab does it: an import, a re-judging,
people's verdicts and a `cimem run` (killed with SIGKILL halfway, then resumed by another process)
write at the same time while two app servers serve the lake. Nothing is lost or written twice,
each app server shows the new runs on its next load, and the final numbers equal the same work
done one after another into a file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from app_server import chromium, chromium_or_skip, serving
from full_size import fill_sheet, truth_table
from lakes import cimem, differences, numbers
from llm_server import HUNG, FakeLLM
from llm_world import World

from cimem.store import Store

from conftest import REPO, shared_file
from fixtures import runner_profiles, write_jsonl

pytestmark = [pytest.mark.slow, *chromium_or_skip()]


def command(db: str, args: str) -> list[str]:
    return [sys.executable, "-m", "cimem", *args.split(), "--db", db]


def started(db: str, args: str) -> subprocess.Popen:
    return subprocess.Popen(
        command(db, args), cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def prepared(db: str, work: Path, full_run) -> dict[str, str]:
    """The lab's starting point: the judged run, and its audit sample filled by a reviewer."""
    work.mkdir()
    cimem(db, f"ingest {full_run.judged} --name judged")
    cimem(db, f"audit-sample --run judged --judge 1 --size 40 --out {work / 'sample.csv'}")
    fill_sheet(work / "sample.csv", truth_table(full_run.truth), {"ana": work / "ana.csv"})
    profiles = write_jsonl(work / "profiles.jsonl", runner_profiles(2, 4))
    return {
        "ingest": f"ingest {shared_file('results_sample.jsonl')}",
        "judge": "judge --run judged --offline --name offline",
        "human": f"human import {work / 'ana.csv'} --run judged",
        "run": f"run --profiles {profiles} --name made --model gen-m --trials 3"
        " --concurrency 4 --timeout 600 --chunk 8",
    }


def test_writers_at_once_on_a_lake_end_as_one_after_another_on_a_file(full_run, lake, tmp_path):
    file_db = str(tmp_path / "lab.duckdb")
    world = World()
    with FakeLLM(world) as server:
        on_file = prepared(file_db, tmp_path / "file", full_run)
        for step in ("ingest", "judge", "human", "run"):
            cimem(file_db, on_file[step] + (f" --base-url {server.base_url}" * (step == "run")))
        on_lake = prepared(lake, tmp_path / "lake", full_run)
        with serving(lake) as first, serving(lake) as second, chromium() as browser:
            pages = [browser.new_page(viewport={"width": 1440, "height": 1000}) for _ in range(2)]
            for page, base in zip(pages, (first, second)):
                data_page(page, base)
            world.hold_after = 12  # of 24 generations: the run is killed with its half stored
            run = started(lake, on_lake["run"] + f" --base-url {server.base_url}")
            others = [started(lake, on_lake[step]) for step in ("ingest", "judge", "human")]
            wait_for_hung(server, run)
            os.kill(run.pid, signal.SIGKILL)
            run.wait()
            for proc in others:
                out, err = proc.communicate(timeout=600)
                assert proc.returncode == 0, err[-3000:]
            world.hold_after = None
            made = next(r for r in json.loads(cimem(lake, "runs --json")) if r["name"] == "made")
            cimem(lake, f"run --resume {made['run_id']}")  # another process: another machine
            for page, base in zip(pages, (first, second)):
                text = data_page(page, base)
                assert "results_sample" in text and "made" in text
    with Store.open(lake, read_only=True) as store:
        ids = store.con.execute(
            "SELECT count(*), count(DISTINCT message_id) FROM messages"
        ).fetchall()[0]
        slots = store.con.execute(
            "SELECT count(*), count(DISTINCT (run_id, profile_id, ctx_idx, trial)) FROM messages"
        ).fetchall()[0]
    assert ids[0] == ids[1] and slots[0] == slots[1]  # no id given twice, no message made twice
    on_lake, on_file = numbers(lake), numbers(file_db)
    assert on_lake == on_file, list(differences(on_lake, on_file))[:10]


def wait_for_hung(server: FakeLLM, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + 180
    while not any(r.status == HUNG for r in server.log):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.05)
    time.sleep(1.0)  # the stored half is committed


def data_page(page, base: str) -> str:
    """The Data page's text, loaded afresh, with no error on it."""
    page.goto(f"{base}/data")
    page.get_by_role("heading", name="Data", exact=True).first.wait_for(timeout=60000)
    page.wait_for_timeout(1500)
    assert page.locator('[data-testid="stException"]').count() == 0
    return page.locator("body").inner_text()
