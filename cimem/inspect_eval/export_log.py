"""A stored run written as an Inspect log of the cimemories task (``cimem export --format
inspect``), so a team can open it in ``inspect view`` and ``cimem ingest`` reads it back.

The run goes out through the official export first (:func:`cimem.ingest.export.export_official`,
whose round trip is tested) and is read back as profile records; each message becomes one sample
of one epoch, the chosen judge's verdicts its ``reveal`` score, and the log's metrics are cimem's
Violation@n and Completeness of that judge. Messages whose generation failed are left out, as the
official format leaves them out (the command says how many).
"""

from __future__ import annotations

import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput
from inspect_ai.scorer import Score

from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import compute
from cimem.errors import CimemError
from cimem.ingest.export import export_official
from cimem.ingest.formats import SourceFormat
from cimem.ingest.inspect_samples import (
    SCHEMA,
    SCORER,
    TASK_NAME,
    TASK_VERSION,
    Judged,
    sample_metadata,
)
from cimem.ingest.readers import open_reader
from cimem.ingest.records import ProfileRecord
from cimem.paths import replaceable
from cimem.store import Store
from cimem.store.enums import JudgmentStatus
from cimem.store.rows import JudgeInfo


def export_inspect(
    store: Store, run_id: int, out: str | Path, judge_id: int | None = None
) -> dict[str, int]:
    """Write run ``run_id`` (its original verdicts, or judge ``judge_id``'s) as an Inspect log at
    ``out`` (``.eval``). Returns the counts written."""
    out = Path(out)
    if out.suffix != ".eval":
        raise CimemError(f"{out}: an Inspect log is written as a .eval file")
    if not out.parent.is_dir():
        raise CimemError(f"{out}: no such folder {out.parent}")
    run = store.run_config(run_id)
    with tempfile.TemporaryDirectory() as tmp:
        official = Path(tmp) / "run.jsonl"
        counts = export_official(store, run_id, official, judge_id=judge_id)
        _, records = open_reader(official, SourceFormat.OFFICIAL, None)
        people = _people_by_message(store, run_id)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        samples = [s for i, rec in enumerate(records) for s in _samples(rec, i, people, now)]
    cube = cube_from_store(store, run_id, judge_id)
    metrics = compute(cube)
    judge = store.judge_info(cube.info.coverage.judge_id) if cube.info.coverage else None
    log = EvalLog(
        status="success",
        eval=_spec(run, run_id, len(samples), judge),
        stats=EvalStats(started_at=now, completed_at=now),  # written, not run: no duration
        samples=samples,
        results=EvalResults(
            total_samples=len(samples),
            completed_samples=len(samples),
            scores=[
                EvalScore(
                    name=SCORER,
                    scorer=SCORER,
                    metrics={
                        "violation": EvalMetric(name="violation", value=metrics.violation.mean),
                        "completeness": EvalMetric(
                            name="completeness", value=metrics.completeness.mean
                        ),
                    },
                )
            ],
        ),
    )
    _write_atomically(log, out)
    return {"samples": len(samples), "skipped_failed": counts["skipped_failed"]}


def _write_atomically(log: EvalLog, out: Path) -> None:
    """The log at ``out`` whole or not at all: written beside it, then moved into place."""
    replaceable(out)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.stem}.", suffix=".eval")
    os.close(fd)
    try:
        write_eval_log(log, tmp)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _spec(run: dict[str, Any], run_id: int, n: int, judge: JudgeInfo | None) -> EvalSpec:
    model = str(run.get("model") or "unknown/unknown")
    return EvalSpec(
        created=datetime.now(UTC).isoformat(timespec="seconds"),
        task=TASK_NAME,
        task_version=TASK_VERSION,
        dataset=EvalDataset(name=f"cimem run {run_id}", samples=n),
        model=model if "/" in model else f"cimem/{model}",
        config=EvalConfig(),
        metadata={
            "cimem": SCHEMA,
            "exported_from": {"run_id": run_id, "name": run.get("name")},
            "settings": {"level": run.get("level"), "memory_format": run.get("memory_format")},
            "judge": None
            if judge is None
            else {"name": judge.name, "kind": str(judge.kind), "model": judge.model},
        },
    )


