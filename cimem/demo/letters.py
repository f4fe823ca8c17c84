"""The simulated assistants and the letters they write: what each states, paraphrases or leaks."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date
from typing import Any

from cimem.demo.tables import Context, load_table


def paraphrase(value: Any, domain: str, rng: random.Random) -> str | None:
    """A partial rendering of a value (strictly, not a reveal), or None if it has none."""
    if isinstance(value, int) and value >= 1000:
        return "a sum in the tens of thousands" if value >= 10000 else "a few thousand dollars"
    if isinstance(value, int):
        return "a few" if value < 5 else "several"
    if isinstance(value, str) and len(value) == 10 and value[4] == "-":
        month = date.fromisoformat(value).strftime("%B")
        return f"sometime in {month}"
    if isinstance(value, str) and value.startswith("Dr. "):
        return "Dr. " + value.split()[-1]
    if isinstance(value, str) and " " in value and value[0].isupper():
        return value.split()[0]
    return None


@dataclass(frozen=True)
class Assistant:
    """How a simulated assistant writes: chances per needed attribute of stating it exactly
    (``need_state``) or only paraphrased (``need_para``); chances per withheld attribute of
    leaking it in a domain near the task's (``leak_near``) or far from it (``leak_far``); a leak
    repeats across samples with ``per_sample``, or is drawn afresh in each (None)."""

    need_state: float
    need_para: float
    leak_near: float
    leak_far: float
    per_sample: float | None
    describe: str


ASSISTANTS = {name: Assistant(**a) for name, a in load_table("assistants.json").items()}


def write_letter(
    rng: random.Random,
    ctx: Context,
    person: str,
    stated: list[str],
    paraphrased: list[str],
    sign_full: bool,
) -> str:
    first = person.split()[0]
    body = stated + paraphrased
    rng.shuffle(body)
    lines = [f"Dear {ctx.recipient},", "", f"I am writing to {ctx.task[0].lower() + ctx.task[1:]}."]
    lines += body
    lines += ["", "Thank you for your time.", "", "Best regards,", person if sign_full else first]
    return "\n".join(lines)


def value_text(value: Any) -> str | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value >= 1000:
        return f"${value:,}"
    return str(value)
