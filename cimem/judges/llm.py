"""The LLM REVEAL judge over any OpenAI-compatible endpoint, with a call cache in the store.

Calls are cached by (model, whole prompt, temperature): judging the same messages again costs
nothing. Calls go through the one call loop (:mod:`cimem.llm.calls`), which records every completed
call as it arrives. A call that still fails after its retries becomes a judgment with status
``error`` (never "nothing revealed"); a reply without JSON becomes ``parse_failure`` with the raw
reply kept.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cimem.judges.base import JudgeOutcome
from cimem.judges.offline import AttributeSpec
from cimem.judges.replies import parse_reply
from cimem.llm.calls import CallOptions, call_many
from cimem.llm.client import ChatResult, ClientSettings, cache_key
from cimem.llm.prompts import PromptTemplate, attribute_list, fill, load_judge_prompt
from cimem.store import JudgeKind, JudgmentStatus, Store


@dataclass(frozen=True)
class JudgeSpec:
    """An LLM judge as the ``judge`` command, a run's settings or the Audit page describe it.
    The API key is never part of it (the client settings hold only the name of its variable)."""

    client: ClientSettings
    prompts: str | None = None  # an official-format prompts.yaml (its adversary_reveal)
    variant: str = "strict"  # the built-in prompt when no prompts file is given
    prompt_text: str | None = None  # an edited prompt text (named edited:VARIANT when it differs)
    temperature: float = 0.0
    concurrency: int = 8
    rpm: float | None = None
    name: str | None = None


def make_llm_judge(
    spec: JudgeSpec, store: Store | None = None, api_key: str | None = None
) -> LLMJudge:
    """The one way to build an LLM judge: its prompt from the spec, the store whose call cache it
    uses, and an explicit key (else the key comes from the variable the client settings name)."""
    prompt = load_judge_prompt(spec.prompts, spec.variant)
    if spec.prompt_text is not None and spec.prompt_text != prompt.text:
        prompt = PromptTemplate(f"edited:{spec.variant}", spec.prompt_text)
    return LLMJudge(
        spec.client,
        prompt,
        store=store,
        concurrency=spec.concurrency,
        temperature=spec.temperature,
        name=spec.name,
        api_key=api_key,
        rpm=spec.rpm,
    )


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
        rpm: float | None = None,
    ):
        self.settings, self.prompt, self.store = settings, prompt, store
        self.concurrency, self.temperature = max(1, concurrency), temperature
        self.rpm = rpm
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
            "rpm": self.rpm,
        }

    def build_messages(self, message: str, attrs: list[AttributeSpec]) -> list[dict[str, str]]:
        text = fill(
            self.prompt,
            attributes=attribute_list([(a.key, a.line or a.statement) for a in attrs]),
            solution=message,
        )
        return [{"role": "user", "content": text}]

    def judge_many(
        self,
        items: list[tuple[str, list[AttributeSpec], str]],
        progress: Callable[[int, int], None] | None = None,
    ) -> list[JudgeOutcome]:
        requests = [self.build_messages(m, attrs) for m, attrs, _ in items]
        params = {"temperature": self.temperature}
        batch = call_many(
            requests,
            [cache_key(self.model, msgs, params) for msgs in requests],
            self.settings,
            CallOptions(
                purpose="judge",
                temperature=self.temperature,
                concurrency=self.concurrency,
                rpm=self.rpm,
            ),
            store=self.store,
            api_key=self._api_key,
            on_progress=(lambda p: progress(p.done, p.total)) if progress else None,
        )
        made = batch.progress
        self.calls += made.made
        self.retries += made.retries
        self.prompt_tokens += made.prompt_tokens
        self.completion_tokens += made.completion_tokens
        return [outcome(res, attrs) for res, (_m, attrs, _p) in zip(batch.results, items)]


def outcome(res: ChatResult, attrs: list[AttributeSpec]) -> JudgeOutcome:
    """A judge call's result as an outcome: an error, a parse failure (raw reply kept), or the
    revealed keys with their evidence."""
    if not res.ok or res.text is None:
        return JudgeOutcome({}, status=JudgmentStatus.ERROR, raw=res.error)
    parsed = parse_reply(res.text, [a.key for a in attrs], {a.key: a.statement for a in attrs})
    if not parsed.ok:
        return JudgeOutcome(
            {}, status=JudgmentStatus.PARSE_FAILURE, raw=res.text, cached=res.cached
        )
    return JudgeOutcome(
        parsed.revealed, raw=res.text, unmatched=parsed.unmatched, cached=res.cached
    )
