"""PersistBench CIM output files: ``metadata``, ``entries`` (one per context) with
``cim_metadata`` (profile name, attribute -> memory statement), ``required_attributes`` /
``forbidden_attributes`` (that team's hard labels) and ``results[model].generations[*]`` holding the
message and a per-attribute judge verdict with evidence; when the file kept the raw API responses,
each message's finish reason and token counts (:mod:`cimem.ingest.endings`).

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

from cimem.errors import CimemError
from cimem.ingest.endings import NOT_KNOWN, ending
from cimem.ingest.formats import SourceFormat
from cimem.ingest.profiles import load_json_document
from cimem.ingest.records import (
    ENDING_COLUMNS,
    MESSAGE_COLUMNS,
    Attribute,
    JudgeMeta,
    ProfileRecord,
    Progress,
    RunMeta,
)
from cimem.ingest.validate import MAX_TRIALS, PERSISTBENCH, Checker, Parts
from cimem.store.enums import RunKind


def read_persistbench(
    path: Path, progress: Progress | None = None, model: str | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    """The run of one model's results in a PersistBench file (``model`` chooses it when the file
    holds several) and its profiles, which are read as the iterator is consumed."""
    src = str(path)
    doc = load_json_document(path, "a PersistBench JSON document (UTF-8)", _entry_place)
    top = Checker(PERSISTBENCH, src, "the document")
    top.value("(document)", doc, "(document)")
    metadata = top.get(doc, "metadata", "metadata") or {}
    entries = top.get(doc, "entries", "entries")
    items = list(entries.items()) if isinstance(entries, dict) else list(enumerate(entries))
    model = _chosen_model(src, _models_of(top, metadata, items), model)
    judge_model = top.get(metadata, "judge_model", "metadata.judge_model")
    prompt_template = top.get(metadata, "prompt_template", "metadata.prompt_template")
    config, method = _run_config(top, doc, metadata)
    meta = RunMeta(
        name=path.stem,
        kind=RunKind.RESULTS,
        source_format=SourceFormat.PERSISTBENCH,
        model=model,
        prompt_set=prompt_template,
        level=1,
        memory_format=method if isinstance(method, str) else None,
        judge=JudgeMeta(
            name="imported verdicts", model=judge_model, config={"source": "persistbench"}
        ),
        config=config,
    )
    return meta, _records(src, items, model, progress)


def _entry_place(parts: Parts) -> tuple[str, Parts]:
    """A path in the document as the place of the reader's errors: the entry and the field."""
    if len(parts) >= 2 and parts[0] == "entries":
        return f"entries[{parts[1]!r}]", parts[2:]
    return "the document", parts


def _models_of(top: Checker, metadata: dict, items: list) -> list[str]:
    """The models the file has results of: ``metadata.models`` when it lists them, else every
    model named in an entry's results."""
    listed = top.get(metadata, "models", "metadata.models") or []
    models = [
        top.get(
            top.value("metadata.models[]", m, f"metadata.models[{i}]"),
            "name",
            "metadata.models[].name",
            f"metadata.models[{i}].name",
        )
        for i, m in enumerate(listed)
    ]
    if models:
        return models
    return sorted({m for _, e in items if isinstance(e, dict) for m in _dict(e.get("results"))})


def _chosen_model(src: str, models: list[str], model: str | None) -> str:
    """The model whose results are imported: the one asked for, which the file must have, or
    the file's only model (a file of several needs the choice, or runs would mix)."""
    if model is None:
        if len(models) != 1:
            raise CimemError(
                f"{src}: holds results of {len(models)} models ({', '.join(models) or 'none'});"
                " choose one with --model"
            )
        return models[0]
    if model not in models:
        raise CimemError(f"{src}: no results for model {model!r}; it has {', '.join(models)}")
    return model


