"""The settings that define a run, stored with it (never the API key), and what follows from them:
the client of the model under test, the run's one call loop, its prices and its LLM judge."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from cimem.errors import CimemError
from cimem.judges.llm import JudgeSpec
from cimem.llm.calls import CallBatch, CallOptions, CallProgress, call_many
from cimem.llm.client import ClientSettings
from cimem.store import Store


@dataclass
class RunSettings:
    """Everything that defines a run; stored with it (never the API key)."""

    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float | None = None  # None: the provider's default (as the paper)
    max_tokens: int | None = 1024
    trials: int = 5
    level: int = 1
    prompts: str | None = None  # official-format prompts.yaml
    memory_format: str = "official"
    profiles_limit: int | None = None
    profiles: list[str] | None = None  # profile names (--where)
    contexts: list[int] | None = None  # context positions
    composition_step: int | None = None  # add withheld attributes in steps (needs labels)
    concurrency: int = 8
    rpm: float | None = None
    timeout: float = 120.0
    retries: int = 4
    backoff: float = 1.0  # first retry wait in seconds (doubled, jittered)
    price_in: float = 0.0  # USD per million prompt tokens
    price_out: float = 0.0  # USD per million completion tokens
    judge_price_in: float = 0.0
    judge_price_out: float = 0.0
    judge_model: str | None = None  # None: the offline judge
    judge_base_url: str | None = None
    judge_api_key_env: str = "OPENAI_API_KEY"
    judge_prompts: str | None = None
    seed: int = 0

    def client(self) -> ClientSettings:
        return ClientSettings(
            model=self.model,
            base_url=self.base_url,
            api_key_env=self.api_key_env,
            timeout=self.timeout,
            max_retries=self.retries,
            backoff=self.backoff,
        )

    def call(
        self,
        store: Store,
        purpose: str,
        requests: list[list[dict[str, str]]],
        keys: list[str],
        api_key: str | None,
        on_progress: Callable[[CallProgress], None] | None,
    ) -> CallBatch:
        """The model under test answers ``requests`` through the one call loop (call cache,
        concurrency, rpm, retries); ``purpose`` is recorded with each cached call."""
        options = CallOptions(
            purpose, self.temperature, self.max_tokens, self.concurrency, self.rpm
        )
        return call_many(
            requests,
            keys,
            self.client(),
            options,
            store=store,
            api_key=api_key,
            on_progress=on_progress,
        )

    def cost(self, progress: CallProgress) -> float:
        """USD of a batch's calls to the model under test."""
        return progress.cost(self.price_in, self.price_out)

    def judge_spec(self) -> JudgeSpec:
        """The run's LLM judge (needs ``judge_model``), called like the model under test."""
        if not self.judge_model:
            raise CimemError("this run is judged offline: it has no judge model")
        client = replace(
            self.client(),
            model=self.judge_model,
            base_url=self.judge_base_url,
            api_key_env=self.judge_api_key_env,
        )
        return JudgeSpec(client, self.judge_prompts, concurrency=self.concurrency, rpm=self.rpm)

    def params(self, trial: int) -> dict[str, Any]:
        """Sampling parameters that enter the cache key (the trial index keeps samples apart)."""
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "trial": trial}
