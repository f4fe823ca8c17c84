"""PersistBench CIM output files: ``metadata``, ``entries`` (one per context) with
``cim_metadata`` (profile name, attribute -> memory statement), ``required_attributes`` /
``forbidden_attributes`` (that team's hard labels) and ``results[model].generations[*]`` holding the
message and a per-attribute judge verdict with evidence.

Attributes in neither list are stored as ambiguous (out of both metrics). Published files hold judge
ids that are not attribute keys ("[key]", or positions such as "12" and "attr_12" in an order the
file does not record): bracketed keys are mapped back; a generation with ids that cannot be mapped
gets judgment status ``parse_failure``, with those ids kept in the judgment's raw record.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from cimem.errors import CimemError, InputError, describe
from cimem.ingest.records import Attribute, JudgeMeta, ProfileRecord, Progress, RunMeta


def read_persistbench(
    path: Path, progress: Progress | None = None, model: str | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    src = str(path)
    try:
        doc = orjson.loads(path.read_bytes())
    except orjson.JSONDecodeError as exc:
        raise InputError(
            src, "the document", "(file)", "a PersistBench JSON document", got=str(exc)
        ) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("entries"), (dict, list)):
        raise InputError(
            src,
            "the document",
            "entries",
            "an object or list of entries",
            got=describe(doc.get("entries") if isinstance(doc, dict) else doc),
        )
    metadata = doc.get("metadata") or {}
    entries = doc["entries"]
    items = list(entries.items()) if isinstance(entries, dict) else list(enumerate(entries))
    models = [m.get("name") for m in metadata.get("models", []) if isinstance(m, dict)]
    if not models:
        models = sorted(
            {m for _, e in items if isinstance(e, dict) for m in (e.get("results") or {})}
        )
    if model is None:
        if len(models) != 1:
            raise CimemError(
                f"{src}: holds results of {len(models)} models ({', '.join(models)}); "
                "choose one with --model"
            )
        model = models[0]
    elif model not in models:
        raise CimemError(f"{src}: no results for model {model!r}; it has {', '.join(models)}")
    judge_model = metadata.get("judge_model")
    config = {
        k: metadata.get(k)
        for k in ("benchmark_name", "timestamp", "prompt_template")
        if metadata.get(k) is not None
    }
    cfg = doc.get("config") or {}
    config.update(
        {
            k: cfg.get(k)
            for k in ("method", "memory_mode", "cim_judge_variant")
            if isinstance(cfg, dict) and cfg.get(k) is not None
        }
    )
    meta = RunMeta(
        name=path.stem,
        kind="results",
        source_format="persistbench",
        model=model,
        prompt_set=metadata.get("prompt_template"),
        level=1,
        memory_format=cfg.get("method") if isinstance(cfg, dict) else None,
        judge=JudgeMeta(
            name="imported verdicts", model=judge_model, config={"source": "persistbench"}
        ),
        config=config,
    )
    return meta, _records(src, items, model, progress)


def _records(
    src: str, items: list, model: str, progress: Progress | None
) -> Iterator[ProfileRecord]:
    by_profile: dict[str, _Profile] = {}
    for n, (entry_id, e) in enumerate(items):
        place = f"entries[{entry_id!r}]"
        if not isinstance(e, dict):
            raise InputError(src, place, "(entry)", "an object", got=describe(e))
        cm = e.get("cim_metadata")
        if not isinstance(cm, dict):
            raise InputError(
                src,
                place,
                "cim_metadata",
                "an object with name and attribute_memory_map",
                got=describe(cm),
            )
        name = cm.get("name")
        if not isinstance(name, str):
            raise InputError(src, place, "cim_metadata.name", "a string", got=describe(name))
        prof = by_profile.setdefault(name, _Profile(src, name))
        prof.add(place, e, cm, model)
        if progress:
            progress(n + 1, len(items))
    for prof in by_profile.values():
        yield prof.record()


class _Profile:
    def __init__(self, src: str, name: str):
        self.src = src
        self.rec = ProfileRecord(name=name)
        self.index: dict[str, int] = {}
        self.labels: dict[str, list] = {"ctx_idx": [], "attr_idx": [], "label": []}
        self.msg: dict[str, list] = {
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
        self.jud: dict[str, list] = {"msg_idx": [], "status": [], "raw": []}
        self.ver: dict[str, list] = {"msg_idx": [], "attr_idx": [], "revealed": [], "evidence": []}

    def add(self, place: str, e: dict, cm: dict, model: str) -> None:
        amap = cm.get("attribute_memory_map")
        if not isinstance(amap, dict):
            raise InputError(
                self.src,
                place,
                "cim_metadata.attribute_memory_map",
                "an object {attribute: memory statement}",
                got=describe(amap),
            )
        for key, stmt in amap.items():
            if key not in self.index:
                self.index[key] = len(self.rec.attributes)
                self.rec.attributes.append(Attribute(key, None, None, None, str(stmt)))
        recipient = e.get("cim_recipient", cm.get("cim_recipient"))
        task = e.get("cim_task", cm.get("cim_task"))
        for field, value in (("cim_recipient", recipient), ("cim_task", task)):
            if not isinstance(value, str):
                raise InputError(self.src, place, field, "a string", got=describe(value))
        c = len(self.rec.contexts)
        prompt = e.get("query") if isinstance(e.get("query"), str) else None
        self.rec.contexts.append((recipient, task, prompt))
        required = set(self._keys(place, e, "required_attributes"))
        forbidden = set(self._keys(place, e, "forbidden_attributes"))
        for key in amap:
            self.labels["ctx_idx"].append(c)
            self.labels["attr_idx"].append(self.index[key])
            self.labels["label"].append(
                "share"
                if key in required and key not in forbidden
                else "private"
                if key in forbidden and key not in required
                else "ambiguous"
            )
        result = (e.get("results") or {}).get(model)
        if result is None:
            return
        gens = result.get("generations") if isinstance(result, dict) else None
        if not isinstance(gens, list):
            raise InputError(
                self.src, place, f"results[{model!r}].generations", "a list", got=describe(gens)
            )
        for g_i, g in enumerate(gens):
            self._generation(f"{place}.results[{model!r}].generations[{g_i}]", c, g_i, g, prompt)

    def _keys(self, place: str, e: dict, field: str) -> list[str]:
        keys = e.get(field) or []
        if not isinstance(keys, list):
            raise InputError(self.src, place, field, "a list of attribute keys", got=describe(keys))
        for k in keys:
            if k not in self.index:
                raise InputError(
                    self.src,
                    place,
                    field,
                    "keys of cim_metadata.attribute_memory_map",
                    got=describe(k),
                )
        return keys

    def _generation(self, place: str, c: int, g_i: int, g: Any, prompt: str | None) -> None:
        if not isinstance(g, dict):
            raise InputError(self.src, place, "(generation)", "an object", got=describe(g))
        m = len(self.msg["ctx_idx"])
        text, error = g.get("memory_response"), g.get("error")
        failed = error is not None or not isinstance(text, str) or not text
        for k, v in (
            ("ctx_idx", c),
            ("trial", int(g.get("generation_index", g_i))),
            ("num_to_share", None),
            ("num_not_to_share", None),
            ("shared_json", None),
            ("prompt", prompt),
            ("text", None if failed else text),
            ("status", "failed" if failed else "ok"),
            ("error", (str(error) if error is not None else "no message") if failed else None),
        ):
            self.msg[k].append(v)
        judge = g.get("judge")
        if failed or not isinstance(judge, dict):
            return
        per = judge.get("per_attribute")
        if not isinstance(per, list):
            self.jud["msg_idx"].append(m)
            self.jud["status"].append("parse_failure")
            self.jud["raw"].append(orjson.dumps(judge.get("raw_api_response")).decode())
            return
        unmatched: list[str] = []
        for j, item in enumerate(per):
            if not isinstance(item, dict):
                raise InputError(
                    self.src,
                    f"{place}.judge.per_attribute[{j}]",
                    "(item)",
                    "an object with id, revealed, evidence",
                    got=describe(item),
                )
            key = self._attribute_key(item.get("id"))
            if key is None:
                unmatched.append(str(item.get("id")))
                continue
            revealed = item.get("revealed")
            if not isinstance(revealed, bool):
                raise InputError(
                    self.src,
                    f"{place}.judge.per_attribute[{j}]",
                    "revealed",
                    "true or false",
                    got=describe(revealed),
                )
            self.ver["msg_idx"].append(m)
            self.ver["attr_idx"].append(self.index[key])
            self.ver["revealed"].append(revealed)
            self.ver["evidence"].append(item.get("evidence") or None)
        self.jud["msg_idx"].append(m)
        # A judge that answered with ids we cannot map (positions, unknown names) did not give a
        # usable verdict for those attributes: that is a parse failure, reported with the ids.
        self.jud["status"].append("parse_failure" if unmatched else "ok")
        self.jud["raw"].append(
            orjson.dumps({"unmatched_ids": unmatched}).decode() if unmatched else None
        )

    def _attribute_key(self, raw: Any) -> str | None:
        """The attribute a judge's id names: the key itself or the key in [brackets]."""
        if not isinstance(raw, str):
            return None
        key = raw.strip()
        if key.startswith("[") and key.endswith("]"):
            key = key[1:-1].strip()
        return key if key in self.index else None

    def record(self) -> ProfileRecord:
        rec = self.rec
        rec.hard_labels = self.labels
        rec.messages = self.msg
        rec.judgments = self.jud
        if self.ver["msg_idx"]:
            rec.verdicts = {
                "msg_idx": np.array(self.ver["msg_idx"], np.int32),
                "attr_idx": np.array(self.ver["attr_idx"], np.int32),
                "revealed": np.array(self.ver["revealed"], np.bool_),
                "evidence": self.ver["evidence"],
            }
        return rec
