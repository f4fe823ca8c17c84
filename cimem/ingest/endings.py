"""How a generation ended and what it cost, read from a provider's raw API response as a file
keeps it (PersistBench's ``memory_raw_api_response``, when it was run with
``store_raw_api_responses``): the finish reason in the OpenAI vocabulary and the token counts.

Three shapes are read, each as its SDK dumps it:

- OpenAI and every OpenAI-compatible server: ``choices[0].finish_reason``,
  ``usage.prompt_tokens`` / ``usage.completion_tokens``;
- Anthropic: ``stop_reason`` (``end_turn`` and ``stop_sequence`` are ``stop``, ``max_tokens`` is
  ``length``), ``usage.input_tokens`` / ``usage.output_tokens``; a batch result wraps the message
  in ``message``;
- Gemini: ``candidates[0].finish_reason`` or ``finishReason`` (``STOP`` is ``stop``,
  ``MAX_TOKENS`` is ``length``, others lower-cased), ``usage_metadata`` or ``usageMetadata``
  with the prompt and candidates token counts.

Anything else, or a value of the wrong type, is not known (None): a raw response is free-form,
and an unreadable one must not stop an import.

>>> ending({"choices": [{"finish_reason": "length"}],
...         "usage": {"prompt_tokens": 812, "completion_tokens": 1024}})
Ending(finish_reason='length', prompt_tokens=812, completion_tokens=1024)
>>> ending({"stop_reason": "max_tokens", "usage": {"input_tokens": 9, "output_tokens": 4096}})
Ending(finish_reason='length', prompt_tokens=9, completion_tokens=4096)
>>> ending({})
Ending(finish_reason=None, prompt_tokens=None, completion_tokens=None)
"""

from __future__ import annotations

from typing import Any, NamedTuple

_INT32_MAX = 2**31 - 1
_ANTHROPIC = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length"}
_GEMINI = {"stop": "stop", "max_tokens": "length"}


class Ending(NamedTuple):
    """How one generation ended (OpenAI's words: stop, length, ...) and its token counts."""

    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


NOT_KNOWN = Ending(None, None, None)


def ending(raw: Any) -> Ending:
    """The ending a raw API response records (see the module's shapes), else :data:`NOT_KNOWN`."""
    if not isinstance(raw, dict) or not raw:
        return NOT_KNOWN
    if isinstance(raw.get("choices"), list):
        return _openai(raw)
    wrapped = raw.get("message")
    message: dict = wrapped if isinstance(wrapped, dict) else raw
    if "stop_reason" in message:
        return _anthropic(message)
    if isinstance(raw.get("candidates"), list):
        return _gemini(raw)
    return NOT_KNOWN


def _openai(raw: dict) -> Ending:
    first = raw["choices"][0] if raw["choices"] else {}
    usage = raw.get("usage")
    return Ending(
        _text(first.get("finish_reason") if isinstance(first, dict) else None),
        _count(usage, "prompt_tokens"),
        _count(usage, "completion_tokens"),
    )


def _anthropic(message: dict) -> Ending:
    reason = _text(message.get("stop_reason"))
    usage = message.get("usage")
    return Ending(
        _ANTHROPIC.get(reason, reason) if reason else None,
        _count(usage, "input_tokens"),
        _count(usage, "output_tokens"),
    )


def _gemini(raw: dict) -> Ending:
    first = raw["candidates"][0] if raw["candidates"] else {}
    first = first if isinstance(first, dict) else {}
    reason = _text(first.get("finish_reason", first.get("finishReason")))
    reason = reason.lower() if reason else None
    snake, camel = raw.get("usage_metadata"), raw.get("usageMetadata")
    return Ending(
        _GEMINI.get(reason, reason) if reason else None,
        _count(snake, "prompt_token_count") or _count(camel, "promptTokenCount"),
        _count(snake, "candidates_token_count") or _count(camel, "candidatesTokenCount"),
    )


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _count(usage: Any, name: str) -> int | None:
    """A token count: a whole number that fits the column, else None."""
    value = usage.get(name) if isinstance(usage, dict) else None
    ok = type(value) is int and 0 <= value <= _INT32_MAX
    return value if ok else None
