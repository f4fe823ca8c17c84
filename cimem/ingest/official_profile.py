"""One profile object of the official format read and checked: its bio, attributes and contexts,
and each context's labels (fractions keyed by memory statement) and trials (prompt, message, the
judge's verdicts with evidence), gathered into the columns of a ProfileRecord.

The official script stores a judge reply it could not parse as all zeros with an empty
explanation; such trials get judgment status ``parse_failure`` here (inferred from that shape).
"""

from __future__ import annotations

import dataclasses
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain
from typing import Any, NoReturn

import numpy as np
import orjson

from cimem.errors import InputError
from cimem.ingest.records import LABELS_COMBINED, MESSAGE_COLUMNS, Attribute, ProfileRecord
from cimem.ingest.validate import (
    FRACTION_SUM,
    INT32_MAX,
    MAX_TRIALS,
    MISSING,
    OFFICIAL,
    Checker,
    check_binary,
    check_fractions,
    fraction_sum_error,
)
from cimem.store import JudgmentStatus, MessageStatus

TRIAL_KEY = re.compile(r"^combination_num_to_share=(\d+)_num_not_to_share=(\d+)_trial=(\d+)$")
TRIAL_PREFIX = "combination"
LABEL_PREFIX = "labels_"
_FRACTIONS = operator.itemgetter("necessary", "private", "unlabeled")
_TRIAL_KEY_EXPECTED = (
    "a trial key combination_num_to_share=A_num_not_to_share=B_trial=T with integers A, B"
    f" (at most {INT32_MAX}) and T (0 to {MAX_TRIALS - 1})"
)


def parse_trial_key(key: str) -> tuple[int, int, int] | None:
    """(A, B, T) of ``combination_num_to_share=A_num_not_to_share=B_trial=T``, or None when the key
    breaks the grammar or its numbers are out of range (A, B int32; T a trial 0..63).

    >>> parse_trial_key("combination_num_to_share=147_num_not_to_share=0_trial=4")
    (147, 0, 4)
    >>> parse_trial_key("combination_num_to_share=147_num_not_to_share=0_trial=64") is None
    True
    """
    m = TRIAL_KEY.match(key)
    if not m:
        return None
    a, b, t = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if a > INT32_MAX or b > INT32_MAX or t >= MAX_TRIALS:
        return None
    return a, b, t


RAW_REPLY_KEY = "(judge reply that failed to parse)"
"""Where an export keeps the raw reply of a parse failure, in the explanation: no attribute key
looks like it, and the official metrics read only the verdicts."""
NOTHING_REVEALED_KEY = "(judge found nothing revealed)"
"""An export's mark on a judgment that parsed and found nothing: without it, all zeros and an
empty explanation would read back as a parse failure (the official format cannot tell them
apart)."""
_MARKS = (RAW_REPLY_KEY, NOTHING_REVEALED_KEY)


def is_parse_failure(explanation: dict | None, verdicts: list[int]) -> bool:
    """The official script writes a judge reply it could not parse as all zeros with an empty
    explanation: that shape (or an export's, the raw reply under :data:`RAW_REPLY_KEY`) is the
    only trace of a parse failure in its output."""
    if any(verdicts):
        return False
    return not explanation or (len(explanation) == 1 and RAW_REPLY_KEY in explanation)


@dataclass
class _Payloads:
    """The columns one profile's labels and trials fill, before they become its record's."""

    lab: dict[str, list] = dataclasses.field(
        default_factory=lambda: {"ctx_idx": [], "attr_idx": [], "persona": [], "field": []}
    )
    flat: list[float] = dataclasses.field(default_factory=list)
    msg: dict[str, list] = dataclasses.field(
        default_factory=lambda: {k: [] for k in MESSAGE_COLUMNS}
    )
    jud: dict[str, list] = dataclasses.field(
        default_factory=lambda: {"msg_idx": [], "status": [], "raw": []}
    )
    ver_msg: list[np.ndarray] = dataclasses.field(default_factory=list)
    ver_attr: list[np.ndarray] = dataclasses.field(default_factory=list)
    ver_rev: list[int] = dataclasses.field(default_factory=list)
    evidence_at: list[tuple[int, str]] = dataclasses.field(default_factory=list)

    def fill(self, rec: ProfileRecord, bad_labels: Callable[[], NoReturn]) -> None:
        """Moves the columns into ``rec``; the fractions are checked here, in bulk."""
        rec.messages = self.msg
        rec.judgments = self.jud
        lab = self.lab
        if lab["attr_idx"]:
            fractions = check_fractions(self.flat, bad_labels).reshape(-1, 3)
            names: dict[str, int] = {}
            codes = [names.setdefault(persona, len(names)) for persona, _ in lab["persona"]]
            rec.persona_labels = {
                "ctx_idx": np.concatenate(lab["ctx_idx"]),
                "attr_idx": np.concatenate(lab["attr_idx"]),
                "persona_code": np.repeat(
                    np.array(codes, np.int32), [n for _, n in lab["persona"]]
                ),
                "personas": list(names),
                "fractions": fractions,
            }
        if self.ver_rev:
            evidence: list[str | None] = [None] * len(self.ver_rev)
            for p, sentence in self.evidence_at:
                evidence[p] = sentence
            rec.verdicts = {
                "msg_idx": np.concatenate(self.ver_msg),
                "attr_idx": np.concatenate(self.ver_attr),
                "revealed": np.array(self.ver_rev, dtype=np.bool_),
                "evidence": evidence,
            }


