"""The demo's data tables: people's names, recipients and tasks, attribute templates, assistants.

The tables live as JSON under ``cimem/demo/data/`` so the simulator's code reads as rules; this
module loads them once and turns each attribute's value spelling into a seeded generator.

>>> len(CONTEXTS), CONTEXTS[0].recipient, sorted(TEMPLATES) == sorted(DOMAINS)
(22, 'Bank Loan Officer', True)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from importlib import resources
from typing import Any

import orjson

PERSONAS = (
    "demo_sim___the_privacy_fundamentalist__",
    "demo_sim___the_pragmatic__",
    "demo_sim__the_unconcerned__",
)
WEIGHTS = (0.26, 0.64, 0.10)
DOMAINS = (
    "finance",
    "health",
    "mental_health",
    "legal",
    "housing",
    "employment",
    "education",
    "relationships",
    "schedule",
)


def load_table(name: str) -> Any:
    """One of the demo's data tables, shipped as JSON beside this module."""
    return orjson.loads(resources.files("cimem.demo").joinpath("data", name).read_bytes())


_NAMES: dict[str, Any] = load_table("names.json")
FIRST: dict[str, list[str]] = _NAMES["first"]
LAST: list[str] = _NAMES["last"]
STREETS: list[str] = _NAMES["streets"]
CITIES: list[tuple[str, str, str]] = [tuple(c) for c in _NAMES["cities"]]
PEOPLE_NAMES: list[str] = _NAMES["people_names"]
CONDITIONS: list[str] = _NAMES["conditions"]
MEDICATIONS: list[str] = _NAMES["medications"]
WEEKDAYS: list[str] = _NAMES["weekdays"]


@dataclass(frozen=True)
class Context:
    recipient: str
    task: str
    needs: tuple[str, ...]
    forbids: tuple[str, ...]


CONTEXTS = [
    Context(c["recipient"], c["task"], tuple(c["needs"]), tuple(c["forbids"]))
    for c in load_table("contexts.json")
]

Gen = Callable[[random.Random], Any]


def _money(lo: int, hi: int, step: int = 50) -> Gen:
    return lambda r: r.randrange(lo, hi, step)


def _count(lo: int, hi: int) -> Gen:
    return lambda r: r.randint(lo, hi)


def _day(r: random.Random) -> str:
    return (date(2025, 1, 6) + timedelta(days=r.randrange(0, 540))).isoformat()


def _pick(options: list[Any]) -> Gen:
    return lambda r: r.choice(options)


def _case_number(r: random.Random) -> str:
    return f"CV-{r.randint(2024, 2025)}-{r.randint(1000, 9999)}"


def _street_address(r: random.Random) -> str:
    return f"{r.randint(10, 990)} {r.choice(STREETS)}"


def _weekday_hour(r: random.Random) -> str:
    return f"{r.choice(WEEKDAYS)} at {r.randint(8, 17)}:00"


_FIXED_GENERATORS: dict[str, Gen] = {
    "day": _day,
    "case_number": _case_number,
    "street_address": _street_address,
    "weekday_hour": _weekday_hour,
}


def _generator(spec: list[Any]) -> Gen:
    """A value generator from its data-file spelling: ``["money", lo, hi, step]``,
    ``["count", lo, hi]``, ``["pick", options or a list's name in names.json]`` or a fixed name.

    >>> _generator(["count", 3, 3])(random.Random(0))
    3
    """
    kind, *args = spec
    if kind == "money":
        return _money(*args)
    if kind == "count":
        return _count(*args)
    if kind == "pick":
        options = args[0]
        return _pick(_NAMES[options] if isinstance(options, str) else options)
    return _FIXED_GENERATORS[kind]


def _templates(rows: list[dict[str, Any]]) -> list[tuple[str, Gen, str]]:
    return [(r["key"], _generator(r["value"]), r["statement"]) for r in rows]


_ATTRIBUTES: dict[str, Any] = load_table("attributes.json")
THEMES: dict[str, str] = _ATTRIBUTES["themes"]
# per domain: (key suffix, value generator, statement template with {v} and {theme})
TEMPLATES: dict[str, list[tuple[str, Gen, str]]] = {
    domain: _templates(rows) for domain, rows in _ATTRIBUTES["domains"].items()
}
GENERAL = _templates(_ATTRIBUTES["general"])
THEME_DOMAINS_PER_EVENT = 9
ATTRS_PER_DOMAIN = 2
# how tasks relate to domains, for the over-sharer's "near the task" leaks
NEAR: dict[str, set[str]] = {d: set(near) for d, near in _ATTRIBUTES["near"].items()}


# the tasks that need each general attribute ("all": every task)
GENERAL_NEEDS: dict[str, str | list[str]] = _ATTRIBUTES["general_needs"]
