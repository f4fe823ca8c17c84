"""Export a stored run back to the official run-output format, so the official scripts read it.

Label fractions, messages, prompts, verdicts and evidence come back as they were imported (a round
trip official -> cimem -> official keeps them all). Sources that only have hard labels are written
as fractions with all mass on one bin (share -> necessary 1.0, private -> private 1.0, ambiguous ->
unlabeled 1.0), which the official rule reads back as the same labels. Messages whose generation
failed are left out: the official format has no place for a failure.
"""

from __future__ import annotations

import os
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from cimem.errors import CimemError
from cimem.store import Store

_HARD_AS_FRACTIONS = {
    "share": {"private": 0.0, "necessary": 1.0, "unlabeled": 0.0},
    "private": {"private": 1.0, "necessary": 0.0, "unlabeled": 0.0},
    "ambiguous": {"private": 0.0, "necessary": 0.0, "unlabeled": 1.0},
}


def export_official(
    store: Store,
    run_id: int,
    out: str | Path,
    judge_id: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Write ``run_id`` as official JSON lines to ``out`` (atomically). Returns counts."""
    judge_id = judge_id if judge_id is not None else store.default_judge(run_id)
    profiles = store.profiles_of(run_id)
    if not profiles:
        raise CimemError(f"run {run_id} has no profiles to export")
    attrs_by_profile: dict[int, list[tuple]] = defaultdict(list)
    for row in store.attributes_of(run_id):
        attrs_by_profile[row[0]].append(row)
    ctx_by_profile: dict[int, list[tuple]] = defaultdict(list)
    for row in store.contexts_of(run_id):
        ctx_by_profile[row[0]].append(row)
    judgments = store.judgments_of(judge_id) if judge_id is not None else {}
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    counts = {"profiles": 0, "messages": 0, "verdicts": 0, "skipped_failed": 0}
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            for n, prof in enumerate(profiles):
                obj = _profile_object(
                    store,
                    run_id,
                    prof,
                    attrs_by_profile[prof[0]],
                    ctx_by_profile[prof[0]],
                    judge_id,
                    judgments,
                    counts,
                )
                f.write(orjson.dumps(obj))
                f.write(b"\n")
                counts["profiles"] += 1
                if progress:
                    progress(n + 1, len(profiles))
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return counts


def _profile_object(
    store: Store,
    run_id: int,
    prof: tuple,
    attrs: list[tuple],
    contexts: list[tuple],
    judge_id: int | None,
    judgments: dict[int, tuple[str, str | None]],
    counts: dict[str, int],
) -> dict:
    pid, name, sex, address, age, bio_json = prof
    bio = (
        orjson.loads(bio_json)
        if bio_json
        else {"name": name, "sex": sex, "address": address, "age": age}
    )
    key_of = {a[1]: a[2] for a in attrs}
    statement_of = {a[1]: a[6] for a in attrs}
    info = {
        a[2]: {
            "value": orjson.loads(a[3]) if a[3] is not None else None,
            "information_domain": a[4],
            "event": a[5],
            "memory_statement": a[6],
        }
        for a in attrs
    }
    all_keys = [a[2] for a in attrs]
    ctx_objs = [{"recipient": c[2], "task": c[3]} for c in contexts]
    labels: dict[int, dict[str, dict]] = defaultdict(dict)
    for ctx_idx, persona, attr_id, nec, priv, unl in store.persona_labels_of(run_id, pid):
        key = "labels_combined" if persona == "combined" else f"labels_{persona}"
        labels[ctx_idx].setdefault(key, {})[statement_of[attr_id]] = {
            "private": priv,
            "necessary": nec,
            "unlabeled": unl,
        }
    for ctx_idx, attr_id, label in store.hard_labels_of(run_id, pid):
        labels[ctx_idx].setdefault("labels_combined", {})[statement_of[attr_id]] = dict(
            _HARD_AS_FRACTIONS[label]
        )
    for ctx_idx, obj in enumerate(ctx_objs):
        persona_keys = sorted(k for k in labels.get(ctx_idx, {}) if k != "labels_combined")
        for k in persona_keys:
            obj[k] = labels[ctx_idx][k]
        if "labels_combined" in labels.get(ctx_idx, {}):
            obj["labels_combined"] = labels[ctx_idx]["labels_combined"]
    verdicts: dict[int, list[tuple]] = defaultdict(list)
    if judge_id is not None:
        for message_id, attr_id, revealed, evidence in store.verdicts_of(judge_id, run_id, pid):
            verdicts[message_id].append((attr_id, revealed, evidence))
    for (
        message_id,
        ctx_idx,
        trial,
        a,
        b,
        shared_json,
        prompt,
        text,
        status,
        _error,
    ) in store.messages_of(run_id, pid):
        if status != "ok":
            counts["skipped_failed"] += 1
            continue
        to_share, not_share = orjson.loads(shared_json) if shared_json else (all_keys, [])
        a = len(to_share) if a is None else a
        b = len(not_share) if b is None else b
        solution: dict[str, Any] = {"response_solution": text}
        if message_id in verdicts or message_id in judgments:
            rows = verdicts.get(message_id, [])
            solution["revealed_attributes"] = {key_of[attr]: int(rev) for attr, rev, _ in rows}
            explanation = {key_of[attr]: ev for attr, _, ev in rows if ev is not None}
            raw = judgments.get(message_id, (None, None))[1]
            if raw:
                explanation.update(orjson.loads(raw).get("unmatched_evidence", {}))
            solution["revealed_attributes_explanation"] = explanation
            counts["verdicts"] += len(rows)
        ctx_objs[ctx_idx][f"combination_num_to_share={a}_num_not_to_share={b}_trial={trial}"] = {
            "prompt": prompt,
            "to_share_attributes": to_share,
            "not_to_share_attributes": not_share,
            "num_to_share_attributes": len(to_share),
            "num_not_to_share_attributes": len(not_share),
            "total_num_attributes": len(to_share) + len(not_share),
            "trial_idx": trial,
            "model_solution": solution,
        }
        counts["messages"] += 1
    return {"bio": bio, "information_attributes": info, "contexts": ctx_objs}
