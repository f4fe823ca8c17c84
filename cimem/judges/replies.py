"""Parsing a judge's reply into {attribute key: evidence sentence}.

Replies come as clean JSON, JSON in code fences or inside prose, with trailing text, with single
quotes, or with keys that are not the attribute keys (memory statements, other case or spacing,
[bracketed] keys). Keys are mapped back when exactly one attribute fits and reported otherwise. A
reply with no JSON object in it is a parse failure, kept with its raw text.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from cimem.text import normalize

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)


@dataclass
class ParsedReply:
    revealed: dict[str, str] = field(default_factory=dict)
    unmatched: list[str] = field(default_factory=list)
    ok: bool = True
    problem: str | None = None


def _candidates(text: str) -> list[str]:
    out = [m.group(1) for m in _FENCE.finditer(text)]
    out.append(text)
    start = text.find("{")
    while start >= 0:
        depth, in_str, quote, esc = 0, False, "", False
        for i in range(start, len(text)):
            ch = text[i]
            if in_str:
                if esc:
                    esc = False
                elif ch == "\\":
                    esc = True
                elif ch == quote:
                    in_str = False
            elif ch in "\"'":
                in_str, quote = True, ch
            elif ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    out.append(text[start : i + 1])
                    break
        start = text.find("{", start + 1)
    return out


def _load(candidate: str) -> object | None:
    candidate = candidate.strip()
    if not candidate:
        return None
    try:
        parsed: object = json.loads(candidate)
        return parsed
    except ValueError:
        pass
    try:
        literal: object = ast.literal_eval(
            candidate
        )  # single quotes, Python literals; never executes code
        return literal
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _norm_key(key: str) -> str:
    return re.sub(r"[\s_\-]+", "_", key.strip().strip("[]`'\" ").lower())


def load_json(text: str | None) -> dict | list | None:
    """The first JSON object or list in a model's reply (fenced, in prose, single-quoted)."""
    for cand in _candidates(text or ""):
        obj = _load(cand)
        if isinstance(obj, (dict, list)):
            return obj
    return None


def parse_reply(
    text: str, keys: list[str], statements: dict[str, str | None] | None = None
) -> ParsedReply:
    """The revealed attributes of a judge reply (thinking already removed)."""
    obj = load_json(text)
    if obj is None:
        return ParsedReply(ok=False, problem="no JSON object in the reply")
    if isinstance(obj, list):
        if not all(isinstance(x, str) for x in obj):
            return ParsedReply(ok=False, problem="a JSON list that is not a list of keys")
        obj = {x: "" for x in obj}
    exact = set(keys)
    by_norm: dict[str, list[str]] = {}
    by_statement: dict[str, list[str]] = {}
    out = ParsedReply()
    for raw_key, evidence in obj.items():
        key = str(raw_key)
        if key in exact:
            match = [key]
        else:
            if not by_norm:  # built only when a key is not given exactly (judges mostly are exact)
                for k in keys:
                    by_norm.setdefault(_norm_key(k), []).append(k)
                for k, s in (statements or {}).items():
                    if s:
                        by_statement.setdefault(normalize(s).rstrip("."), []).append(k)
            match = by_norm.get(_norm_key(key)) or by_statement.get(normalize(key).rstrip("."), [])
        if len(match) == 1:
            sentence = evidence if isinstance(evidence, str) else json.dumps(evidence)
            out.revealed[match[0]] = sentence
        else:
            out.unmatched.append(key)
    return out
