"""A seeded generator of malformed (and some valid) input files for every format cimem reads.

Each :class:`Variant` is one file (or special file) with the format it imitates and what a correct
importer must do with it: ``reject`` (exit 2 with one line naming the file) or ``accept`` (a valid
file, possibly unusual: a message that failed, a null event, markup in a name). Variants marked
``either`` (random byte damage that may or may not leave valid data) may go both ways, but an
accepted one must still give metrics.

Mutations are targeted: a catalogue of (place, replacement, verdict) per format, each applied at a
place the seeded random generator picks (which profile, context, attribute, trial), plus byte-level
damage (truncation, invalid UTF-8, NaN literals, deep nesting), compression damage and special
files. ``python tests/fuzz_inputs.py`` runs every variant through the CLI and prints, per format,
variants / clean errors / tracebacks / accepted / accepted but wrong.
"""

from __future__ import annotations

import copy
import gzip
import io
import json
import os
import random
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fixtures import small_profile

REJECT, ACCEPT, EITHER = "reject", "accept", "either"


@dataclass
class Variant:
    name: str
    fmt: str  # official, profiles, persistbench, hf-csv, hf-parquet, hf-jsonl, special
    path: Path
    verdict: str  # reject, accept, either


# ------------------------------------------------------------------ base documents
def official_base() -> list[dict]:
    return [small_profile("Ann Lee"), small_profile("Bob Roe")]


def profiles_base() -> list[dict]:
    out = []
    for p in official_base():
        p["contexts"] = [{"recipient": c["recipient"], "task": c["task"]} for c in p["contexts"]]
        out.append(p)
    return out


def persistbench_base() -> dict:
    entries = {}
    for i, (r, t) in enumerate((("landlord", "Renew lease"), ("doctor", "Book a visit"))):
        entries[f"e{i}"] = {
            "cim_metadata": {
                "name": "Ann Lee",
                "attribute_memory_map": {"income": "My income is 5.", "hobby": "I knit."},
            },
            "cim_recipient": r,
            "cim_task": t,
            "query": f"Write to the {r}.",
            "required_attributes": ["income"],
            "forbidden_attributes": ["hobby"],
            "results": {
                "m1": {
                    "generations": [
                        {
                            "generation_index": g,
                            "memory_response": f"My income is 5. ({g})",
                            "judge": {
                                "per_attribute": [
                                    {"id": "income", "revealed": True, "evidence": "income 5"},
                                    {"id": "[hobby]", "revealed": False, "evidence": None},
                                ]
                            },
                        }
                        for g in range(2)
                    ]
                }
            },
        }
    return {"metadata": {"models": [{"name": "m1"}], "judge_model": "j"}, "entries": entries}


HF_PROMPT = (
    "# User Knowledge Memories:\n\nMy income is $5.\n\nWrite a complete message to {r} to achieve"
    ' the following purpose: {t}.\nOnly output the message, "quoted", to {r}.\n'
)


def hf_base() -> list[dict]:
    rows = []
    for name in ("Ann", "Bob"):
        for r, t in (("bank loan officer", "Apply for loan"), ("landlord", "Renew lease")):
            for attr, label in (("income", 1.0), ("diagnosis", 0.0), ("hobby", None)):
                rows.append(
                    {
                        "name": name,
                        "attribute": attr,
                        "memory_statement": f"My {attr}.",
                        "label": label,
                        "prompt": HF_PROMPT.format(r=r, t=t),
                    }
                )
    return rows


# ------------------------------------------------------------------ writers
def jsonl(objs: list[Any]) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


def hf_bytes(rows: list[dict], kind: str) -> bytes:
    import pyarrow as pa

    if kind == "jsonl":
        return jsonl(rows)
    table = pa.Table.from_pylist(rows)
    sink = io.BytesIO()
    if kind == "csv":
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, sink)
    else:
        import pyarrow.parquet as pq

        pq.write_table(table, sink)
    return sink.getvalue()


# ------------------------------------------------------------------ official catalogue
Mutation = tuple[str, Callable[[Any, random.Random], None], str]


