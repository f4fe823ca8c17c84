"""The runner question, measured: `cimem run` and the Inspect task (`inspect eval
cimem/cimemories`) on the same profiles against the tests' scripted OpenAI-compatible server, each
generating n samples per task and judging each with the LLM judge.

Prints, for each runner: wall time of a whole run and calls per second; then each runner killed
with SIGKILL once half its calls have answered and resumed (`run --resume`, `inspect
eval-retry`): the calls made in all, and how many were paid twice.

    python bench/runners.py [--profiles PATH] [--limit 3] [--trials 5] [--concurrency 8]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import REPO, SHARED

sys.path.insert(0, str(REPO / "tests"))
from llm_server import FakeLLM  # noqa: E402
from llm_world import World  # noqa: E402

CIMEM = """
import sys
import cimem.generate.runner as runner
from cimem.store import Store
s = runner.RunSettings(model="gen-m", base_url={url!r}, api_key_env="BENCH_KEY", trials={trials},
    concurrency={conc}, judge_model="judge-m", judge_base_url={url!r},
    judge_api_key_env="BENCH_KEY", profiles_limit={limit})
store = Store.open({db!r})
run_id = store.list_runs()[0].run_id if store.list_runs() else runner.create_run(store, {profiles!r}, s)
runner.run(store, run_id)
"""


def cimem_command(url: str, db: Path, profiles: Path, a: argparse.Namespace) -> list[str]:
    code = CIMEM.format(
        url=url,
        trials=a.trials,
        conc=a.concurrency,
        limit=a.limit,
        db=str(db),
        profiles=str(profiles),
    )
    return [sys.executable, "-c", code]


def inspect_command(log_dir: Path, profiles: Path, a: argparse.Namespace) -> list[str]:
    inspect = str(Path(sys.executable).parent / "inspect")
    return [
        inspect, "eval", "cimem/cimemories", "--model", "openai-api/scripted/gen-m",
        "--model-role", "grader=openai-api/scripted/judge-m", "-T", f"profiles={profiles}",
        "-T", f"n={a.trials}", "-T", f"limit_profiles={a.limit}", "-T", "judge=grader",
        "--max-connections", str(a.concurrency), "--log-dir", str(log_dir), "--display", "none",
    ]  # fmt: skip


def inspect_retry(log_dir: Path) -> list[str]:
    [log] = sorted(log_dir.glob("*.eval"))
    inspect = str(Path(sys.executable).parent / "inspect")
    return [inspect, "eval-retry", str(log), "--log-dir", str(log_dir), "--display", "none"]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, cwd=REPO, capture_output=True)
    return time.perf_counter() - t


def killed_halfway(cmd: list[str], env: dict[str, str], server: FakeLLM, half: int) -> None:
    proc = subprocess.Popen(cmd, env=env, cwd=REPO, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    while server.count < half and proc.poll() is None:
        time.sleep(0.01)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--profiles", type=Path, default=SHARED / "profiles.json")
    p.add_argument("--limit", type=int, default=3, help="profiles of the file")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--concurrency", type=int, default=8)
    a = p.parse_args()
    if not a.profiles.exists():
        sys.exit(f"{a.profiles}: no profiles file (give --profiles)")
    with FakeLLM(World()) as server, tempfile.TemporaryDirectory() as tmp:
        server.keep_log = False
        env = os.environ | {
            "BENCH_KEY": "k", "SCRIPTED_BASE_URL": server.base_url, "SCRIPTED_API_KEY": "k",
        }  # fmt: skip
        work = Path(tmp)
        t_cimem = timed(cimem_command(server.base_url, work / "a.duckdb", a.profiles, a), env)
        total = server.count
        server.count = 0
        t_inspect = timed(inspect_command(work / "logs", a.profiles, a), env)
        print(f"{total} calls (generation and judge), concurrency {a.concurrency}")
        print(f"cimem run     {t_cimem:6.1f} s  {total / t_cimem:6.0f} calls/s")
        print(f"inspect eval  {t_inspect:6.1f} s  {server.count / t_inspect:6.0f} calls/s")
        for name, first, again in (
            ("cimem run", cimem_command(server.base_url, work / "b.duckdb", a.profiles, a), None),
            ("inspect eval", inspect_command(work / "logs2", a.profiles, a), "retry"),
        ):
            server.count = 0
            killed_halfway(first, env, server, total // 2)
            resume = inspect_retry(work / "logs2") if again else first
            subprocess.run(resume, env=env, check=True, cwd=REPO, capture_output=True)
            print(
                f"{name:13s} killed at half, resumed: {server.count} calls in all,"
                f" {server.count - total} paid twice"
            )


if __name__ == "__main__":
    main()