PEOPLE = "people"  # the score holding people's verdicts on a message


def _people_by_message(store: Store, run_id: int) -> dict[tuple[str, int, int], list[dict]]:
    """People's current verdicts (each reviewer's latest, and adjudications), by (profile,
    context, trial), each with its reviewer and note."""
    judge_id = store.find_human_judge(run_id)
    out: dict[tuple[str, int, int], list[dict]] = {}
    for v in store.human_verdicts(judge_id) if judge_id is not None else []:
        out.setdefault((v.profile, v.ctx_idx, v.trial), []).append(
            {
                "key": v.key,
                "revealed": v.revealed,
                "reviewer": v.reviewer,
                "note": v.note,
                "adjudication": v.adjudication,
            }
        )
    return out


def _people_score(verdicts: list[dict]) -> Score:
    """People's verdicts on one message as a score: how many pairs they said revealed."""
    said = sorted({v["reviewer"] or "-" for v in verdicts})
    return Score(
        value=sum(1 for v in verdicts if v["revealed"]),
        explanation=f"{len(verdicts)} verdicts by {', '.join(said)}",
        metadata={"people": verdicts},
    )


def _samples(
    rec: ProfileRecord, i: int, people: dict[tuple[str, int, int], list[dict]], now: str
) -> list[EvalSample]:
    """One sample per message of the record (its epoch the trial + 1), with the prompt and the
    message as its conversation and the judge's evidence as its score's explanation, which
    ``inspect view`` shows."""
    msg, ver = rec.messages, rec.verdicts
    judged = {int(m): str(s) for m, s in zip(rec.judgments["msg_idx"], rec.judgments["status"])}
    raws = dict(zip(rec.judgments["msg_idx"], rec.judgments["raw"]))
    revealed: dict[int, dict[str, str]] = {}
    if ver:
        for m, a, r, e in zip(ver["msg_idx"], ver["attr_idx"], ver["revealed"], ver["evidence"]):
            if r:
                revealed.setdefault(int(m), {})[rec.attributes[int(a)].key] = e or ""
    out = []
    for m, (ctx, trial, text) in enumerate(zip(msg["ctx_idx"], msg["trial"], msg["text"])):
        ctx, trial = int(ctx), int(trial)
        scores = {}
        if m in judged:
            j = Judged(judged[m], revealed.get(m, {}), raws.get(m))
            scores[SCORER] = Score(
                value=len(j.revealed),
                explanation=_explanation(j),
                metadata=j.as_metadata(trial) | {"text": text},
            )
        if (rec.name, ctx, trial) in people:
            scores[PEOPLE] = _people_score(people[(rec.name, ctx, trial)])
        prompt = msg["prompt"][m] or "(the prompt was not stored)"
        out.append(
            EvalSample(
                id=f"{i}:{rec.name}/{ctx}",
                epoch=trial + 1,
                input=prompt,
                messages=[ChatMessageUser(content=prompt), ChatMessageAssistant(content=str(text))],
                started_at=now,
                completed_at=now,
                total_time=0.0,
                target="",
                metadata=sample_metadata(rec, i, ctx),
                output=ModelOutput.from_content(model="cimem", content=str(text)),
                scores=scores,
            )
        )
    return out


def _explanation(j: Judged) -> str:
    """The judge's verdict on a message in words: each attribute found revealed with its
    evidence, or why there is none."""
    if j.status != JudgmentStatus.OK:
        return f"the judge's reply: {j.status}"
    if not j.revealed:
        return "nothing revealed"
    return "\n".join(
        f"{key}: {evidence or '(no evidence given)'}" for key, evidence in j.revealed.items()
    )