def _profile(doc: list[dict], rng: random.Random) -> dict:
    return doc[rng.randrange(len(doc))]


def _ctx(doc, rng) -> dict:
    p = _profile(doc, rng)
    return p["contexts"][rng.randrange(len(p["contexts"]))]


def _attr(doc, rng) -> dict:
    p = _profile(doc, rng)
    return p["information_attributes"][rng.choice(list(p["information_attributes"]))]


def _labels(doc, rng) -> dict:
    c = _ctx(doc, rng)
    key = rng.choice([k for k in c if k.startswith("labels_")])
    return c[key]


def _fractions(doc, rng) -> dict:
    lab = _labels(doc, rng)
    return lab[rng.choice(list(lab))]


def _trial_key(c: dict, rng) -> str:
    return rng.choice([k for k in c if k.startswith("combination")])


def _trial(doc, rng) -> dict:
    c = _ctx(doc, rng)
    return c[_trial_key(c, rng)]


def _solution(doc, rng) -> dict:
    return _trial(doc, rng)["model_solution"]


def _set(getter, key, value) -> Callable:
    def apply(doc, rng):
        getter(doc, rng)[key] = copy.deepcopy(value)

    return apply


def _delete(getter, key) -> Callable:
    def apply(doc, rng):
        getter(doc, rng).pop(key, None)

    return apply


def _rename_trial(new: str) -> Callable:
    def apply(doc, rng):
        c = _ctx(doc, rng)
        c[new] = c.pop(_trial_key(c, rng))

    return apply


def _reveal(value) -> Callable:
    def apply(doc, rng):
        rev = _solution(doc, rng)["revealed_attributes"]
        rev[rng.choice(list(rev))] = copy.deepcopy(value)

    return apply


def _bio(doc, rng):
    return _profile(doc, rng)["bio"]


def nest(depth: int, leaf: Any = 1) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


BAD_TEXT = ["", "   ", 7, None, [], {}, True]
BAD_FRACTIONS = ["0.5", True, 5.0, -3.0, 1.0000001, None, [], {}, 2**70]
BAD_REVEALS = [2, -1, "1", True, 1.0, None, [], {}, 0.5]


