"""The one validation layer of the input formats: each field declared once (path, kind, required).

A :class:`Kind` says what a value must be (a non-empty string, a fraction in [0, 1], an index the
store's INTEGER columns hold, 0 or 1, ...) and how to say so; a :class:`Schema` maps each field of a
format to its kind. Readers ask a :class:`Checker` bound to (file, place) for a field by its schema
path, so a bad value anywhere gives the same one-line error: file, line or record, field path, what
was expected and what was found. Hot columns (label fractions, verdict values) are checked in bulk
by :func:`check_fractions` and :func:`check_binary` at a fraction of a per-value loop's cost.

Hand-written on purpose: a model-per-format library would parse every verdict into an object,
where the official reader keeps them as flat lists for numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

from cimem.errors import InputError, describe

INT32_MAX = 2**31 - 1
MAX_TRIALS = 64  # trials 0..63: the metrics keep one bit per trial in a uint64
MISSING: Any = object()


@dataclass(frozen=True)
class Kind:
    """What one field must hold, and how an error says it."""

    expected: str
    test: Callable[[Any], bool]
    optional: bool = False  # null (or absent) allowed

    def ok(self, value: Any) -> bool:
        if value is None or value is MISSING:
            return self.optional
        return self.test(value)

    def or_null(self) -> Kind:
        return Kind(self.expected + " or null", self.test, optional=True)


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_number(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v)


TEXT = Kind("a string", lambda v: type(v) is str)
NAME = Kind("a non-empty string", lambda v: type(v) is str and v.strip() != "")
OBJECT = Kind("a JSON object", lambda v: type(v) is dict)
NONEMPTY_OBJECT = Kind("a non-empty JSON object", lambda v: type(v) is dict and len(v) > 0)
LIST = Kind("a JSON list", lambda v: type(v) is list)
NONEMPTY_LIST = Kind("a non-empty JSON list", lambda v: type(v) is list and len(v) > 0)
BOOL = Kind("true or false", lambda v: type(v) is bool)
BINARY = Kind("0 or 1", lambda v: type(v) is int and v in (0, 1))
FRACTION = Kind("a number between 0 and 1", lambda v: _is_number(v) and 0 <= v <= 1)
INDEX = Kind(f"an integer between 0 and {INT32_MAX}", lambda v: _is_int(v) and 0 <= v <= INT32_MAX)
TRIAL = Kind(
    f"a trial index between 0 and {MAX_TRIALS - 1}",
    lambda v: _is_int(v) and 0 <= v < MAX_TRIALS,
)
BIO_VALUE = Kind(
    "a string or a number",
    lambda v: type(v) is str or (type(v) in (int, float) and not isinstance(v, bool)),
    optional=True,
)
ANY_JSON = Kind("a JSON value", lambda v: True, optional=True)
KEY_LIST = Kind(
    "a list of attribute keys", lambda v: type(v) is list and all(type(k) is str for k in v)
)


@dataclass(frozen=True)
class Schema:
    """A format's fields: ``{path: kind}``. Paths use ``*`` for any key and ``[]`` for any item."""

    name: str
    fields: dict[str, Kind]

    def kind(self, path: str) -> Kind:
        return self.fields[path]


OFFICIAL = Schema(
    "official",
    {
        "(record)": OBJECT,
        "bio": OBJECT,
        "bio.name": NAME,
        "bio.sex": BIO_VALUE,
        "bio.address": BIO_VALUE,
        "bio.age": BIO_VALUE,
        "information_attributes": NONEMPTY_OBJECT,
        "information_attributes.*": OBJECT,
        "information_attributes.*.value": ANY_JSON,
        "information_attributes.*.memory_statement": TEXT,
        "information_attributes.*.information_domain": TEXT.or_null(),
        "information_attributes.*.event": TEXT.or_null(),
        "contexts": LIST,
        "contexts[]": OBJECT,
        "contexts[].recipient": NAME,
        "contexts[].task": NAME,
        "contexts[].labels_*": OBJECT,
        "contexts[].labels_*.*": OBJECT,
        "contexts[].labels_*.*.necessary": FRACTION,
        "contexts[].labels_*.*.private": FRACTION,
        "contexts[].labels_*.*.unlabeled": FRACTION,
        "contexts[].<trial key>": OBJECT,
        "contexts[].<trial key>.prompt": TEXT.or_null(),
        "contexts[].<trial key>.to_share_attributes": KEY_LIST.or_null(),
        "contexts[].<trial key>.not_to_share_attributes": KEY_LIST.or_null(),
        "contexts[].<trial key>.model_solution": OBJECT.or_null(),
        "contexts[].<trial key>.model_solution.response_solution": TEXT.or_null(),
        "contexts[].<trial key>.model_solution.revealed_attributes": OBJECT.or_null(),
        "contexts[].<trial key>.model_solution.revealed_attributes.*": BINARY,
        "contexts[].<trial key>.model_solution.revealed_attributes_explanation": OBJECT.or_null(),
    },
)
"""The official run-output format (one profile object per line); profiles.json uses its first
part (bio, information_attributes, contexts with recipient and task)."""

