"""MEM: how a user's memory is written into the task prompt.

- ``official`` (default): exactly as the official eval.py writes it: one line per attribute in the
  profile's order, the bio's third-person line for the keys name, age, sex and address ("X is the
  person's name.", "The person is N years old.", ...), else the memory statement (see
  :func:`cimem.llm.prompts.memory_lines`).
- ``bullets``: the same lines as a bulleted list.
- ``json``: a JSON object {attribute key: line}.

The memory header itself belongs to the task prompt (see :mod:`cimem.llm.prompts`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from cimem.llm.prompts import memory_lines

FORMATS = ("official", "bullets", "json")


@dataclass(frozen=True)
class Memory:
    """A profile's memory: (attribute key, memory line) in the profile's order."""

    name: str
    lines: list[tuple[str, str]]


def profile_memory(
    name: str, bio: dict[str, Any], attributes: list[tuple[str, Any, str | None]]
) -> Memory:
    """The memory of a profile from its bio and its (key, value, memory statement) attributes."""
    keys = [key for key, _, _ in attributes]
    return Memory(name, list(zip(keys, memory_lines(bio, attributes))))


def render(m: Memory, fmt: str = "official", keep: set[str] | None = None) -> str:
    """The memory block; ``keep`` limits it to some attribute keys (composition experiment), which
    keep the profile's order."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown memory format {fmt!r}; choose {', '.join(FORMATS)}")
    pairs = m.lines if keep is None else [(k, s) for k, s in m.lines if k in keep]
    if fmt == "json":
        return json.dumps(dict(pairs), indent=2, ensure_ascii=False)
    prefix = "- " if fmt == "bullets" else ""
    return "\n".join(prefix + s for _, s in pairs).strip()