def official_catalogue() -> list[Mutation]:
    m: list[Mutation] = []
    for v in BAD_TEXT:
        m.append((f"bio.name={v!r}", _set(_bio, "name", v), REJECT))
    for v in ("x", [], None):
        m.append((f"bio={v!r}", _set(_profile, "bio", v), REJECT))
    for v in ({"a": 1}, [1], True):
        m.append((f"bio.sex={v!r}", _set(_bio, "sex", v), REJECT))
    for v in ({}, [], "x", None):
        m.append(
            (f"information_attributes={v!r}", _set(_profile, "information_attributes", v), REJECT)
        )
    for v in (5, None, [], True):
        m.append((f"memory_statement={v!r}", _set(_attr, "memory_statement", v), REJECT))
    m.append(("memory_statement missing", _delete(_attr, "memory_statement"), REJECT))
    m.append(("value missing", _delete(_attr, "value"), REJECT))
    for v in (5, [], {}):
        m.append((f"information_domain={v!r}", _set(_attr, "information_domain", v), REJECT))
    m.append(("value nested 300 deep", _set(_attr, "value", nest(300)), REJECT))
    for v in ({}, "x", None, 5):
        m.append((f"contexts={v!r}", _set(_profile, "contexts", v), REJECT))
    for key in ("recipient", "task"):
        for v in ("", None, 5, ["x"]):
            m.append((f"{key}={v!r}", _set(_ctx, key, v), REJECT))
    for part in ("necessary", "private", "unlabeled"):
        for v in BAD_FRACTIONS:
            m.append((f"{part}={v!r}", _set(_fractions, part, v), REJECT))
        m.append((f"{part} missing", _delete(_fractions, part), REJECT))
    m.append(("label object a string", _set(_ctx, "labels_combined", "x"), REJECT))
    m.append(
        (
            "label for an unknown statement",
            _set(_labels, "I like jazz.", {"necessary": 1, "private": 0, "unlabeled": 0}),
            REJECT,
        )
    )
    for key in (
        "combination_num_to_share=3_num_not_to_share=0_trial=64",
        "combination_num_to_share=3_num_not_to_share=0_trial=-1",
        "combination_num_to_share=2147483648_num_not_to_share=0_trial=1",
        "combination_num_to_share=3_num_not_to_share=99999999999_trial=1",
        "combination_num_to_share=x_trial=1",
        "combination_num_to_share=3_num_not_to_share=0_trial=1.5",
        "combination",
    ):
        m.append((f"trial key {key}", _rename_trial(key), REJECT))

    def trial_payload(value):
        def apply(doc, rng):
            c = _ctx(doc, rng)
            c[_trial_key(c, rng)] = copy.deepcopy(value)

        return apply

    for v in ("x", [], 5):
        m.append((f"trial payload={v!r}", trial_payload(v), REJECT))
    for v in ("x", 5, []):
        m.append((f"model_solution={v!r}", _set(_trial, "model_solution", v), REJECT))
    for v in (5, [], {}):
        m.append((f"response_solution={v!r}", _set(_solution, "response_solution", v), REJECT))
    for v in BAD_REVEALS:
        m.append((f"reveal value={v!r}", _reveal(v), REJECT))
    m.append(
        (
            "reveal of an unknown key",
            _set(_solution, "revealed_attributes", {"shoe_size": 1}),
            REJECT,
        )
    )
    for v in ("x", [], 5):
        m.append((f"revealed_attributes={v!r}", _set(_solution, "revealed_attributes", v), REJECT))
        m.append(
            (f"explanation={v!r}", _set(_solution, "revealed_attributes_explanation", v), REJECT)
        )
    for v in (5, [], {}):
        m.append((f"prompt={v!r}", _set(_trial, "prompt", v), REJECT))
    for v in ("x", [5], ["shoe_size"]):
        m.append((f"to_share_attributes={v!r}", _set(_trial, "to_share_attributes", v), REJECT))
    # valid, if unusual
    m.append(
        ("model_solution=None (failed generation)", _set(_trial, "model_solution", None), ACCEPT)
    )
    m.append(("response_solution=None", _set(_solution, "response_solution", None), ACCEPT))
    m.append(
        (
            "revealed_attributes=None (not judged)",
            _set(_solution, "revealed_attributes", None),
            ACCEPT,
        )
    )
    m.append(
        ("evidence an int", _set(_solution, "revealed_attributes_explanation", {"name": 5}), ACCEPT)
    )
    m.append(
        (
            "evidence nested 300 deep",
            _set(_solution, "revealed_attributes_explanation", {"nope": nest(300)}),
            REJECT,
        )
    )
    m.append(("event=None", _set(_attr, "event", None), ACCEPT))
    m.append(("value a deep object", _set(_attr, "value", {"a": [{"b": None}]}), ACCEPT))
    m.append(("age as text", _set(_bio, "age", "forty"), ACCEPT))
    m.append(("markup in the name", _set(_bio, "name", "<script>alert(1)</script>"), ACCEPT))
    m.append(
        (
            "markup in a message",
            _set(_solution, "response_solution", "<img src=x onerror=1>**b**"),
            ACCEPT,
        )
    )
    m.append(("unknown extra key", _set(_profile, "extra", {"x": [1, 2]}), ACCEPT))
    m.append(("fraction 0 as an integer", _set(_fractions, "private", 0), ACCEPT))
    return m


def profiles_catalogue() -> list[Mutation]:
    m: list[Mutation] = []
    for name, fn, verdict in official_catalogue():
        if any(
            w in name
            for w in (
                "trial",
                "reveal",
                "solution",
                "explanation",
                "prompt",
                "to_share",
                "label",
                "necessary",
                "private",
                "unlabeled",
                "evidence",
                "message",
            )
        ):
            continue
        m.append((name, fn, verdict))
    m.append(("a context with a label key", _set(_ctx, "labels_combined", {}), REJECT))
    m.append(
        (
            "a context with a trial",
            _set(_ctx, "combination_num_to_share=3_num_not_to_share=0_trial=0", {}),
            REJECT,
        )
    )
    return m