PERSISTBENCH = Schema(
    "persistbench",
    {
        "(document)": OBJECT,
        "metadata": OBJECT.or_null(),
        "metadata.models": LIST.or_null(),
        "metadata.models[]": OBJECT,
        "metadata.models[].name": NAME,
        "metadata.judge_model": TEXT.or_null(),
        "metadata.prompt_template": TEXT.or_null(),
        "config": OBJECT.or_null(),
        "entries": Kind(
            "a non-empty object or list of entries",
            lambda v: type(v) in (dict, list) and len(v) > 0,
        ),
        "entries[]": OBJECT,
        "entries[].cim_metadata": OBJECT,
        "entries[].cim_metadata.name": NAME,
        "entries[].cim_metadata.attribute_memory_map": NONEMPTY_OBJECT,
        "entries[].cim_metadata.attribute_memory_map.*": NAME,
        "entries[].cim_recipient": NAME,
        "entries[].cim_task": NAME,
        "entries[].query": TEXT.or_null(),
        "entries[].required_attributes": KEY_LIST.or_null(),
        "entries[].forbidden_attributes": KEY_LIST.or_null(),
        "entries[].results": OBJECT.or_null(),
        "entries[].results.*": OBJECT,
        "entries[].results.*.generations": LIST,
        "entries[].results.*.generations[]": OBJECT,
        "entries[].results.*.generations[].generation_index": TRIAL.or_null(),
        "entries[].results.*.generations[].memory_response": TEXT.or_null(),
        "entries[].results.*.generations[].judge": OBJECT.or_null(),
        "entries[].results.*.generations[].judge.per_attribute": LIST.or_null(),
        "entries[].results.*.generations[].judge.per_attribute[]": OBJECT,
        "entries[].results.*.generations[].judge.per_attribute[].revealed": BOOL,
        "entries[].results.*.generations[].judge.per_attribute[].evidence": TEXT.or_null(),
    },
)
"""PersistBench CIM output (one JSON document)."""

HF = Schema(
    "hf",
    {
        "name": NAME,
        "attribute": NAME,
        "memory_statement": TEXT.or_null(),
        "label": Kind("1.0, 0.0 or null", lambda v: v in (0.0, 1.0), optional=True),
        "prompt": NAME,
    },
)
"""Rows of the Hugging Face release: one row per (profile, context, attribute)."""


class Checker:
    """Checks fields of one record against a schema; every error names file, place and field."""

    def __init__(self, schema: Schema, path: str, place: str):
        self.schema, self.path, self.place = schema, path, place

    def fail(
        self, field: str, expected: str, got: Any = MISSING, place: str | None = None
    ) -> NoReturn:
        got_text = "missing" if got is MISSING else "null" if got is None else describe(got)
        raise InputError(self.path, place or self.place, field, expected, got=got_text)

    def value(self, rule: str, value: Any, field: str | None = None) -> Any:
        """``value`` checked against the schema's rule; ``field`` is its concrete path."""
        kind = self.schema.kind(rule)
        if not kind.ok(value):
            self.fail(field or rule, kind.expected, value)
        return None if value is MISSING else value

    def get(self, mapping: dict, key: str, rule: str, field: str | None = None) -> Any:
        """``mapping[key]`` checked against the rule (absent counts as null)."""
        return self.value(rule, mapping.get(key, MISSING), field)

    def key_list(
        self,
        mapping: dict,
        key: str,
        rule: str,
        field: str,
        known: Container[str],
        keys_of: str,
    ) -> list[str] | None:
        """``mapping[key]``, a list of attribute keys (or null) checked against the rule, each key
        one of ``known``; an unknown key fails at ``field`` with "keys of ``keys_of``"."""
        keys = self.get(mapping, key, rule, field)
        for k in keys or ():
            if k not in known:
                self.fail(field, f"keys of {keys_of}", k)
        return keys


def check_fractions(values: Sequence[Any], on_bad: Callable[[], NoReturn]) -> np.ndarray:
    """Label fractions as float64, or ``on_bad()`` (which names the culprit) when one is not a
    number in [0, 1]. Type test first: numpy would read "0.5" and True as numbers."""
    if not set(map(type, values)) <= {int, float}:
        on_bad()
    arr = np.array(values, dtype=np.float64)
    if not ((arr >= 0) & (arr <= 1)).all():  # NaN fails both comparisons
        on_bad()
    return arr


def check_binary(values: list[Any]) -> bool:
    """Whether every verdict value is the integer 0 or 1 (booleans and 1.0 are not)."""
    return set(map(type, values)) <= {int} and set(values) <= {0, 1}