class ProfileReader(Checker):
    """Turns one profile object into a ProfileRecord, checking every field against the schema."""

    def __init__(self, path: str, place: str, obj: Any, evidence: bool = True):
        super().__init__(OFFICIAL, path, place)
        self.obj, self.evidence = obj, evidence

    # ------------------------------------------------------------------ profile
    def read(self, with_runs: bool) -> ProfileRecord:
        obj = self.obj
        if type(obj) is not dict:
            self.fail("(record)", "a JSON object with bio, information_attributes, contexts", obj)
        bio = self.get(obj, "bio", "bio")
        name = self.get(bio, "name", "bio.name")
        attrs = self.get(obj, "information_attributes", "information_attributes")
        contexts = self.get(obj, "contexts", "contexts")
        rec = ProfileRecord(
            name=name,
            sex=_text(self.get(bio, "sex", "bio.sex")),
            address=_text(self.get(bio, "address", "bio.address")),
            age=_text(self.get(bio, "age", "bio.age")),
            bio_json=self._dumps(bio, "bio"),
        )
        self._read_attributes(rec, attrs)
        self._read_contexts(rec, contexts)
        if with_runs:
            self._read_context_payloads(rec, contexts)
        return rec

    def _read_attributes(self, rec: ProfileRecord, attrs: dict) -> None:
        """The attributes, and the memory statements the labels are keyed by."""
        self.keys = list(attrs)
        self.key_index = {k: i for i, k in enumerate(self.keys)}
        statements: dict[str, list[int]] = {}
        for i, (key, a) in enumerate(attrs.items()):
            field = f"information_attributes.{key}"
            if not key.strip():
                self.fail(field, "a non-empty attribute key", key)
            if type(a) is not dict:
                self.fail(
                    field, "an object with value, information_domain, event, memory_statement", a
                )
            if "value" not in a:
                self.fail(f"{field}.value", "a value", MISSING)
            stmt = self.get(
                a,
                "memory_statement",
                "information_attributes.*.memory_statement",
                f"{field}.memory_statement",
            )
            rec.attributes.append(
                Attribute(
                    key=key,
                    value_json=self._dumps(a["value"], f"{field}.value"),
                    domain=self.get(
                        a,
                        "information_domain",
                        "information_attributes.*.information_domain",
                        f"{field}.information_domain",
                    ),
                    event=self.get(a, "event", "information_attributes.*.event", f"{field}.event"),
                    memory_statement=stmt,
                )
            )
            statements.setdefault(stmt, []).append(i)
        self.statements = statements
        self.statement_order = list(statements)
        # labels in statement order (the usual case) map to these attributes at once; a
        # statement several attributes share repeats its triple (``repeat_triples``)
        rows = [r for r, idx in enumerate(statements.values()) for _ in idx]
        self.ordered_attrs = np.fromiter(chain.from_iterable(statements.values()), np.int32)
        self.repeat_triples = (
            None
            if len(rows) == len(statements)
            else operator.itemgetter(*(3 * r + j for r in rows for j in range(3)))
        )

    def _read_contexts(self, rec: ProfileRecord, contexts: list) -> None:
        for c, ctx in enumerate(contexts):
            cplace = f"contexts[{c}]"
            if type(ctx) is not dict:
                self.fail(cplace, "an object with recipient and task", ctx)
            rec.contexts.append(
                (
                    self.get(ctx, "recipient", "contexts[].recipient", f"{cplace}.recipient"),
                    self.get(ctx, "task", "contexts[].task", f"{cplace}.task"),
                    None,
                )
            )

    def _dumps(self, value: Any, field: str) -> str:
        try:
            return orjson.dumps(value).decode()
        except orjson.JSONEncodeError:  # nested deeper than JSON encoders go
            self.fail(field, "a JSON value nested at most 254 levels deep", value)

    # ------------------------------------------------------------------ labels and trials
    def _read_context_payloads(self, rec: ProfileRecord, contexts: list[dict]) -> None:
        acc = _Payloads()
        self.all_attr = np.arange(len(self.keys), dtype=np.int32)
        for c, ctx in enumerate(contexts):
            for key, payload in ctx.items():
                if key.startswith(LABEL_PREFIX):
                    self._read_label(acc, c, key, payload)
                elif key.startswith(TRIAL_PREFIX):
                    self._read_trial(acc, c, key, payload)
        acc.fill(rec, lambda: self._bad_labels(acc.lab["field"]))

    def _read_label(self, acc: _Payloads, c: int, key: str, payload: Any) -> None:
        persona = key[len(LABEL_PREFIX) :]
        persona = LABELS_COMBINED if persona == "combined" else persona
        idx = self._labels(payload, f"contexts[{c}].{key}", acc.flat)
        acc.lab["ctx_idx"].append(np.full(len(idx), c, dtype=np.int32))
        acc.lab["attr_idx"].append(idx)
        acc.lab["persona"].append((persona, len(idx)))
        acc.lab["field"].append((f"contexts[{c}].{key}", payload))

    def _read_trial(self, acc: _Payloads, c: int, key: str, payload: Any) -> None:
        field = f"contexts[{c}].{key}"
        numbers = parse_trial_key(key)
        if numbers is None:
            self.fail(field, _TRIAL_KEY_EXPECTED, key)
        rule = "contexts[].<trial key>"
        self.value(rule, payload, field)
        msg = acc.msg
        msg_idx = len(msg["ctx_idx"])
        msg["ctx_idx"].append(c)
        msg["trial"].append(numbers[2])
        msg["num_to_share"].append(numbers[0])
        msg["num_not_to_share"].append(numbers[1])
        to_share = self._key_list(payload, "to_share_attributes", rule, field)
        not_share = self._key_list(payload, "not_to_share_attributes", rule, field)
        full = to_share == self.keys and not not_share
        msg["shared_json"].append(None if full else orjson.dumps([to_share, not_share]).decode())
        msg["prompt"].append(self.get(payload, "prompt", f"{rule}.prompt", f"{field}.prompt"))
        sol = self.get(
            payload, "model_solution", f"{rule}.model_solution", f"{field}.model_solution"
        )
        sfield = f"{field}.model_solution"
        text = None
        if sol is not None:
            text = self.get(
                sol,
                "response_solution",
                f"{rule}.model_solution.response_solution",
                f"{sfield}.response_solution",
            )
        msg["text"].append(text)
        if text is None:
            msg["status"].append(MessageStatus.FAILED)
            msg["error"].append("the source has no message for this trial")
            return
        msg["status"].append(MessageStatus.OK)
        msg["error"].append(None)
        self._read_judgment(acc, msg_idx, sol, f"{rule}.model_solution", sfield)

    def _read_judgment(
        self, acc: _Payloads, msg_idx: int, sol: Any, rule: str, sfield: str
    ) -> None:
        """The judge's verdicts and evidence on one message (none: the message was not judged)."""
        rev = self.get(
            sol,
            "revealed_attributes",
            f"{rule}.revealed_attributes",
            f"{sfield}.revealed_attributes",
        )
        expl = self.get(
            sol,
            "revealed_attributes_explanation",
            f"{rule}.revealed_attributes_explanation",
            f"{sfield}.revealed_attributes_explanation",
        )
        if rev is None:
            return  # message without verdicts: not judged
        expl = expl or {}
        vals = list(rev.values())
        if not check_binary(vals):
            bad = next(v for v in vals if type(v) is not int or v not in (0, 1))
            self.fail(f"{sfield}.revealed_attributes", "values 0 or 1", bad)
        attr_idx = self._verdict_attributes(rev, sfield)
        base = len(acc.ver_rev)
        acc.ver_msg.append(np.full(len(vals), msg_idx, dtype=np.int32))
        acc.ver_attr.append(attr_idx)
        acc.ver_rev.extend(vals)
        unmatched = {}
        if expl and self.evidence:
            unmatched = self._collect_evidence(acc, expl, attr_idx, base)
        acc.jud["msg_idx"].append(msg_idx)
        if is_parse_failure(expl, vals):
            raw = expl.get(RAW_REPLY_KEY)
            acc.jud["status"].append(JudgmentStatus.PARSE_FAILURE)
            acc.jud["raw"].append(raw if type(raw) is str else None)
            return
        acc.jud["status"].append(JudgmentStatus.OK)
        acc.jud["raw"].append(
            self._dumps(
                {"unmatched_evidence": unmatched}, f"{sfield}.revealed_attributes_explanation"
            )
            if unmatched
            else None
        )

    def _verdict_attributes(self, rev: dict, sfield: str) -> np.ndarray:
        """Attribute indices of a verdict object, in its order (shared when it lists them all)."""
        if list(rev) == self.keys:
            return self.all_attr
        attr_idx = np.empty(len(rev), dtype=np.int32)
        for j, k in enumerate(rev):
            if k not in self.key_index:
                self.fail(
                    f"{sfield}.revealed_attributes.{k}",
                    "a key of information_attributes (verdict for an unknown attribute)",
                    k,
                )
            attr_idx[j] = self.key_index[k]
        return attr_idx

    def _collect_evidence(
        self, acc: _Payloads, expl: dict, attr_idx: np.ndarray, base: int
    ) -> dict[str, Any]:
        """Places each evidence sentence at its verdict; returns those no verdict of this message
        takes (kept with the judgment, so nothing in the file is lost)."""
        unmatched = {}
        pos = (
            {self.keys[a]: base + j for j, a in enumerate(attr_idx)}
            if attr_idx is not self.all_attr
            else None
        )
        for k, sentence in expl.items():
            if pos is None:
                i = self.key_index.get(k)
                p = None if i is None else base + i
            else:
                p = pos.get(k)
            if p is None or type(sentence) is not str:
                if k not in _MARKS:
                    unmatched[k] = sentence
            else:
                acc.evidence_at.append((p, sentence))
        return unmatched

    def _key_list(self, payload: dict, key: str, rule: str, field: str) -> list[str] | None:
        keys = payload.get(key)
        if type(keys) is list and keys == self.keys:  # every attribute (most trials): all known
            return keys
        return self.key_list(
            payload,
            key,
            f"{rule}.{key}",
            f"{field}.{key}",
            self.key_index,
            "information_attributes",
        )

    def _labels(self, payload: Any, field: str, flat: list[float]) -> np.ndarray:
        """Attribute indices of one label object; its fractions (necessary, private, unlabeled per
        statement) are appended to ``flat`` and checked in bulk per profile."""
        if type(payload) is not dict:
            self.fail(
                field, "an object {memory_statement: {necessary, private, unlabeled}}", payload
            )
        start = len(flat)
        try:
            flat.extend(chain.from_iterable(map(_FRACTIONS, payload.values())))
        except (KeyError, TypeError):
            del flat[start:]
            self._check_fractions(payload, field)
        if list(payload) == self.statement_order:
            if self.repeat_triples is not None:
                flat[start:] = self.repeat_triples(flat[start:])
            return self.ordered_attrs
        idx: list[int] = []
        rows: list[int] = []
        for r, stmt in enumerate(payload):
            targets = self.statements.get(stmt)
            if targets is None:
                self.fail(
                    f"{field}[{stmt!r}]",
                    "the memory_statement of an attribute of this "
                    "profile (labels are keyed by memory statement)",
                    stmt,
                )
            idx.extend(targets)
            rows.extend([r] * len(targets))
        if len(rows) != len(payload):  # one statement shared by several attributes: repeat it
            mine = flat[start:]
            del flat[start:]
            for r in rows:
                flat.extend(mine[3 * r : 3 * r + 3])
        return np.array(idx, dtype=np.int32)

    def _bad_labels(self, fields: list[tuple[str, dict]]) -> NoReturn:
        for field, payload in fields:
            self._check_fractions(payload, field)
        raise AssertionError("a bad fraction was detected but not found")  # pragma: no cover

    def _check_fractions(self, payload: dict, field: str) -> None:
        """Each statement's fractions one by one: the culprit a bulk check found, named."""
        for stmt, fr in payload.items():
            if type(fr) is not dict:
                self.fail(f"{field}[{stmt!r}]", "an object {necessary, private, unlabeled}", fr)
            values = [
                self.get(fr, part, f"contexts[].labels_*.*.{part}", f"{field}[{stmt!r}].{part}")
                for part in ("necessary", "private", "unlabeled")
            ]
            wrong = fraction_sum_error(values)
            if wrong is not None:
                raise InputError(self.path, self.place, f"{field}[{stmt!r}]", FRACTION_SUM, wrong)


def read_profile_object(path: str, place: str, obj: Any) -> ProfileRecord:
    """Profile, attributes and contexts of one official profile object (no labels, no runs)."""
    return ProfileReader(path, place, obj).read(with_runs=False)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
