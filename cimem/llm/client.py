"""One client for every OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp's server):
settings, the API key from the environment (never stored), retries with exponential backoff and
jitter that honour Retry-After, reasoning kept apart from the answer, token usage and how the
answer ended (``finish_reason``: "length" when it hit the token limit).

Retries are ours (the client's own are off), so every attempt is counted and a call that still
fails is returned as a failure with its error, never as empty text.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from cimem.errors import CimemError
from cimem.store import CachedCompletion

if TYPE_CHECKING:
    from openai import AsyncOpenAI

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
NO_KEY = "not-needed"


@dataclass(frozen=True)
class ClientSettings:
    """Where and how to call a model. The key itself is never part of the settings."""

    model: str
    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    timeout: float = 120.0
    max_retries: int = 4
    backoff: float = 1.0  # first wait in seconds, doubled per retry, with jitter
    max_backoff: float = 30.0

    def describe(self) -> dict[str, Any]:
        """What may be stored about the settings: no key, only the variable's name."""
        return {
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
        }


def resolve_api_key(settings: ClientSettings, explicit: str | None = None) -> str:
    """The key: given explicitly (the app passes one from its secrets), else from the
    environment variable (none when ``api_key_env`` is empty: the app's visitors never get the
    server's key); local servers that need none get a placeholder."""
    key = explicit or (os.environ.get(settings.api_key_env) if settings.api_key_env else None)
    if key:
        return key
    if settings.base_url is None:
        raise CimemError(
            f"no API key: set the environment variable {settings.api_key_env}"
            " (or point --base-url at a local server)"
        )
    return NO_KEY


def make_client(settings: ClientSettings, api_key: str | None = None) -> AsyncOpenAI:
    # openai is imported when a client is made: importing it costs about 0.7 s, which every
    # command that never calls a model (and the app's first page) would pay
    from openai import AsyncOpenAI

    return AsyncOpenAI(
        api_key=resolve_api_key(settings, api_key),
        base_url=settings.base_url,
        timeout=settings.timeout,
        max_retries=0,
    )


@dataclass
class ChatResult:
    """A completed call (text set) or a failed one (error set)."""

    text: str | None
    reasoning: str | None = None
    error: str | None = None
    attempts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    raw_status: list[int] = field(default_factory=list)
    finish_reason: str | None = None  # the endpoint's: stop, length, ...; None: it did not say

    @property
    def ok(self) -> bool:
        return self.error is None and self.text is not None


def split_reasoning(content: str | None, reasoning: str | None) -> tuple[str, str | None]:
    """The answer without ``<think>`` blocks, and the reasoning (field or blocks)."""
    content = content or ""
    blocks = _THINK.findall(content)
    if blocks:
        content = _THINK.sub("", content)
        reasoning = (reasoning or "") + "".join(blocks)
    elif "</think>" in content.lower():  # an opening tag the server swallowed
        head, _, content = content.partition("</think>")
        reasoning = (reasoning or "") + head
    return content.strip(), reasoning


def _retry_after(exc: Exception) -> float | None:
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None) or {}
    value = headers.get("retry-after") if hasattr(headers, "get") else None
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def _retryable(exc: Exception) -> bool:
    import openai  # already loaded: an exception of it came (see make_client)

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code >= 500 or exc.status_code in (408, 409, 429)
    return False


async def chat(
    client: AsyncOpenAI,
    settings: ClientSettings,
    messages: list[dict[str, str]],
    *,
    temperature: float | None = None,
    max_tokens: int | None = None,
    seed: int | None = None,
) -> ChatResult:
    """One chat completion with retries. Never raises for API trouble: returns a failed result."""
    kwargs: dict[str, Any] = {"model": settings.model, "messages": messages}
    if temperature is not None:
        kwargs["temperature"] = temperature
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    if seed is not None:
        kwargs["seed"] = seed
    attempts = 0
    statuses: list[int] = []
    while True:
        attempts += 1
        try:
            resp = await client.chat.completions.create(**kwargs)
            choice = resp.choices[0]
            if choice.message.content is None:
                raise _EmptyReply("the endpoint returned no message content")
            text, reasoning = split_reasoning(choice.message.content, _reasoning(choice.message))
            usage = getattr(resp, "usage", None)
            return ChatResult(
                text=text,
                reasoning=reasoning,
                attempts=attempts,
                prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                raw_status=statuses + [200],
                finish_reason=getattr(choice, "finish_reason", None) or None,
            )
        except Exception as exc:  # every failure is recorded, retried or returned
            status = getattr(exc, "status_code", None)
            statuses.append(int(status) if isinstance(status, int) else 0)
            retry = isinstance(exc, _EmptyReply) or _retryable(exc)
            if not retry or attempts > settings.max_retries:
                cause = _root_cause(exc)
                return ChatResult(
                    text=None,
                    error=f"{type(exc).__name__}: {exc}{cause}"[:500],
                    attempts=attempts,
                    raw_status=statuses,
                )
            wait = _retry_after(exc)
            if wait is None:
                wait = min(settings.max_backoff, settings.backoff * 2 ** (attempts - 1))
                wait *= 0.5 + random.random()  # jitter
            await asyncio.sleep(wait)


def _reasoning(msg: Any) -> str | None:
    """The reasoning a server returns beside the answer, under either of its usual names."""
    extra = getattr(msg, "model_extra", None) or {}
    return (
        getattr(msg, "reasoning_content", None)
        or extra.get("reasoning_content")
        or extra.get("reasoning")
    )


def _root_cause(exc: BaseException) -> str:
    """The innermost cause of an error, e.g. "[Errno 111] Connection refused" under the client's
    "Connection error.", in parentheses ("" when there is none)."""
    found, inner = "", exc.__cause__ or exc.__context__
    for _ in range(8):
        if inner is None:
            break
        found = str(inner) or found
        inner = inner.__cause__ or inner.__context__
    return f" ({found})" if found and found != str(exc) else ""


def from_cache(row: CachedCompletion) -> ChatResult:
    """A cached completion as a result."""
    return ChatResult(
        text=row.response,
        reasoning=row.reasoning,
        cached=True,
        prompt_tokens=row.prompt_tokens,
        completion_tokens=row.completion_tokens,
        finish_reason=row.finish_reason,
    )


class _EmptyReply(Exception):
    pass


def cache_key(model: str, messages: list[dict[str, str]], params: dict[str, Any]) -> str:
    """The cache key of a call: model, the whole prompt, sampling parameters (incl. trial)."""
    blob = orjson.dumps(
        {"model": model, "messages": messages, "params": params}, option=orjson.OPT_SORT_KEYS
    )
    return hashlib.sha256(blob).hexdigest()