def _run_config(top: Checker, doc: dict, metadata: dict) -> tuple[dict[str, Any], Any]:
    """The run's recorded configuration (the scalar settings of ``metadata`` and ``config``) and
    the generation method, which names the memory format."""
    config = {
        k: metadata.get(k)
        for k in ("benchmark_name", "timestamp", "prompt_template")
        if type(metadata.get(k)) in (str, int, float)
    }
    cfg = top.get(doc, "config", "config") or {}
    for k in ("method", "memory_mode", "cim_judge_variant"):
        if (value := top.get(cfg, k, f"config.{k}", f"config.{k}")) is not None:
            config[k] = value
    return config, cfg.get("method")


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def _records(
    src: str, items: list, model: str, progress: Progress | None
) -> Iterator[ProfileRecord]:
    by_profile: dict[str, _Profile] = {}
    for n, (entry_id, e) in enumerate(items):
        check = Checker(PERSISTBENCH, src, f"entries[{entry_id!r}]")
        check.value("entries[]", e, "(entry)")
        cm = check.get(e, "cim_metadata", "entries[].cim_metadata", "cim_metadata")
        name = check.get(cm, "name", "entries[].cim_metadata.name", "cim_metadata.name")
        prof = by_profile.setdefault(name, _Profile(src, name))
        prof.add(check, e, cm, model)
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
        self.msg: dict[str, list] = {k: [] for k in (*MESSAGE_COLUMNS, *ENDING_COLUMNS)}
        self.jud: dict[str, list] = {"msg_idx": [], "status": [], "raw": []}
        self.ver: dict[str, list] = {"msg_idx": [], "attr_idx": [], "revealed": [], "evidence": []}
        self.trials: set[tuple[int, int]] = set()

    def add(self, check: Checker, e: dict, cm: dict, model: str) -> None:
        rule = "entries[].cim_metadata.attribute_memory_map"
        amap = check.get(cm, "attribute_memory_map", rule, "cim_metadata.attribute_memory_map")
        for key, stmt in amap.items():
            check.value(f"{rule}.*", stmt, f"cim_metadata.attribute_memory_map.{key}")
            if not key.strip():
                check.fail("cim_metadata.attribute_memory_map", "non-empty attribute keys", key)
            if key not in self.index:
                self.index[key] = len(self.rec.attributes)
                self.rec.attributes.append(Attribute(key, None, None, None, stmt))
        recipient = check.value(
            "entries[].cim_recipient",
            e.get("cim_recipient", cm.get("cim_recipient")),
            "cim_recipient",
        )
        task = check.value("entries[].cim_task", e.get("cim_task", cm.get("cim_task")), "cim_task")
        c = len(self.rec.contexts)
        prompt = e.get("query") if isinstance(e.get("query"), str) else None
        self.rec.contexts.append((recipient, task, prompt))
        required = set(self._keys(check, e, "required_attributes"))
        forbidden = set(self._keys(check, e, "forbidden_attributes"))
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
        results = check.get(e, "results", "entries[].results", "results") or {}
        result = results.get(model)
        if result is None:
            return
        field = f"results[{model!r}]"
        check.value("entries[].results.*", result, field)
        gens = check.get(
            result, "generations", "entries[].results.*.generations", f"{field}.generations"
        )
        for g_i, g in enumerate(gens):
            self._generation(check, f"{field}.generations[{g_i}]", c, g_i, g, prompt)

    def _keys(self, check: Checker, e: dict, field: str) -> list[str]:
        keys_of = "cim_metadata.attribute_memory_map"
        return check.key_list(e, field, f"entries[].{field}", field, self.index, keys_of) or []

    def _generation(
        self, check: Checker, field: str, c: int, g_i: int, g: Any, prompt: str | None
    ) -> None:
        """One generation of context ``c``: its message (a failure when it has an error or no
        text) and, for a message, the judge's verdicts."""
        rule = "entries[].results.*.generations[]"
        check.value(rule, g, field)
        m = len(self.msg["ctx_idx"])
        trial = self._trial(check, rule, field, c, g_i, g)
        text = check.get(
            g, "memory_response", f"{rule}.memory_response", f"{field}.memory_response"
        )
        error = g.get("error")
        failed = error is not None or not text
        end = NOT_KNOWN if failed else ending(g.get("memory_raw_api_response"))
        for k, v in (
            ("ctx_idx", c),
            ("trial", trial),
            ("num_to_share", None),
            ("num_not_to_share", None),
            ("shared_json", None),
            ("prompt", prompt),
            ("text", None if failed else text),
            ("status", "failed" if failed else "ok"),
            ("error", (str(error) if error is not None else "no message") if failed else None),
            *end._asdict().items(),  # how it ended, when the file kept the raw API response
        ):
            self.msg[k].append(v)
        judge = check.get(g, "judge", f"{rule}.judge", f"{field}.judge")
        if not failed and judge is not None:
            self._judgment(check, f"{rule}.judge", f"{field}.judge", m, judge)

    def _trial(self, check: Checker, rule: str, field: str, c: int, g_i: int, g: dict) -> int:
        """The generation's trial: its ``generation_index`` (else its position), which must fit
        the trial masks and be the only one of its context with that index."""
        trial: int
        if "generation_index" in g:  # when a file gives the index it must give one; else position
            trial = check.get(
                g, "generation_index", f"{rule}.generation_index", f"{field}.generation_index"
            )
        else:
            trial = g_i
        if not 0 <= trial < MAX_TRIALS:
            check.fail(f"{field}.generation_index", "a generation index between 0 and 63", trial)
        if (c, trial) in self.trials:
            check.fail(f"{field}.generation_index", "one generation per index", trial)
        self.trials.add((c, trial))
        return trial

    def _judgment(self, check: Checker, rule: str, field: str, m: int, judge: dict) -> None:
        """The judge's reply on message ``m``: a verdict per attribute it names. No
        ``per_attribute`` list is a parse failure kept with the raw reply."""
        per = check.get(judge, "per_attribute", f"{rule}.per_attribute", f"{field}.per_attribute")
        if per is None:
            self.jud["msg_idx"].append(m)
            self.jud["status"].append("parse_failure")
            self.jud["raw"].append(_raw_json(judge.get("raw_api_response")))
            return
        unmatched: list[str] = []
        for j, item in enumerate(per):
            ifield = f"{field}.per_attribute[{j}]"
            check.value(f"{rule}.per_attribute[]", item, ifield)
            key = self._attribute_key(item.get("id"))
            if key is None:
                unmatched.append(str(item.get("id"))[:200])
                continue
            revealed = check.get(
                item, "revealed", f"{rule}.per_attribute[].revealed", f"{ifield}.revealed"
            )
            evidence = check.get(
                item, "evidence", f"{rule}.per_attribute[].evidence", f"{ifield}.evidence"
            )
            self.ver["msg_idx"].append(m)
            self.ver["attr_idx"].append(self.index[key])
            self.ver["revealed"].append(revealed)
            self.ver["evidence"].append(evidence or None)
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


def _raw_json(value: Any) -> str | None:
    """The judge's raw reply as JSON text (values too deep to encode are kept as their repr)."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return orjson.dumps(repr(value)[:10000]).decode()