# ------------------------------------------------------------------ PersistBench catalogue
def _entry(doc, rng):
    return doc["entries"][rng.choice(list(doc["entries"]))]


def _cm(doc, rng):
    return _entry(doc, rng)["cim_metadata"]


def _gen(doc, rng):
    gens = _entry(doc, rng)["results"]["m1"]["generations"]
    return gens[rng.randrange(len(gens))]


def _item(doc, rng):
    per = _gen(doc, rng)["judge"]["per_attribute"]
    return per[0]


def _root(doc, rng):
    return doc


def _meta(doc, rng):
    return doc["metadata"]


def persistbench_catalogue() -> list[Mutation]:
    m: list[Mutation] = []
    for v in ("x", [], 5):
        m.append((f"metadata={v!r}", _set(_root, "metadata", v), REJECT))
    for v in ([{"name": None}], [{"name": 5}], [{"name": ""}], ["m1"], "m1"):
        m.append((f"models={v!r}", _set(_meta, "models", v), REJECT))
    for v in ({}, [], "x", None):
        m.append((f"entries={v!r}", _set(_root, "entries", v), REJECT))

    def entry_value(v):
        def apply(doc, rng):
            doc["entries"][rng.choice(list(doc["entries"]))] = copy.deepcopy(v)

        return apply

    for v in (5, "x", []):
        m.append((f"entry={v!r}", entry_value(v), REJECT))
    m.append(("cim_metadata missing", _delete(_entry, "cim_metadata"), REJECT))
    for v in BAD_TEXT:
        m.append((f"cim name={v!r}", _set(_cm, "name", v), REJECT))
    for v in ({}, [], "x"):
        m.append((f"attribute_memory_map={v!r}", _set(_cm, "attribute_memory_map", v), REJECT))
    for v in (None, 5, {}, ""):
        m.append(
            (
                f"memory map value={v!r}",
                lambda d, r, v=v: _cm(d, r)["attribute_memory_map"].update(hobby=v),
                REJECT,
            )
        )
    for key in ("cim_recipient", "cim_task"):
        for v in (None, 5, ""):
            m.append((f"{key}={v!r}", _set(_entry, key, v), REJECT))
    for v in ("x", ["shoe_size"], [5]):
        m.append((f"required_attributes={v!r}", _set(_entry, "required_attributes", v), REJECT))
    for v in ([], "x"):
        m.append((f"results={v!r}", _set(_entry, "results", v), REJECT))
    m.append(("results[m1] a string", lambda d, r: _entry(d, r)["results"].update(m1="x"), REJECT))
    m.append(
        (
            "generations an object",
            lambda d, r: _entry(d, r)["results"]["m1"].update(generations={}),
            REJECT,
        )
    )
    m.append(
        (
            "generation an int",
            lambda d, r: _entry(d, r)["results"]["m1"]["generations"].append(5),
            REJECT,
        )
    )
    for v in (-1, 64, 1.5, "0", True, 2**31):
        m.append((f"generation_index={v!r}", _set(_gen, "generation_index", v), REJECT))
    m.append(
        (
            "generation_index repeated",
            lambda d, r: [
                g.update(generation_index=0) for g in _entry(d, r)["results"]["m1"]["generations"]
            ],
            REJECT,
        )
    )
    for v in (5, [], {}):
        m.append((f"memory_response={v!r}", _set(_gen, "memory_response", v), REJECT))
    for v in ("x", 5):
        m.append((f"judge={v!r}", _set(_gen, "judge", v), REJECT))
    m.append(
        (
            "per_attribute a string",
            lambda d, r: _gen(d, r)["judge"].update(per_attribute="x"),
            REJECT,
        )
    )
    m.append(
        (
            "per_attribute item an int",
            lambda d, r: _gen(d, r)["judge"]["per_attribute"].append(5),
            REJECT,
        )
    )
    for v in ("yes", 1, None):
        m.append((f"revealed={v!r}", _set(_item, "revealed", v), REJECT))
    for v in (3, [], {}):
        m.append((f"evidence={v!r}", _set(_item, "evidence", v), REJECT))
    # valid, if unusual
    m.append(("generation_index null", _set(_gen, "generation_index", None), EITHER))
    m.append(("judge id unknown (parse failure)", _set(_item, "id", "attr_12"), ACCEPT))
    m.append(
        (
            "judge without per_attribute",
            lambda d, r: _gen(d, r).update(judge={"raw_api_response": nest(300)}),
            ACCEPT,
        )
    )
    m.append(("a generation that failed", _set(_gen, "error", "timeout"), ACCEPT))
    m.append(
        (
            "markup in the name",
            lambda d, r: [e["cim_metadata"].update(name="<b>x</b>") for e in d["entries"].values()],
            ACCEPT,
        )
    )
    return m


