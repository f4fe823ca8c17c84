"""Judge benchmark: re-judge a whole 10-profile run (2,450 messages) against the scripted local
server (its own process, no delay) at concurrency 32, next to a bare ``AsyncOpenAI`` loop sending
the same requests in the same run (target: cimem >= 0.8x the bare loop's calls per second); the
same re-judge again from the call cache; and the offline judge's verdicts per second.

    python bench/judge.py [--file results.jsonl] [--concurrency 32] [--repeats 2]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from llm import bare_loop, server_process

from cimem.ingest import ingest_file
from cimem.judges.base import OfflineJudge, attribute_specs, rejudge
from cimem.judges.llm import JudgeSpec, LLMJudge, make_llm_judge
from cimem.llm.client import ClientSettings
from cimem.store import Store

from common import fabricated


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--file", type=Path, help="results file (default: fabricate 10 profiles)")
    ap.add_argument("--concurrency", type=int, default=32)
    ap.add_argument("--repeats", type=int, default=2, help="alternating rounds; best of each kept")
    args = ap.parse_args()
    path = args.file or fabricated(10)
    with (
        tempfile.TemporaryDirectory() as tmp,
        Store.open(Path(tmp) / "b.duckdb") as store,
        server_process() as url,
    ):
        run_id = ingest_file(store, path).run_id
        rows = store.messages_to_judge(run_id, None, None, None, None, None)
        specs = attribute_specs(store, run_id)

        def judge(model: str) -> LLMJudge:
            client = ClientSettings(model=model, base_url=url, api_key_env="BENCH_NO_KEY")
            spec = JudgeSpec(client, concurrency=args.concurrency)
            return make_llm_judge(spec, store)

        probe = judge("judge-m")
        requests = [probe.build_messages(m.text, [s for _, s in specs[m.profile_id]]) for m in rows]
        n = len(requests)
        bare, ours = [], []
        for i in range(args.repeats):
            secs, _ = bare_loop(url, "judge-m", requests, args.concurrency, temperature=0.0)
            bare.append(secs)
            j = judge(f"judge-{i}")  # a new model name: nothing cached
            res = rejudge(store, run_id, j)
            assert j.calls == n and res.errors == 0, (j.calls, res)
            ours.append(res.seconds)
        t = time.perf_counter()
        cached = rejudge(store, run_id, judge("judge-0"))
        cached_secs = time.perf_counter() - t
        offline = rejudge(store, run_id, OfflineJudge())

    b, o = min(bare), min(ours)
    print(f"file: {path}; {n:,} messages, concurrency {args.concurrency}, best of {args.repeats}")
    print(f"bare AsyncOpenAI loop: {b:.2f} s = {n / b:,.0f} calls/s")
    print(
        f"cimem judge (calls, parsing, {res.verdicts:,} verdicts stored): {o:.2f} s ="
        f" {n / o:,.0f} calls/s = {b / o:.2f}x the bare loop  (target >= 0.8x)"
    )
    print(
        f"the same re-judge from the call cache: {cached_secs:.2f} s, {cached.cached:,} cached,"
        " 0 calls"
    )
    print(
        f"offline judge: {offline.verdicts:,} verdicts in {offline.seconds:.2f} s ="
        f" {offline.verdicts / offline.seconds:,.0f} verdicts/s"
        f" ({n / offline.seconds:,.0f} messages/s)"
    )


if __name__ == "__main__":
    main()
