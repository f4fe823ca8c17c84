"""Runner benchmark: 10 profiles x 49 contexts x 5 trials (2,450 generations and 2,450 judge calls)
against the scripted local server (its own process, no delay) at concurrency 64, next to a bare
``AsyncOpenAI`` loop sending the same generation and judge requests (target: cimem >= 0.8x the
bare loop's calls per second), and the runner's own CPU and memory overhead per call.

Each side runs in a fresh child process and reports its own CPU time and peak RSS.

    python bench/runner.py [--profiles PATH] [--concurrency 64] [--repeats 2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from llm import server_process

from common import REPO, SHARED, run_child

SETUP = """
import json, sys, time
sys.path.insert(0, {bench!r})
from llm import bare_loop, usage
import cimem.generate.runner as runner
from cimem.store import Store
s = runner.RunSettings(model="gen-m", base_url={url!r}, api_key_env="BENCH_NO_KEY",
                       trials={trials}, concurrency={conc}, judge_model="judge-m",
                       judge_base_url={url!r}, judge_api_key_env="BENCH_NO_KEY")
store = Store.open({db!r})
run_id = runner.create_run(store, {profiles!r}, s)
"""

OURS = (
    SETUP
    + """
cpu0, _ = usage(); t = time.perf_counter()
summary = runner.run(store, run_id)
secs = time.perf_counter() - t; cpu1, rss = usage()
assert summary.failed == 0 and summary.judge_errors == 0, summary
print(json.dumps({{"seconds": secs, "calls": summary.calls + summary.judge_calls,
                  "cpu": cpu1 - cpu0, "rss": rss}}))
"""
)

BARE = (
    SETUP
    + """
from cimem.judges.base import attribute_specs
from cimem.judges.llm import JudgeSpec, make_llm_judge
from cimem.llm.client import ClientSettings
from cimem.llm.prompts import load_task_prompt
slots, memories = runner.plan(store, run_id, s)
ctx = {{(c.profile_id, c.ctx_idx): (c.recipient, c.task) for c in store.contexts_of(run_id)}}
template = load_task_prompt(1)
gen = [runner.prompt_for(template, "official", memories[sl.profile_id],
                         *ctx[(sl.profile_id, sl.ctx_idx)], None) for sl in slots]
specs = attribute_specs(store, run_id)
builder = make_llm_judge(JudgeSpec(ClientSettings(model="judge-m")))
cpu0, _ = usage(); t = time.perf_counter()
_, replies = bare_loop({url!r}, "gen-m", gen, {conc})
judge = [builder.build_messages(r, [a for _, a in specs[sl.profile_id]])
         for r, sl in zip(replies, slots)]
bare_loop({url!r}, "judge-m", judge, {conc}, temperature=0.0)
secs = time.perf_counter() - t; cpu1, rss = usage()
print(json.dumps({{"seconds": secs, "calls": len(gen) + len(judge), "cpu": cpu1 - cpu0,
                  "rss": rss}}))
"""
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profiles", type=Path, default=SHARED / "cimemories" / "profiles.json")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=2, help="alternating rounds; best of each kept")
    args = ap.parse_args()
    if not args.profiles.exists():
        sys.exit(f"{args.profiles} is absent: pass --profiles PATH")
    results: dict[str, list[dict]] = {"bare": [], "cimem": []}
    with server_process() as url, tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeats):
            for side, code in (("bare", BARE), ("cimem", OURS)):
                db = str(Path(tmp) / f"{side}{i}.duckdb")
                results[side].append(
                    run_child(
                        code.format(
                            bench=str(REPO / "bench"),
                            url=url,
                            trials=args.trials,
                            conc=args.concurrency,
                            db=db,
                            profiles=str(args.profiles),
                        )
                    )
                )
    bare = min(results["bare"], key=lambda r: r["seconds"])
    ours = min(results["cimem"], key=lambda r: r["seconds"])
    n = ours["calls"]
    print(
        f"profiles: {args.profiles}; {n:,} calls (generation + judge), concurrency"
        f" {args.concurrency}, best of {args.repeats}"
    )
    print(
        f"bare AsyncOpenAI loop: {bare['seconds']:.2f} s = {bare['calls'] / bare['seconds']:,.0f}"
        f" calls/s; CPU {bare['cpu']:.2f} s; peak RSS {bare['rss']:.0f} MiB"
    )
    ratio = bare["seconds"] / ours["seconds"] * n / bare["calls"]
    print(
        f"cimem run (prompts, cache, storing, judging): {ours['seconds']:.2f} s ="
        f" {n / ours['seconds']:,.0f} calls/s = {ratio:.2f}x the bare loop  (target >= 0.8x);"
        f" CPU {ours['cpu']:.2f} s; peak RSS {ours['rss']:.0f} MiB"
    )
    print(
        f"runner overhead per call: CPU {(ours['cpu'] - bare['cpu']) / n * 1e3:.2f} ms"
        f" (bare loop {bare['cpu'] / bare['calls'] * 1e3:.2f} ms per call); memory"
        f" {(ours['rss'] - bare['rss']) * 1024 / n:.1f} KiB per call"
        f" ({ours['rss'] - bare['rss']:.0f} MiB in all)"
    )


if __name__ == "__main__":
    main()
