"""Export a stored run back to the official run-output format, so the official scripts read it.

Label fractions, messages, prompts, verdicts and evidence come back as they were imported (a round
trip official -> cimem -> official keeps them all). Sources that only have hard labels are written
as fractions with all mass on one bin (share -> necessary 1.0, private -> private 1.0, ambiguous ->
unlabeled 1.0), which the official rule reads back as the same labels. Messages whose generation
failed are left out: the official format has no place for a failure. A judge reply that failed
to parse is written as the official script writes it (every attribute 0); the raw reply is kept
in the explanation under ``RAW_REPLY_KEY``, which the reader turns back into a parse failure with
that reply; a judgment that parsed and found nothing gets ``NOTHING_REVEALED_KEY``, so it does not
read back as a parse failure. A judge call that failed is written as a message without verdicts (not judged).
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
from cimem.ingest.official_profile import NOTHING_REVEALED_KEY, RAW_REPLY_KEY
from cimem.paths import replaceable
from cimem.store import (
    AttributeRow,
    ContextRow,
    Judgment,
    JudgmentStatus,
    Label,
    MessageStatus,
    ProfileRow,
    Store,
    VerdictRow,
)

_HARD_AS_FRACTIONS = {
    Label.SHARE: {"private": 0.0, "necessary": 1.0, "unlabeled": 0.0},
    Label.PRIVATE: {"private": 1.0, "necessary": 0.0, "unlabeled": 0.0},
    Label.AMBIGUOUS: {"private": 0.0, "necessary": 0.0, "unlabeled": 1.0},
}


def _check_judge_of(store: Store, judge_id: int, run_id: int) -> None:
    """Refuse a judge of another run (or none at all): its verdicts name other messages, so the
    export would say every message was left unjudged."""
    try:
        info = store.judge_info(judge_id)
    except LookupError:
        raise CimemError(f"no judge {judge_id} in {store.shown_path}") from None
    if info.run_id != run_id:
        raise CimemError(
            f"judge {judge_id} belongs to run {info.run_id}, not run {run_id}"
            f" (`python -m cimem runs --json` lists each run's judges)"
        )


def export_official(
    store: Store,
    run_id: int,
    out: str | Path,
    judge_id: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, int]:
    """Write ``run_id`` as official JSON lines to ``out`` (atomically). Returns counts."""
    judge_id = judge_id if judge_id is not None else store.find_default_judge(run_id)
    if judge_id is not None:
        _check_judge_of(store, judge_id, run_id)
    profiles = store.profiles_of(run_id)
    if not profiles:
        raise CimemError(f"run {run_id} has no profiles to export")
    attrs_by_profile: dict[int, list[AttributeRow]] = defaultdict(list)
    for attr in store.attributes_of(run_id):
        attrs_by_profile[attr.profile_id].append(attr)
    ctx_by_profile: dict[int, list[ContextRow]] = defaultdict(list)
    for ctx in store.contexts_of(run_id):
        ctx_by_profile[ctx.profile_id].append(ctx)
    judgments = store.judgments_of(judge_id) if judge_id is not None else {}
    out = replaceable(Path(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    counts = {
        "profiles": 0,
        "messages": 0,
        "verdicts": 0,
        "skipped_failed": 0,
        "parse_failures": 0,
        "judge_errors_unjudged": 0,
    }
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            for n, prof in enumerate(profiles):
                obj = _profile_object(
                    store,
                    run_id,
                    prof,
                    attrs_by_profile[prof.profile_id],
                    ctx_by_profile[prof.profile_id],
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


def _unmatched_evidence(raw: str | None) -> dict[str, Any]:
    """Evidence an imported judge gave for keys the profile does not have (kept in ``raw``)."""
    if not raw:
        return {}
    try:
        kept = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return {}
    found = kept.get("unmatched_evidence") if isinstance(kept, dict) else None
    return found if isinstance(found, dict) else {}


def _profile_object(
    store: Store,
    run_id: int,
    prof: ProfileRow,
    attrs: list[AttributeRow],
    contexts: list[ContextRow],
    judge_id: int | None,
    judgments: dict[int, Judgment],
    counts: dict[str, int],
) -> dict:
    pid = prof.profile_id
    bio = (
        orjson.loads(prof.bio_json)
        if prof.bio_json
        else {"name": prof.name, "sex": prof.sex, "address": prof.address, "age": prof.age}
    )
    statement_of = {a.attr_id: a.memory_statement for a in attrs}
    info = {
        a.key: {
            "value": orjson.loads(a.value_json) if a.value_json is not None else None,
            "information_domain": a.domain,
            "event": a.event,
            "memory_statement": a.memory_statement,
        }
        for a in attrs
    }
    ctx_objs: list[dict[str, Any]] = [{"recipient": c.recipient, "task": c.task} for c in contexts]
    _add_labels(store, run_id, pid, statement_of, ctx_objs)
    _add_trials(store, run_id, pid, attrs, judge_id, judgments, ctx_objs, counts)
    return {"bio": bio, "information_attributes": info, "contexts": ctx_objs}


def _add_labels(
    store: Store,
    run_id: int,
    pid: int,
    statement_of: dict[int, str | None],
    ctx_objs: list[dict[str, Any]],
) -> None:
    """Every persona's labels and the combined labels of a profile's contexts, keyed by memory
    statement as the official format keys them; hard labels as fractions on one bin."""
    labels: dict[int, dict[str, dict]] = defaultdict(dict)
    for pl in store.persona_labels_of(run_id, pid):
        key = "labels_combined" if pl.persona == "combined" else f"labels_{pl.persona}"
        labels[pl.ctx_idx].setdefault(key, {})[statement_of[pl.attr_id]] = {
            "private": pl.private,
            "necessary": pl.necessary,
            "unlabeled": pl.unlabeled,
        }
    for hl in store.hard_labels_of(run_id, pid):
        labels[hl.ctx_idx].setdefault("labels_combined", {})[statement_of[hl.attr_id]] = dict(
            _HARD_AS_FRACTIONS[hl.label]
        )
    for ctx_idx, obj in enumerate(ctx_objs):
        persona_keys = sorted(k for k in labels.get(ctx_idx, {}) if k != "labels_combined")
        for k in persona_keys:
            obj[k] = labels[ctx_idx][k]
        if "labels_combined" in labels.get(ctx_idx, {}):
            obj["labels_combined"] = labels[ctx_idx]["labels_combined"]


def _add_trials(
    store: Store,
    run_id: int,
    pid: int,
    attrs: list[AttributeRow],
    judge_id: int | None,
    judgments: dict[int, Judgment],
    ctx_objs: list[dict[str, Any]],
    counts: dict[str, int],
) -> None:
    """Each generated message of a profile as a trial of its context, with the judge's verdicts
    and evidence; failed generations are counted and left out."""
    key_of = {a.attr_id: a.key for a in attrs}
    all_keys = [a.key for a in attrs]
    verdicts = _verdicts_by_message(store, judge_id, run_id, pid)
    for m in store.messages_of(run_id, pid):
        if m.status != MessageStatus.OK:
            counts["skipped_failed"] += 1
            continue
        to_share, not_share = orjson.loads(m.shared_json) if m.shared_json else (all_keys, [])
        a = len(to_share) if m.num_to_share is None else m.num_to_share
        b = len(not_share) if m.num_not_to_share is None else m.num_not_to_share
        solution = _model_solution(
            m.text,
            judgments.get(m.message_id),
            verdicts.get(m.message_id),
            key_of,
            all_keys,
            counts,
        )
        key = f"combination_num_to_share={a}_num_not_to_share={b}_trial={m.trial}"
        ctx_objs[m.ctx_idx][key] = {
            "prompt": m.prompt,
            "to_share_attributes": to_share,
            "not_to_share_attributes": not_share,
            "num_to_share_attributes": len(to_share),
            "num_not_to_share_attributes": len(not_share),
            "total_num_attributes": len(to_share) + len(not_share),
            "trial_idx": m.trial,
            "model_solution": solution,
        }
        counts["messages"] += 1


def _verdicts_by_message(
    store: Store, judge_id: int | None, run_id: int, pid: int
) -> dict[int, list[VerdictRow]]:
    """The judge's verdicts on a profile's messages, by message (none without a judge)."""
    verdicts: dict[int, list[VerdictRow]] = defaultdict(list)
    if judge_id is not None:
        for v in store.verdicts_of(judge_id, run_id, pid):
            verdicts[v.message_id].append(v)
    return verdicts


def _model_solution(
    text: str | None,
    judgment: Judgment | None,
    rows: list[VerdictRow] | None,
    key_of: dict[int, str],
    all_keys: list[str],
    counts: dict[str, int],
) -> dict[str, Any]:
    """A trial's ``model_solution``: the message and the judge's verdicts with their evidence,
    written the way the official script writes each outcome; counts what it wrote. ``rows`` is
    None when the judge left no verdict on the message."""
    solution: dict[str, Any] = {"response_solution": text}
    status = judgment.status if judgment is not None else None
    if status == JudgmentStatus.PARSE_FAILURE:
        # as the official script writes an unparsable judge reply: nothing revealed; the
        # reply itself is kept under a key no attribute has, which the reader recognises
        assert judgment is not None
        solution["revealed_attributes"] = dict.fromkeys(all_keys, 0)
        solution["revealed_attributes_explanation"] = (
            {RAW_REPLY_KEY: judgment.raw} if judgment.raw else {}
        )
        counts["parse_failures"] += 1
        counts["verdicts"] += len(all_keys)
    elif status == JudgmentStatus.ERROR:
        counts["judge_errors_unjudged"] += 1  # no verdict: written as a message not judged
    elif rows is not None or judgment is not None:
        rows = rows or []
        solution["revealed_attributes"] = {key_of[v.attr_id]: int(v.revealed) for v in rows}
        explanation = {key_of[v.attr_id]: v.evidence for v in rows if v.evidence is not None}
        explanation.update(_unmatched_evidence(judgment.raw if judgment else None))
        if not explanation and not any(v.revealed for v in rows):
            explanation = {NOTHING_REVEALED_KEY: ""}  # else it reads back as a parse failure
        solution["revealed_attributes_explanation"] = explanation
        counts["verdicts"] += len(rows)
    return solution
