"""One loop for every batch of model calls: generation, persona labelling and the LLM judge.

Each request is looked up in the call cache first; the others go to the endpoint at a bounded
concurrency (optionally spaced to a number of requests per minute), each with the client's retries
(exponential backoff with jitter, Retry-After honoured). A completed call is recorded in the call
journal the moment it arrives, so nothing paid for is lost; a call that still fails is returned as
a failure with its error and is never cached, so the next pass makes it again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any

from cimem.llm.client import ChatResult, ClientSettings, chat, from_cache, make_client
from cimem.store.call_cache import CacheTable, CallCache

Messages = list[dict[str, str]]


@dataclass
class CallProgress:
    """Counts of one batch so far, passed to the progress callback after every call."""

    total: int = 0
    done: int = 0  # answered, from the cache or the endpoint, or failed
    cached: int = 0
    failed: int = 0  # failed after their retries
    retries: int = 0  # attempts beyond the first, over all calls made
    prompt_tokens: int = 0  # of the calls made (cached ones cost nothing)
    completion_tokens: int = 0

    @property
    def made(self) -> int:
        """Calls sent to the endpoint (done, not from the cache)."""
        return self.done - self.cached

    def count(self, res: ChatResult) -> None:
        """Count one call made: answered or failed after its retries, and its tokens."""
        self.failed += not res.ok
        self.done += 1
        self.retries += max(0, res.attempts - 1)
        self.prompt_tokens += res.prompt_tokens
        self.completion_tokens += res.completion_tokens

    def cost(self, price_in: float, price_out: float) -> float:
        """USD of the calls made, at prices per million prompt and completion tokens."""
        return (self.prompt_tokens * price_in + self.completion_tokens * price_out) / 1e6


@dataclass(frozen=True)
class CallOptions:
    """How a batch is sent: sampling parameters, concurrency, pacing, and the purpose that is
    recorded with each cached call."""

    purpose: str
    temperature: float | None = None
    max_tokens: int | None = None
    concurrency: int = 8
    rpm: float | None = None  # requests per minute; None: as fast as the concurrency allows


@dataclass
class CallBatch:
    """Every request's result, in request order, and the batch's counts."""

    results: list[ChatResult]
    progress: CallProgress


def call_many(
    requests: Sequence[Messages],
    keys: Sequence[str],
    settings: ClientSettings,
    options: CallOptions,
    *,
    store: CacheTable | None = None,
    api_key: str | None = None,
    on_progress: Callable[[CallProgress], None] | None = None,
) -> CallBatch:
    """Answer every request: from the call cache of ``store`` (``keys[i]`` is request i's cache
    key), else from the endpoint, recording each completed call at once. Without a store nothing
    is cached. ``on_progress`` is called once after the cache look-up and after every call."""
    if len(requests) != len(keys):
        raise ValueError(f"{len(requests)} requests but {len(keys)} cache keys")
    if store is None:
        return asyncio.run(_call_all(requests, keys, settings, options, None, api_key, on_progress))
    with CallCache(store) as cache:
        return asyncio.run(
            _call_all(requests, keys, settings, options, cache, api_key, on_progress)
        )


async def _call_all(
    requests: Sequence[Messages],
    keys: Sequence[str],
    settings: ClientSettings,
    options: CallOptions,
    cache: CallCache | None,
    api_key: str | None,
    on_progress: Callable[[CallProgress], None] | None,
) -> CallBatch:
    """The cache's answers, then the other requests sent concurrently (at most
    ``options.concurrency`` at once, paced to ``options.rpm``), each kept the moment it returns.
    While calls are out, the database is let go (:meth:`~cimem.store.Store.released`): other
    processes may use it, and the answers wait in the journal."""
    prog = CallProgress(total=len(requests))
    results = _cached_results(keys, cache, prog)
    if on_progress:
        on_progress(prog)
    missing = [i for i, r in enumerate(results) if r is None]
    if missing:
        with cache.store.released() if cache is not None else nullcontext():
            call = _Caller(requests, keys, settings, options, cache, prog, results, on_progress)
            await call.all(missing, api_key)
    return CallBatch([r for r in results if r is not None], prog)


@dataclass
class _Caller:
    """Sends a batch's missing requests and keeps each answer as it returns."""

    requests: Sequence[Messages]
    keys: Sequence[str]
    settings: ClientSettings
    options: CallOptions
    cache: CallCache | None
    prog: CallProgress
    results: list[ChatResult | None]
    on_progress: Callable[[CallProgress], None] | None

    async def all(self, missing: list[int], api_key: str | None) -> None:
        client = make_client(self.settings, api_key)
        sem = asyncio.Semaphore(max(1, self.options.concurrency))
        pace = _Pacer(self.options.rpm)
        try:
            await asyncio.gather(*(self.one(client, sem, pace, i) for i in missing))
        finally:
            await client.close()

    async def one(self, client: Any, sem: asyncio.Semaphore, pace: _Pacer, i: int) -> None:
        async with sem:
            await pace.turn()
            res = await chat(
                client,
                self.settings,
                self.requests[i],
                temperature=self.options.temperature,
                max_tokens=self.options.max_tokens,
            )
        if self.cache is not None:  # on disk before anything depends on it
            _cache_answer(self.cache, self.keys[i], self.settings, self.options, res)
        self.prog.count(res)
        self.results[i] = res
        if self.on_progress:
            self.on_progress(self.prog)


def _cached_results(
    keys: Sequence[str], cache: CallCache | None, prog: CallProgress
) -> list[ChatResult | None]:
    """Per request its answer from the cache, or None when it must be called; counted in
    ``prog`` as done."""
    results: list[ChatResult | None] = [None] * len(keys)
    if cache is not None:
        found = cache.get(list(keys))
        for i, k in enumerate(keys):
            if k in found:
                results[i] = from_cache(found[k])
                prog.cached += 1
        prog.done = prog.cached
    return results


def _cache_answer(
    cache: CallCache, key: str, settings: ClientSettings, options: CallOptions, res: ChatResult
) -> None:
    """Record a call that answered; a failed one is never cached, so the next pass retries it."""
    text = res.text if res.ok else None
    if text is not None:
        cache.put(
            key,
            settings.model,
            options.purpose,
            text,
            res.reasoning,
            res.prompt_tokens,
            res.completion_tokens,
            res.finish_reason,
        )


class _Pacer:
    """Spaces call starts at least ``60 / rpm`` seconds apart (no spacing without an rpm).

    One caller at a time takes its turn, and the next slot is measured from when the call really
    went out: the caller's call runs on until its first wait for the network before the turn is
    passed on. So a stall of the event loop (the first call sets up the client, a slow callback)
    delays the following calls instead of releasing them in a burst when it ends.
    """

    def __init__(self, rpm: float | None):
        self.gap = 60.0 / rpm if rpm else 0.0
        self.next_start = 0.0
        self.lock = asyncio.Lock()

    async def turn(self) -> None:
        if not self.gap:
            return
        await self.lock.acquire()
        try:
            wait = self.next_start - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
        except BaseException:  # cancelled while waiting: pass the turn on
            self.lock.release()
            raise
        asyncio.get_running_loop().call_soon(self._pass_on)

    def _pass_on(self) -> None:
        """Runs once the caller's call waits for the network: the next slot starts from now."""
        self.next_start = time.monotonic() + self.gap
        self.lock.release()