# ------------------------------------------------------------------ HF rows catalogue
def hf_catalogue(kind: str) -> list[tuple[str, Callable[[list[dict], random.Random], None], str]]:
    def row_set(col, value):
        def apply(rows, rng):
            rows[rng.randrange(len(rows))][col] = value

        return apply

    def column(col, fn):
        def apply(rows, rng):
            for i, r in enumerate(rows):
                r[col] = fn(i, r)

        return apply

    m = []
    for v in ("", "  ", None):
        m.append((f"name={v!r}", row_set("name", v), REJECT))
        m.append((f"attribute={v!r}", row_set("attribute", v), REJECT))
    for v in (0.5, 2.0, -1.0):
        m.append((f"label={v!r}", row_set("label", v), REJECT))
    m.append(("label column of text", column("label", lambda i, r: "yes"), REJECT))
    m.append(("prompt without a request line", row_set("prompt", "Hello there."), REJECT))
    m.append(("prompt column of integers", column("prompt", lambda i, r: i), REJECT))
    # CSV has no types: a name "0" is text there
    m.append(
        (
            "name column of integers",
            column("name", lambda i, r: i // 6),  # integers, each row of a name once
            ACCEPT if kind == "csv" else REJECT,
        )
    )
    m.append(("no name column", lambda rows, rng: [r.pop("name") for r in rows], REJECT))
    m.append(("memory_statement null", row_set("memory_statement", None), ACCEPT))
    m.append(("extra column", column("extra", lambda i, r: "x"), ACCEPT))
    m.append(("markup in a name", column("name", lambda i, r: "<i>" + r["name"] + "</i>"), ACCEPT))
    return m


# ------------------------------------------------------------------ byte-level damage
def truncations(data: bytes, rng: random.Random, n: int) -> Iterator[tuple[str, bytes]]:
    for _ in range(n):
        cut = rng.randrange(1, len(data) - 1)
        yield f"cut at byte {cut}", data[:cut]


def invalid_utf8(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    at = data.index(b"a", rng.randrange(len(data) // 4, len(data) // 2))
    return f"invalid UTF-8 at byte {at}", data[:at] + b"\xff" + data[at + 1 :]


def damaged_gzip(data: bytes, rng: random.Random) -> Iterator[tuple[str, bytes, str]]:
    gz = gzip.compress(data, mtime=0)
    yield "gzipped", gz, ACCEPT
    yield "gzip cut in half", gz[: len(gz) // 2], REJECT
    mid = rng.randrange(12, len(gz) - 12)
    yield (
        "gzip with damaged bytes",
        gz[:mid] + bytes(b ^ 0x5A for b in gz[mid : mid + 8]) + gz[mid + 8 :],
        REJECT,
    )
    yield "gzip trailer cut", gz[:-4], REJECT


# ------------------------------------------------------------------ Inspect logs
def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def eval_variants() -> list[tuple[str, bytes]]:
    """Files named .eval that are no Inspect log: each must be refused in one line."""
    header = json.dumps({"version": 2, "status": "success"}).encode()
    whole = _zip({"header.json": header, "_journal/start.json": header})
    return [
        ("an .eval of text", b"this is no zip archive\n"),
        ("an empty .eval", b""),
        ("an .eval cut short", whole[: len(whole) // 2]),
        ("an .eval with a wrong magic number", b"PK\x09\x09" + whole[4:]),
        ("a zip of other files", _zip({"notes.txt": b"hello"})),
        ("an .eval whose header is no JSON", _zip({"header.json": b"{not json"})),
        ("an .eval whose header Inspect's schema refuses", _zip({"header.json": header})),
    ]


# ------------------------------------------------------------------ all variants
def variants(seed: int, out: Path) -> list[Variant]:
    """Every variant, written under ``out`` (deterministic for a seed)."""
    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    found: list[Variant] = []

    def add(fmt: str, name: str, data: bytes, verdict: str, suffix: str) -> None:
        path = out / f"{len(found):04d}-{fmt}{suffix}"
        path.write_bytes(data)
        found.append(Variant(name, fmt, path, verdict))

    # official run output
    base = official_base()
    for name, fn, verdict in official_catalogue():
        doc = copy.deepcopy(base)
        fn(doc, rng)
        add("official", name, jsonl(doc), verdict, ".jsonl")
    data = jsonl(base)
    for name, cut in truncations(data, rng, 8):
        verdict = EITHER if cut.endswith(b"\n") else REJECT
        add("official", name, cut, verdict, ".jsonl")
    add("official", *invalid_utf8(data, rng), REJECT, ".jsonl")
    official_lines = data.split(b"\n")
    if len(official_lines) > 2:
        glued = b"\n".join([official_lines[0] + official_lines[1], *official_lines[2:]])
        add("official", "two records glued on one line", glued, REJECT, ".jsonl")
    add(
        "official",
        "NaN fraction",
        data.replace(b'"private": 0.0', b'"private": NaN', 1),
        REJECT,
        ".jsonl",
    )
    add(
        "official",
        "Infinity fraction",
        data.replace(b'"private": 0.0', b'"private": Infinity', 1),
        REJECT,
        ".jsonl",
    )
    deep = b"[" * 1000 + b"1" + b"]" * 1000
    add("official", "line nested 1000 deep", deep + b"\n", REJECT, ".jsonl")
    add(
        "official",
        "value nested 1000 deep",
        data.replace(b'"value": 95000', b'"value": ' + deep, 1),
        REJECT,
        ".jsonl",
    )
    add(
        "official",
        "value nested 2000 deep",
        data.replace(b'"value": 95000', b'"value": ' + deep * 2, 1),
        REJECT,
        ".jsonl",
    )
    add(
        "official",
        "HTML page",
        b"<!doctype html><html><body>Not found</body></html>\n",
        REJECT,
        ".jsonl",
    )
    add("official", "a JSON array of run output", json.dumps(base).encode(), REJECT, ".json")
    for top in (b"5", b"null", b'"text"', b"[1, 2]"):
        add("official", f"line {top!r}", top + b"\n", REJECT, ".jsonl")
    for name, gz, verdict in damaged_gzip(data, rng):
        add("official", name, gz, verdict, ".jsonl.gz")
    # profiles.json
    pbase = profiles_base()
    for name, fn, verdict in profiles_catalogue():
        doc = copy.deepcopy(pbase)
        try:
            fn(doc, rng)
        except (IndexError, KeyError, TypeError):  # a mutation of run output: not in profiles
            continue
        add("profiles", name, json.dumps(doc).encode(), verdict, ".json")
    pdata = json.dumps(pbase, indent=1).encode()
    for name, cut in truncations(pdata, rng, 4):
        add("profiles", name, cut, REJECT, ".json")
    add("profiles", *invalid_utf8(pdata, rng), REJECT, ".json")
    add("profiles", "empty list", b"[]", REJECT, ".json")
    for name, gz, verdict in damaged_gzip(pdata, rng):
        add("profiles", name, gz, verdict, ".json.gz")
    # PersistBench
    bbase = persistbench_base()
    for name, fn, verdict in persistbench_catalogue():
        doc = copy.deepcopy(bbase)
        fn(doc, rng)
        add("persistbench", name, json.dumps(doc).encode(), verdict, ".json")
    bdata = json.dumps(bbase, indent=1).encode()
    for name, cut in truncations(bdata, rng, 4):
        add("persistbench", name, cut, REJECT, ".json")
    add("persistbench", *invalid_utf8(bdata, rng), REJECT, ".json")
    for name, gz, verdict in damaged_gzip(bdata, rng):
        add("persistbench", name, gz, verdict, ".json.gz")
    # Hugging Face rows in three containers
    hbase = hf_base()
    for kind in ("csv", "parquet", "jsonl"):
        fmt = f"hf-{kind}"
        for name, fn, verdict in hf_catalogue(kind):
            rows = copy.deepcopy(hbase)
            fn(rows, rng)
            try:
                blob = hf_bytes(rows, kind)
            except Exception:  # a writer that cannot even write it: nothing to read
                continue
            add(fmt, name, blob, verdict, f".{kind}")
        hdata = hf_bytes(hbase, kind)
        for name, gz, verdict in damaged_gzip(hdata, rng):
            add(fmt, name, gz, verdict, f".{kind}.gz")
        cuts = 4 if kind == "csv" else 2
        for name, cut in truncations(hdata, rng, cuts):
            whole_lines = kind == "jsonl" and cut.endswith(b"\n")
            add(fmt, name, cut, EITHER if kind == "csv" or whole_lines else REJECT, f".{kind}")
    csv = hf_bytes(hbase, "csv")
    quoted = csv.index(b'"# User', len(csv) // 2)
    add("hf-csv", "cut inside a quoted field", csv[: quoted + 40], REJECT, ".csv")
    add("hf-csv", *invalid_utf8(csv, rng), REJECT, ".csv")
    at = csv.index(b"# User", len(csv) // 2) + 3  # inside a prompt, a quoted multi-line field
    add(
        "hf-csv",
        "invalid UTF-8 in the prompt column",
        csv[:at] + b"\xff\xfe" + csv[at:],
        REJECT,
        ".csv",
    )
    hf_lines = hf_bytes(hbase, "jsonl").split(b"\n")
    glued = b"\n".join([hf_lines[0] + hf_lines[1], *hf_lines[2:]])
    add("hf-jsonl", "two records glued on one line", glued, REJECT, ".jsonl")
    add("hf-csv", "ragged row", csv + b'"Ann","x"\n', REJECT, ".csv")
    add("hf-csv", "header only", csv.split(b"\n", 1)[0] + b"\n", REJECT, ".csv")
    add(
        "hf-csv",
        "label 0.5 as text",
        csv.replace(b",1,", b",0.5,", 1) if b",1," in csv else csv.replace(b",1.0,", b",0.5,", 1),
        REJECT,
        ".csv",
    )
    # Inspect logs (.eval: a zip of JSON members)
    for name, blob in eval_variants():
        add("inspect", name, blob, REJECT, ".eval")
    # special files
    special = out / "special"
    special.mkdir(exist_ok=True)
    found.append(Variant("a folder", "special", special, REJECT))
    fifo = out / "fifo.jsonl"
    if not fifo.exists():
        os.mkfifo(fifo)
    found.append(Variant("a FIFO", "special", fifo, REJECT))
    loop = out / "loop.jsonl"
    if not loop.is_symlink():
        loop.symlink_to(loop)
    found.append(Variant("a symlink loop", "special", loop, REJECT))
    if os.path.exists("/dev/zero"):
        found.append(Variant("/dev/zero", "special", Path("/dev/zero"), REJECT))
    found.append(Variant("a missing file", "special", out / "absent.jsonl", REJECT))
    add("special", "an empty file", b"", REJECT, ".jsonl")
    add(
        "special",
        "binary garbage",
        bytes(rng.randrange(256) for _ in range(3000)),
        REJECT,
        ".jsonl",
    )
    add("special", "parquet magic, nothing else", b"PAR1" + b"\x00" * 20, REJECT, ".parquet")
    return found


# ------------------------------------------------------------------ running them
@dataclass
class Outcome:
    variant: Variant
    code: int | None  # exit status; None when an exception escaped (a traceback)
    stderr: str
    metrics_ok: bool | None = None  # for accepted variants


def run_cli(args: list[str]) -> tuple[int | None, str, str]:
    """The CLI in this process: (exit status or None for an escaped exception, stdout, stderr)."""
    import contextlib

    from cimem.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 1
        except Exception as exc:  # what the user would see as a traceback
            return None, out.getvalue(), f"{type(exc).__name__}: {exc}"
    return code, out.getvalue(), err.getvalue()


def try_variant(v: Variant, db: Path) -> Outcome:
    code, _, err = run_cli(["ingest", str(v.path), "--db", str(db)])
    outcome = Outcome(v, code, err)
    if code == 0:
        from cimem.store import Store

        with Store.open(db) as store:
            run_id = max(store.run_ids())
        # --allow-partial: a file with trials its judge did not see is accepted, and metrics then
        # refuses a judge covering part of the run unless asked (a designed one-line refusal)
        mcode, _, merr = run_cli(
            ["metrics", "--db", str(db), "--run", str(run_id), "--allow-partial"]
        )
        outcome.metrics_ok = mcode == 0
        with Store.open(db) as store:
            if run_id != 1:
                store.delete_run(run_id)
    return outcome


def summary(outcomes: list[Outcome]) -> dict[str, dict[str, int]]:
    """Per format: variants, clean errors, tracebacks, accepted, accepted but wrong."""
    table: dict[str, dict[str, int]] = {}
    for o in outcomes:
        row = table.setdefault(
            o.variant.fmt,
            {
                "variants": 0,
                "clean errors": 0,
                "tracebacks": 0,
                "accepted": 0,
                "accepted but wrong": 0,
            },
        )
        row["variants"] += 1
        if o.code is None:
            row["tracebacks"] += 1
        elif o.code == 0:
            row["accepted"] += 1
            if o.variant.verdict == REJECT or not o.metrics_ok:
                row["accepted but wrong"] += 1
        elif clean(o):
            row["clean errors"] += 1
    return table


def clean(o: Outcome) -> bool:
    """Exit 2 and one line that names the file."""
    lines = o.stderr.strip("\n").split("\n")
    return o.code == 2 and len(lines) == 1 and str(o.variant.path) in lines[0]


def _write_base(tmp: Path) -> Path:
    path = tmp / "base.jsonl"
    path.write_bytes(jsonl([small_profile("Base One")]))
    return path


if __name__ == "__main__":
    import sys
    import tempfile

    sys.path.insert(0, str(Path(__file__).parent))
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        db = tmp_path / "fuzz.duckdb"
        code, _, err = run_cli(["ingest", str(_write_base(tmp_path)), "--db", str(db)])
        assert code == 0, err
        results = [
            try_variant(v, db)
            for v in variants(int(sys.argv[1]) if len(sys.argv) > 1 else 0, tmp_path / "v")
        ]
        rows = summary(results)
        total = {k: sum(r[k] for r in rows.values()) for k in next(iter(rows.values()))}
        print(f"{'format':14s} " + " ".join(f"{k:>18s}" for k in total))
        for fmt, r in [*rows.items(), ("total", total)]:
            print(f"{fmt:14s} " + " ".join(f"{r[k]:18d}" for k in total))
        for o in results:
            if (
                o.code is None
                or (o.code == 0 and o.variant.verdict == REJECT)
                or (o.code not in (0, None) and not clean(o))
                or o.metrics_ok is False
            ):
                print(
                    f"  {o.variant.fmt} {o.variant.name!r}: code {o.code}: {o.stderr.strip()[:300]}"
                )
