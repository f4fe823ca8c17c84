"""Helpers of the LLM benchmarks: the scripted server in its own process, and the baseline, a bare
``AsyncOpenAI`` loop that sends given requests at a given concurrency and does nothing else."""

from __future__ import annotations

import asyncio
import resource
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

from common import REPO


@contextmanager
def server_process() -> Iterator[str]:
    """The tests' scripted OpenAI-compatible server (no faults, no delay) in a child process."""
    proc = subprocess.Popen(
        [sys.executable, str(REPO / "tests" / "llm_world.py")],
        cwd=REPO / "tests",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        if not url.startswith("http"):
            sys.exit("the benchmark server did not start")
        yield url
    finally:
        proc.stdin.close()
        proc.terminate()
        proc.wait()


async def _bare(
    base_url: str,
    model: str,
    requests: list[list[dict]],
    concurrency: int,
    temperature: float | None,
) -> list[str]:
    from openai import AsyncOpenAI

    client = AsyncOpenAI(api_key="bench", base_url=base_url, max_retries=0, timeout=120)
    sem = asyncio.Semaphore(concurrency)
    out: list[str] = [""] * len(requests)

    async def one(i: int) -> None:
        kwargs = {"temperature": temperature} if temperature is not None else {}
        async with sem:
            resp = await client.chat.completions.create(model=model, messages=requests[i], **kwargs)
        out[i] = resp.choices[0].message.content

    try:
        await asyncio.gather(*(one(i) for i in range(len(requests))))
    finally:
        await client.close()
    return out


def bare_loop(
    base_url: str,
    model: str,
    requests: list[list[dict]],
    concurrency: int,
    temperature: float | None = None,
) -> tuple[float, list[str]]:
    """(seconds, replies) of the baseline."""
    t = time.perf_counter()
    replies = asyncio.run(_bare(base_url, model, requests, concurrency, temperature))
    return time.perf_counter() - t, replies


def usage() -> tuple[float, float]:
    """(CPU seconds, peak RSS MiB) of this process so far."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime, r.ru_maxrss / 1024
