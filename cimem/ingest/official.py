"""The official run-output format (``results.jsonl`` of the CIMemories evaluation script).

One JSON object per line = one profile: ``bio``, ``information_attributes``, ``contexts``; each context
carries ``labels_<labeller>_<persona>`` and ``labels_combined`` (fractions keyed by memory statement)
and one key per trial, ``combination_num_to_share=A_num_not_to_share=B_trial=T``, holding the prompt,
the message and the judge's verdicts (keyed by attribute key) with evidence.

A judge reply that failed to parse is stored by the official script as all zeros with an empty
explanation; such trials get judgment status ``parse_failure`` here (inferred from that shape).
The file is read one line at a time, so memory stays flat whatever its size.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from cimem.errors import InputError, describe
from cimem.ingest.records import LABELS_COMBINED, Attribute, ProfileRecord, Progress

TRIAL_KEY = re.compile(r"^combination_num_to_share=(\d+)_num_not_to_share=(\d+)_trial=(\d+)$")
TRIAL_PREFIX = "combination"
LABEL_PREFIX = "labels_"
BIO_FIELDS = ("name", "sex", "address", "age")
_FRACTIONS = operator.itemgetter("necessary", "private", "unlabeled")
_BINARY = {0, 1}
MISSING = object()


def open_maybe_gzip(path: Path):
    """The file's bytes, decompressed when it is gzip (by its magic number, not its name)."""
    with path.open("rb") as f:
        magic = f.read(2)
    if magic == b"\x1f\x8b":
        import gzip

        return gzip.open(path, "rb")
    return path.open("rb")


