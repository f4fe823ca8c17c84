"""An Inspect log's REVEAL scores beyond the first, as further judges of its run.

``inspect score LOG --scorer cimem/reveal -S judge=grader --model-role grader=... --action append``
adds a score (``reveal1``, ...) with another judge to every sample. Imported fresh, a log brings
each such score as a judge of its run; a rescored copy of a log already imported adds its new
scores as judges of that run (matched by the log's eval id) instead of making a second run. A
score is matched to its stored message by (profile, context, composition step, trial).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import orjson
import pyarrow as pa

from cimem.errors import InputError
from cimem.ingest.inspect_samples import LoggedSample, judgment_rows
from cimem.ingest.records import JudgeMeta
from cimem.store import Store
from cimem.store.enums import RunKind


@dataclass
class LogJudge:
    """One REVEAL score of a log: the judge it stands for and each sample's verdicts."""

    scorer: str
    meta: JudgeMeta
    samples: list[LoggedSample]


def run_of_eval(store: Store, eval_id: str) -> int | None:
    """The run an Inspect log of this eval id was imported as (None: not imported yet)."""
    if not eval_id:
        return None
    for run in store.list_runs():
        if run.source_format != "inspect":
            continue
        config = orjson.loads(store.run_config(run.run_id)["config"] or b"{}")
        if config.get("inspect", {}).get("eval_id") == eval_id and run.kind == RunKind.RESULTS:
            return run.run_id
    return None


def scorers_of(store: Store, run_id: int) -> set[str]:
    """The log scores already stored as judges of the run."""
    out = set()
    for config in store.judge_configs(run_id).values():
        scorer = orjson.loads(config).get("scorer") if config else None
        if scorer:
            out.add(str(scorer))
    return out


def write_judges(store: Store, run_id: int, judges: list[LogJudge], source: str) -> int:
    """Each judge's verdicts on the run's stored messages; returns the verdicts written."""
    slots = store.message_slots(run_id)
    profiles = {p.name: p.profile_id for p in store.profiles_of(run_id)}
    attrs: dict[int, dict[str, int]] = {}
    for a in store.attributes_of(run_id):
        attrs.setdefault(a.profile_id, {})[a.key] = a.attr_id
    written = 0
    for judge in judges:
        jud: dict[str, list] = {"msg_idx": [], "status": [], "raw": []}
        ver: dict[str, list] = {"msg_idx": [], "attr_idx": [], "revealed": [], "evidence": []}
        for s in judge.samples:
            if s.text is None or s.judged is None:
                continue
            pid = profiles.get(str(s.metadata["profile"]))
            slot = slots.get(_slot(pid, s)) if pid is not None else None
            if pid is None or slot is None:
                raise InputError(
                    source, f"score {judge.scorer}", "sample", "a message of the run", got=_name(s)
                )
            judgment_rows(jud, ver, slot.message_id, s.judged, attrs[pid])
        written += _append(store, run_id, judge, jud, ver)
    return written


def _slot(pid: int, s: LoggedSample) -> tuple[int, int, int, int | None]:
    shared = s.metadata.get("shared")
    return (pid, int(s.metadata["context"]), s.trial, len(shared[1]) if shared else None)


def _name(s: LoggedSample) -> str:
    return f"{s.metadata['profile']} context {s.metadata['context']} trial {s.trial}"


def _append(
    store: Store, run_id: int, judge: LogJudge, jud: dict[str, list], ver: dict[str, list]
) -> int:
    j = judge.meta
    judge_id = store.create_judge(
        run_id=run_id,
        name=j.name,
        kind=j.kind,
        model=j.model,
        prompt_hash=j.prompt_hash,
        config=orjson.dumps(j.config).decode(),
    )
    store.append(
        "judgments",
        pa.table(
            {
                "judge_id": np.full(len(jud["msg_idx"]), judge_id, np.int32),
                "message_id": np.array(jud["msg_idx"], np.int64),
                "status": pa.array(jud["status"], pa.string()),
                "raw": pa.array(jud["raw"], pa.string()),
            }
        ),
    )
    if ver["msg_idx"]:
        store.append(
            "verdicts",
            pa.table(
                {
                    "judge_id": np.full(len(ver["msg_idx"]), judge_id, np.int32),
                    "message_id": np.array(ver["msg_idx"], np.int64),
                    "attr_id": np.array(ver["attr_idx"], np.int32),
                    "revealed": np.array(ver["revealed"], np.bool_),
                    "evidence": pa.array(ver["evidence"], pa.string()),
                }
            ),
        )
    return len(ver["msg_idx"])
