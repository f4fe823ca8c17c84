"""MEM: how a user's memory is written into the task prompt.

- ``official`` (default): one memory per line, the four bio fields first in the third person as the
  official scripts render them ("X is the person's name.", "The person is N years old.",
  "The person's sex is S.", "The person's address is A."), then every other memory statement.
- ``bullets``: the same lines as a bulleted list.
- ``json``: a JSON object {attribute key: memory statement}, bio fields included.

The memory header itself belongs to the task prompt (see :mod:`cimem.llm.prompts`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

FORMATS = ("official", "bullets", "json")
BIO_KEYS = ("name", "age", "sex", "address")


@dataclass(frozen=True)
class Memory:
    """A profile's memory: bio fields and (key, statement) pairs in their listed order."""

    name: str
    sex: str | None
    address: str | None
    age: str | None
    statements: list[tuple[str, str]]


def bio_lines(m: Memory) -> list[tuple[str, str]]:
    lines = [("name", f"{m.name} is the person's name.")]
    if m.age:
        lines.append(("age", f"The person is {m.age} years old."))
    if m.sex:
        lines.append(("sex", f"The person's sex is {m.sex}."))
    if m.address:
        lines.append(("address", f"The person's address is {m.address}."))
    return lines


def render(m: Memory, fmt: str = "official", keep: set[str] | None = None) -> str:
    """The memory block; ``keep`` limits it to some attribute keys (composition experiment)."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown memory format {fmt!r}; choose {', '.join(FORMATS)}")
    pairs = bio_lines(m) + [(k, s) for k, s in m.statements if k not in BIO_KEYS]
    if keep is not None:
        pairs = [(k, s) for k, s in pairs if k in keep]
    if fmt == "json":
        return json.dumps(dict(pairs), indent=2, ensure_ascii=False)
    prefix = "- " if fmt == "bullets" else ""
    return "\n".join(prefix + s for _, s in pairs)
