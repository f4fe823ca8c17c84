"""The LLM REVEAL judge over any OpenAI-compatible endpoint, with a call cache in the store.

Calls are cached by (model, whole prompt, temperature): judging the same messages again costs
nothing. Every completed call is written to the cache as it arrives. A call that still fails after
its retries becomes a judgment with status ``error`` (never "nothing revealed"); a reply without
JSON becomes ``parse_failure`` with the raw reply kept.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from cimem.judges.base import JudgeOutcome
from cimem.judges.offline import AttributeSpec
from cimem.judges.replies import parse_reply
from cimem.llm.client import ChatResult, ClientSettings, cache_key, chat, from_cache, make_client
from cimem.llm.prompts import PromptTemplate, attribute_list, fill
from cimem.store import JudgeKind, JudgmentStatus, Store
from cimem.store.call_cache import CallCache


class LLMJudge:
    kind = JudgeKind.LLM

    def __init__(
        self,
        settings: ClientSettings,
        prompt: PromptTemplate,
        store: Store | None = None,
        concurrency: int = 8,
        temperature: float = 0.0,
        name: str | None = None,
        api_key: str | None = None,
    ):
        self.settings, self.prompt, self.store = settings, prompt, store
        self.concurrency, self.temperature = max(1, concurrency), temperature
        self.model = settings.model
        self.name = name or f"{settings.model} ({prompt.name})"
        self._api_key = api_key  # used for the calls only; never stored or logged
        self.calls = 0
        self.retries = 0
        self.prompt_tokens = 0  # of the calls made (cached ones cost nothing)
        self.completion_tokens = 0

    def prompt_hash(self) -> str:
        return self.prompt.hash

    def config(self) -> dict[str, Any]:
        return {
            "client": self.settings.describe(),
            "prompt": self.prompt.name,
            "temperature": self.temperature,
            "concurrency": self.concurrency,
        }

    def build_messages(self, message: str, attrs: list[AttributeSpec]) -> list[dict[str, str]]:
        text = fill(
            self.prompt,
            attributes=attribute_list([(a.key, a.statement) for a in attrs]),
            solution=message,
        )
        return [{"role": "user", "content": text}]

    def judge_many(
        self,
        items: list[tuple[str, list[AttributeSpec], str]],
        progress: Callable[[int, int], None] | None = None,
    ) -> list[JudgeOutcome]:
        return asyncio.run(self._judge_all(items, progress))

    async def _judge_all(self, items, progress) -> list[JudgeOutcome]:
        requests = [self.build_messages(m, attrs) for m, attrs, _ in items]
        params = {"temperature": self.temperature}
        keys = [cache_key(self.model, msgs, params) for msgs in requests]
        cache = CallCache(self.store) if self.store is not None else None
        try:
            return await self._judge_uncached(items, requests, keys, cache, progress)
        finally:
            if cache is not None:
                cache.close()

    async def _judge_uncached(
        self, items, requests, keys, cache: CallCache | None, progress
    ) -> list[JudgeOutcome]:
        cached = cache.get(keys) if cache is not None else {}
        results: list[ChatResult | None] = [None] * len(items)
        for i, k in enumerate(keys):
            if k in cached:
                results[i] = from_cache(cached[k])
        done = sum(r is not None for r in results)
        if progress:
            progress(done, len(items))
        todo = [i for i, r in enumerate(results) if r is None]
        if todo:
            client = make_client(self.settings, self._api_key)
            sem = asyncio.Semaphore(self.concurrency)

            async def one(i: int) -> None:
                nonlocal done
                async with sem:
                    res = await chat(
                        client, self.settings, requests[i], temperature=self.temperature
                    )
                self.calls += 1
                self.retries += res.attempts - 1
                self.prompt_tokens += res.prompt_tokens
                self.completion_tokens += res.completion_tokens
                if res.ok and cache is not None:
                    cache.put(
                        keys[i],
                        self.model,
                        "judge",
                        res.text,
                        res.reasoning,
                        res.prompt_tokens,
                        res.completion_tokens,
                    )
                results[i] = res
                done += 1
                if progress:
                    progress(done, len(items))

            try:
                await asyncio.gather(*(one(i) for i in todo))
            finally:
                await client.close()
        out = []
        for (_message, attrs, _person), res in zip(items, results):
            assert res is not None
            if not res.ok:
                out.append(JudgeOutcome({}, status=JudgmentStatus.ERROR, raw=res.error))
                continue
            parsed = parse_reply(
                res.text, [a.key for a in attrs], {a.key: a.statement for a in attrs}
            )
            if not parsed.ok:
                out.append(
                    JudgeOutcome(
                        {}, status=JudgmentStatus.PARSE_FAILURE, raw=res.text, cached=res.cached
                    )
                )
            else:
                out.append(
                    JudgeOutcome(
                        parsed.revealed, raw=res.text, unmatched=parsed.unmatched, cached=res.cached
                    )
                )
        return out
