"""The one validation layer of the input formats: each field declared once (path, kind, required).

A :class:`Kind` says what a value must be (a non-empty string, a fraction in [0, 1], an index the
store's INTEGER columns hold, 0 or 1, ...) and how to say so; a :class:`Schema` maps each field of a
format to its kind. Readers ask a :class:`Checker` bound to (file, place) for a field by its schema
path, so a bad value anywhere gives the same one-line error: file, line or record, field path, what
was expected and what was found. Hot columns (label fractions, verdict values) are checked in bulk
by :func:`check_fractions` and :func:`check_binary` at a fraction of a per-value loop's cost; text
is searched for NUL characters once per line's bytes (:func:`has_escaped_nul`), and a parsed value
walked (:func:`find_nul`) only when they may hold one.

Hand-written on purpose: a model-per-format library would parse every verdict into an object,
where the official reader keeps them as flat lists for numpy.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from functools import cached_property
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
    passes: frozenset[type] = frozenset()  # types that pass without running ``test``

    def ok(self, value: Any) -> bool:
        if value is None or value is MISSING:
            return self.optional
        return self.test(value)

    def or_null(self) -> Kind:
        return Kind(self.expected + " or null", self.test, True, self.passes | {type(None)})


def _is_int(v: Any) -> bool:
    return type(v) is int


def _is_number(v: Any) -> bool:
    return type(v) in (int, float) and math.isfinite(v)


TEXT = Kind("a string", lambda v: type(v) is str, passes=frozenset({str}))
NAME = Kind("a non-empty string", lambda v: type(v) is str and v.strip() != "")
OBJECT = Kind("a JSON object", lambda v: type(v) is dict, passes=frozenset({dict}))
NONEMPTY_OBJECT = Kind("a non-empty JSON object", lambda v: type(v) is dict and len(v) > 0)
LIST = Kind("a JSON list", lambda v: type(v) is list, passes=frozenset({list}))
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

    @cached_property
    def passes(self) -> dict[str, frozenset[type]]:
        """Per field, the types a value passes with on sight (the readers' hot path)."""
        return {path: kind.passes for path, kind in self.fields.items()}


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
        "config.method": TEXT.or_null(),
        "config.memory_mode": TEXT.or_null(),
        "config.cim_judge_variant": TEXT.or_null(),
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
        "entries[].results.*.generations[].generation_index": TRIAL,
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
        value = mapping.get(key, MISSING)
        if type(value) in self.schema.passes[rule]:
            return value
        return self.value(rule, value, field)

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
        keys: list[str] | None = mapping.get(key)
        if type(keys) is list:
            try:  # one pass in C; the slow walk below only names the culprit
                if all(map(known.__contains__, keys)):
                    return keys
            except TypeError:  # an unhashable item
                pass
        keys = self.get(mapping, key, rule, field)
        for k in keys or ():
            if k not in known:
                self.fail(field, f"keys of {keys_of}", k)
        return keys


FRACTION_SUM_TOLERANCE = 0.01
"""How far a statement's necessary + private + unlabeled may be from 1: float noise and shares
rounded to two decimals pass (thirds written 0.33 sum to 0.99; the reference file's worst is
2e-16), bins that do not share out the labellers (one lost or counted twice, a sum of 1.1 or
0.67) do not."""
FRACTION_SUM = (
    f"fractions necessary + private + unlabeled summing to 1 (within {FRACTION_SUM_TOLERANCE:g})"
)


def check_fractions(values: Sequence[Any], on_bad: Callable[[], NoReturn]) -> np.ndarray:
    """Label fractions, flat (necessary, private, unlabeled) triples, as float64; ``on_bad()``
    (which names the culprit) when one is not a number in [0, 1] or a triple does not sum to 1.
    Type test first: numpy would read "0.5" and True as numbers."""
    if not set(map(type, values)) <= {int, float}:
        on_bad()
    arr = np.array(values, dtype=np.float64)
    if not ((arr >= 0) & (arr <= 1)).all():  # NaN fails both comparisons
        on_bad()
    if not (np.abs(arr.reshape(-1, 3).sum(axis=1) - 1) <= FRACTION_SUM_TOLERANCE + 1e-9).all():
        on_bad()
    return arr


def fraction_sum_error(fractions: Sequence[float]) -> str | None:
    """What is wrong with one statement's (necessary, private, unlabeled), for an error's "got",
    or None when they sum to 1 (the per-value search :func:`check_fractions` falls back on)."""
    necessary, private, unlabeled = fractions
    total = float(necessary) + private + unlabeled  # in numpy's order, so both agree on the edge
    if abs(total - 1) <= FRACTION_SUM_TOLERANCE + 1e-9:  # 0.33 x 3 is 0.99 and a hair
        return None
    return f"sum {total:.6g} (necessary {necessary}, private {private}, unlabeled {unlabeled})"


def check_binary(values: list[Any]) -> bool:
    """Whether every verdict value is the integer 0 or 1 (booleans and 1.0 are not)."""
    return set(map(type, values)) <= {int} and set(values) <= {0, 1}


Parts = tuple[str | int, ...]
ESCAPED_NUL = b"\\u0000"


def has_escaped_nul(data: bytes) -> bool:
    """Whether JSON bytes may hold a NUL character: written ``\\u0000`` (a raw NUL byte is not
    valid JSON), so bytes without it hold none, and a reader walks the parsed value only when
    they do. ``rfind``: CPython's reverse search tests the needle's first byte, a backslash, rare
    in JSON, and skips ahead; ``in`` tests its last, a zero, common in numbers (twice as slow)."""
    return data.rfind(ESCAPED_NUL) >= 0


NUL = "\x00"
NUL_FREE = "text without NUL characters (\\u0000)"


def find_nul(value: Any) -> tuple[Parts, str] | None:
    """The path (keys and list positions) to the first string, key or value, that holds a NUL
    character, and that string; None when none does. NUL is refused: DuckDB and the readers
    downstream cut or mangle text at it. Iterative, so any depth orjson parses is walked."""
    stack: list[tuple[Parts, Any]] = [((), value)]
    while stack:
        path, v = stack.pop()
        if type(v) is str:
            if NUL in v:
                return path, v
        elif type(v) is dict:
            for k, x in reversed(v.items()):  # popped in document order, each key before its value
                stack.append((path + (k,), x))
                stack.append((path + (k,), k))
        elif type(v) is list:
            stack.extend((path + (i,), v[i]) for i in range(len(v) - 1, -1, -1))
    return None


def dotted(path: Parts) -> str:
    """A path as the field names of errors: keys joined by dots, list positions in brackets.

    >>> dotted(("contexts", 0, "task"))
    'contexts[0].task'
    """
    out = ""
    for part in path:
        out += f"[{part}]" if type(part) is int else f".{part}" if out else str(part)
    return out


def nul_error(
    path: str, value: Any, place: str | Callable[[Parts], tuple[str, Parts]]
) -> InputError | None:
    """The error for the first NUL in ``value`` (None when it has none), at ``place`` (a line),
    or at the place a function makes of the path to it (a profile, an entry) and the rest."""
    found = find_nul(value)
    if found is None:
        return None
    parts, text = found
    place, field = (place, parts) if isinstance(place, str) else place(parts)
    got = f"a NUL at character {text.index(NUL) + 1} of {describe(text)}"
    return InputError(path, place, dotted(field) or "(value)", NUL_FREE, got=got)