def iter_json_lines(path: Path, progress: Progress | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, parsed object) for every non-blank line; a bad line raises InputError."""
    total = path.stat().st_size
    done = 0
    with open_maybe_gzip(path) as f:
        compressed = getattr(f, "fileobj", None)  # gzip: progress in compressed bytes
        for lineno, line in enumerate(f, 1):
            done = compressed.tell() if compressed is not None else done + len(line)
            if not line.strip():
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise InputError(
                    str(path),
                    f"line {lineno}",
                    "(the line)",
                    "one complete JSON object per line",
                    got=str(exc),
                ) from None
            yield lineno, obj
            if progress:
                progress(done, total)


def read_official(path: Path, progress: Progress | None = None) -> Iterator[ProfileRecord]:
    """Profile records of an official run-output file, validated as they stream."""
    seen_any = False
    for lineno, obj in iter_json_lines(path, progress):
        seen_any = True
        yield _ProfileReader(str(path), f"line {lineno}", obj).read(with_runs=True)
    if not seen_any:
        raise InputError(
            str(path),
            "line 1",
            "(file)",
            "at least one JSON line (one profile each)",
            got="an empty file",
        )


class _ProfileReader:
    """Turns one profile object into a ProfileRecord; every check names file, place and field."""

    def __init__(self, path: str, place: str, obj: Any):
        self.path, self.place, self.obj = path, place, obj

    def fail(self, field: str, expected: str, got: object = None, place: str | None = None):
        got_text = None if got is None else "missing" if got is MISSING else describe(got)
        raise InputError(self.path, place or self.place, field, expected, got=got_text)

    def need(
        self, mapping: dict, key: str, kind: type | tuple, field: str, place: str | None = None
    ):
        if key not in mapping:
            self.fail(field, f"a {_kind_name(kind)}", MISSING, place)
        value = mapping[key]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            self.fail(field, f"a {_kind_name(kind)}", value, place)
        return value

    # ------------------------------------------------------------------ profile
    def read(self, with_runs: bool) -> ProfileRecord:
        obj = self.obj
        if not isinstance(obj, dict):
            self.fail("(record)", "a JSON object with bio, information_attributes, contexts", obj)
        bio = self.need(obj, "bio", dict, "bio")
        name = self.need(bio, "name", str, "bio.name")
        attrs = self.need(obj, "information_attributes", dict, "information_attributes")
        contexts = self.need(obj, "contexts", list, "contexts")
        rec = ProfileRecord(
            name=name,
            sex=_text(bio.get("sex")),
            address=_text(bio.get("address")),
            age=_text(bio.get("age")),
            bio_json=orjson.dumps(bio).decode(),
        )
        self.keys = list(attrs)
        self.key_index = {k: i for i, k in enumerate(self.keys)}
        statements: dict[str, list[int]] = {}
        for i, (key, a) in enumerate(attrs.items()):
            field = f"information_attributes.{key}"
            if not isinstance(a, dict):
                self.fail(
                    field, "an object with value, information_domain, event, memory_statement", a
                )
            if "value" not in a:
                self.fail(f"{field}.value", "a value", MISSING)
            stmt = self.need(a, "memory_statement", str, f"{field}.memory_statement")
            rec.attributes.append(
                Attribute(
                    key=key,
                    value_json=orjson.dumps(a["value"]).decode(),
                    domain=_opt_str(self, a, "information_domain", field),
                    event=_opt_str(self, a, "event", field),
                    memory_statement=stmt,
                )
            )
            statements.setdefault(stmt, []).append(i)
        self.statements = statements
        self.statement_order = list(statements)
        self.unique_statements = all(len(v) == 1 for v in statements.values())
        for c, ctx in enumerate(contexts):
            cplace = f"contexts[{c}]"
            if not isinstance(ctx, dict):
                self.fail(cplace, "an object with recipient and task", ctx)
            rec.contexts.append(
                (
                    self.need(ctx, "recipient", str, f"{cplace}.recipient"),
                    self.need(ctx, "task", str, f"{cplace}.task"),
                    None,
                )
            )
        if with_runs:
            self._read_context_payloads(rec, contexts)
        return rec

    # ------------------------------------------------------------------ labels and trials
    def _read_context_payloads(self, rec: ProfileRecord, contexts: list[dict]) -> None:
        lab = {"ctx_idx": [], "attr_idx": [], "persona": [], "field": []}
        flat: list[float] = []
        msg = {
            k: []
            for k in (
                "ctx_idx",
                "trial",
                "num_to_share",
                "num_not_to_share",
                "shared_json",
                "prompt",
                "text",
                "status",
                "error",
            )
        }
        jud = {"msg_idx": [], "status": [], "raw": []}
        ver_msg: list[np.ndarray] = []
        ver_attr: list[np.ndarray] = []
        ver_rev: list[int] = []
        evidence_at: list[tuple[int, str]] = []
        n_attr = len(self.keys)
        all_attr = np.arange(n_attr, dtype=np.int32)
        for c, ctx in enumerate(contexts):
            for key, payload in ctx.items():
                if key.startswith(LABEL_PREFIX):
                    persona = key[len(LABEL_PREFIX) :]
                    persona = LABELS_COMBINED if persona == "combined" else persona
                    idx = self._labels(payload, f"contexts[{c}].{key}", flat)
                    lab["ctx_idx"].append(np.full(len(idx), c, dtype=np.int32))
                    lab["attr_idx"].append(idx)
                    lab["persona"].append((persona, len(idx)))
                    lab["field"].append((f"contexts[{c}].{key}", payload))
                elif key.startswith(TRIAL_PREFIX):
                    field = f"contexts[{c}].{key}"
                    m = TRIAL_KEY.match(key)
                    if not m:
                        self.fail(
                            field,
                            "a trial key combination_num_to_share=A_num_not_to_share=B"
                            "_trial=T with integers A, B, T",
                            key,
                        )
                    if not isinstance(payload, dict):
                        self.fail(field, "an object with prompt and model_solution", payload)
                    msg_idx = len(msg["ctx_idx"])
                    msg["ctx_idx"].append(c)
                    msg["trial"].append(int(m.group(3)))
                    msg["num_to_share"].append(int(m.group(1)))
                    msg["num_not_to_share"].append(int(m.group(2)))
                    to_share = payload.get("to_share_attributes")
                    not_share = payload.get("not_to_share_attributes")
                    full = to_share == self.keys and not not_share
                    msg["shared_json"].append(
                        None if full else orjson.dumps([to_share, not_share]).decode()
                    )
                    prompt = payload.get("prompt")
                    if prompt is not None and not isinstance(prompt, str):
                        self.fail(f"{field}.prompt", "a string", prompt)
                    msg["prompt"].append(prompt)
                    sol = payload.get("model_solution")
                    text = sol.get("response_solution") if isinstance(sol, dict) else None
                    if text is not None and not isinstance(text, str):
                        self.fail(f"{field}.model_solution.response_solution", "a string", text)
                    msg["text"].append(text)
                    if text is None:
                        msg["status"].append("failed")
                        msg["error"].append("the source has no message for this trial")
                        continue
                    msg["status"].append("ok")
                    msg["error"].append(None)
                    rev = sol.get("revealed_attributes")
                    if rev is None:
                        continue  # message without verdicts: not judged
                    if not isinstance(rev, dict):
                        self.fail(
                            f"{field}.model_solution.revealed_attributes",
                            "an object {attribute_key: 0 or 1}",
                            rev,
                        )
                    expl = sol.get("revealed_attributes_explanation") or {}
                    if not isinstance(expl, dict):
                        self.fail(
                            f"{field}.model_solution.revealed_attributes_explanation",
                            "an object {attribute_key: evidence sentence}",
                            expl,
                        )
                    vals = list(rev.values())
                    if not set(vals) <= _BINARY:
                        bad = next(v for v in vals if v not in _BINARY or isinstance(v, float))
                        self.fail(
                            f"{field}.model_solution.revealed_attributes", "values 0 or 1", bad
                        )
                    if list(rev) == self.keys:
                        attr_idx = all_attr
                    else:
                        attr_idx = np.empty(len(rev), dtype=np.int32)
                        for j, k in enumerate(rev):
                            if k not in self.key_index:
                                self.fail(
                                    f"{field}.model_solution.revealed_attributes.{k}",
                                    "a key of information_attributes (verdict for an "
                                    "unknown attribute)",
                                    k,
                                )
                            attr_idx[j] = self.key_index[k]
                    base = len(ver_rev)
                    ver_msg.append(np.full(len(vals), msg_idx, dtype=np.int32))
                    ver_attr.append(attr_idx)
                    ver_rev.extend(vals)
                    unmatched = {}
                    if expl:
                        pos = (
                            {self.keys[a]: base + j for j, a in enumerate(attr_idx)}
                            if attr_idx is not all_attr
                            else None
                        )
                        for k, sentence in expl.items():
                            if pos is None:
                                i = self.key_index.get(k)
                                p = None if i is None else base + i
                            else:
                                p = pos.get(k)
                            if p is None or not isinstance(sentence, str):
                                unmatched[k] = sentence
                            else:
                                evidence_at.append((p, sentence))
                    parse_failed = not expl and not any(vals)
                    jud["msg_idx"].append(msg_idx)
                    jud["status"].append("parse_failure" if parse_failed else "ok")
                    jud["raw"].append(
                        orjson.dumps({"unmatched_evidence": unmatched}).decode()
                        if unmatched
                        else None
                    )
        rec.messages = msg
        rec.judgments = jud
        if lab["attr_idx"]:
            try:
                fractions = np.array(flat, dtype=np.float64).reshape(-1, 3)
                bad = np.isnan(fractions).any()
            except (TypeError, ValueError):
                bad = True
            if bad:
                for field, payload in lab["field"]:
                    self._check_fractions(payload, field)
            rec.persona_labels = {
                "ctx_idx": np.concatenate(lab["ctx_idx"]),
                "attr_idx": np.concatenate(lab["attr_idx"]),
                "persona": [p for p, n in lab["persona"] for _ in range(n)],
                "fractions": fractions,
            }
        if ver_rev:
            evidence: list[str | None] = [None] * len(ver_rev)
            for p, sentence in evidence_at:
                evidence[p] = sentence
            rec.verdicts = {
                "msg_idx": np.concatenate(ver_msg),
                "attr_idx": np.concatenate(ver_attr),
                "revealed": np.array(ver_rev, dtype=np.bool_),
                "evidence": evidence,
            }

    def _labels(self, payload: Any, field: str, flat: list[float]) -> np.ndarray:
        """Attribute indices of one label object; its fractions (necessary, private, unlabeled per
        statement) are appended to ``flat``. Values are checked per profile in :meth:`_check`."""
        if not isinstance(payload, dict):
            self.fail(
                field, "an object {memory_statement: {necessary, private, unlabeled}}", payload
            )
        start = len(flat)
        try:
            flat.extend(chain.from_iterable(map(_FRACTIONS, payload.values())))
        except (KeyError, TypeError):
            del flat[start:]
            self._check_fractions(payload, field)
            raise  # _check_fractions always finds the bad value
        if self.unique_statements and list(payload) == self.statement_order:
            return np.arange(len(payload), dtype=np.int32)
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

    def _check_fractions(self, payload: dict, field: str) -> None:
        for stmt, fr in payload.items():
            for part in ("necessary", "private", "unlabeled"):
                v = fr.get(part) if isinstance(fr, dict) else None
                if isinstance(v, bool) or not isinstance(v, (int, float)):
                    self.fail(
                        f"{field}[{stmt!r}].{part}",
                        "a number between 0 and 1",
                        MISSING if v is None else v,
                    )


def read_profile_object(path: str, place: str, obj: Any) -> ProfileRecord:
    """Profile, attributes and contexts of one official profile object (no labels, no runs)."""
    return _ProfileReader(path, place, obj).read(with_runs=False)


def _kind_name(kind: type | tuple) -> str:
    names = {str: "string", dict: "JSON object", list: "JSON list", int: "integer", bool: "boolean"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _opt_str(reader: _ProfileReader, a: dict, key: str, field: str) -> str | None:
    value = a.get(key)
    if value is not None and not isinstance(value, str):
        reader.fail(f"{field}.{key}", "a string", value)
    return value
