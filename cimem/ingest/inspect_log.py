"""An Inspect log of the cimemories task (``.eval``) as a run: its samples' messages, the REVEAL
scorer's verdicts, the task's labels, and its provenance (model, provider, generation config,
judge, task and Inspect versions; the importer adds the log file's hash).

A log of another task is refused; a log still being written is read as far as it goes and says
so in the run's provenance. Inspect is imported only here, when a log is read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cimem.errors import InputError
from cimem.ingest.formats import SourceFormat
from cimem.ingest.inspect_samples import (
    SCHEMA,
    SCORER,
    TASK_NAME,
    Judged,
    LoggedSample,
    records_from_samples,
)
from cimem.ingest.records import JudgeMeta, ProfileRecord, Progress, RunMeta
from cimem.store.enums import JudgeKind, RunKind

_ENDINGS = {"max_tokens": "length", "model_length": "length"}  # Inspect's words, cimem's


def read_inspect_log(
    path: Path, progress: Progress | None = None, model: str | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    """The run a log holds (``model`` is not used: a log holds one model's run)."""
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path))
    except Exception as exc:  # a zip that is no log, or a log Inspect cannot read
        raise InputError(
            str(path), "the archive", "(file)", "an Inspect log (.eval)", got=f"{exc}"[:300]
        ) from None
    _check_task(path, log)
    scorer = _scorer_of(path, log)
    samples = [_sample(s, scorer) for s in log.samples or []]
    if progress:
        progress(1, 1)
    meta = _run_meta(path, log, scorer, len(samples))
    return meta, iter(records_from_samples(samples))


def _check_task(path: Path, log: Any) -> None:
    task = str(log.eval.task)
    ours = (log.eval.metadata or {}).get("cimem")
    if task.split("/")[-1] != TASK_NAME or ours is None:
        raise InputError(
            str(path), "eval.task", "task", f"a log of the {TASK_NAME} task", got=repr(task)
        )
    if ours != SCHEMA:
        raise InputError(
            str(path), "eval.metadata", "cimem", f"sample metadata {SCHEMA}", got=repr(ours)
        )


def _scorer_of(path: Path, log: Any) -> str | None:
    """The REVEAL score to read: ``reveal``, else the first score of cimem's shape (a log
    rescored under another name); None when no sample is scored yet."""
    for s in log.samples or []:
        for name, score in (s.scores or {}).items():
            if name == SCORER or "revealed" in (score.metadata or {}):
                return str(name)
    return None


def _sample(s: Any, scorer: str | None) -> LoggedSample:
    failed = s.error is not None or s.output is None or not s.output.choices
    score = (s.scores or {}).get(scorer) if scorer else None
    usage = None if failed else s.output.usage
    return LoggedSample(
        metadata=s.metadata,
        trial=int(s.epoch) - 1,
        prompt=_prompt(s.input),
        text=None if failed else s.output.completion,
        error=(s.error.message if s.error is not None else "no message") if failed else None,
        judged=Judged.from_metadata(score.metadata) if score and score.metadata else None,
        finish_reason=None if failed else _ENDINGS.get(s.output.stop_reason, s.output.stop_reason),
        prompt_tokens=usage.input_tokens if usage else None,
        completion_tokens=usage.output_tokens if usage else None,
    )


def _prompt(value: Any) -> str | None:
    """The task's prompt: the sample's input text (the first user message's, for a chat)."""
    if isinstance(value, str):
        return value
    for m in value or []:
        if getattr(m, "role", None) == "user":
            return str(m.text)
    return None


def _run_meta(path: Path, log: Any, scorer: str | None, n_samples: int) -> RunMeta:
    e = log.eval
    settings = (e.metadata or {}).get("settings", {})
    grader = (e.model_roles or {}).get("grader")
    llm = settings.get("judge") == "grader"
    judge = JudgeMeta(
        name="Inspect REVEAL scorer" if llm else "offline judge (Inspect REVEAL scorer)",
        kind=JudgeKind.LLM if llm else JudgeKind.OFFLINE,
        model=grader.model if llm and grader else None,
        config={"scorer": scorer, "judge_prompts": settings.get("judge_prompts")},
    )
    told = (e.metadata or {}).get("judge")  # a log cimem exported names its judge
    if isinstance(told, dict) and told.get("name"):
        judge = JudgeMeta(
            name=str(told["name"]),
            kind=JudgeKind(told.get("kind") or JudgeKind.IMPORTED),
            model=told.get("model"),
            config={"scorer": scorer, "exported_by": "cimem"},
        )
    return RunMeta(
        name=f"{e.model} (Inspect {e.created[:16]})",
        kind=RunKind.RESULTS,
        source_format=SourceFormat.INSPECT,
        model=str(e.model),
        prompt_set=settings.get("prompts") or "builtin",
        level=settings.get("level"),
        memory_format=settings.get("memory_format"),
        judge=judge if scorer else None,
        config={"inspect": _provenance(log, n_samples)},
    )


def _provenance(log: Any, n_samples: int) -> dict[str, Any]:
    e = log.eval
    return {
        "task": e.task,
        "task_version": e.task_version,
        "task_args": e.task_args,
        "eval_id": e.eval_id,
        "run_id": e.run_id,
        "created": e.created,
        "status": log.status,
        "still_being_written": log.status == "started",
        "samples": n_samples,
        "provider": str(e.model).split("/")[0],
        "generate_config": e.model_generate_config.model_dump(exclude_none=True),
        "model_roles": {k: v.model for k, v in (e.model_roles or {}).items()},
        "packages": e.packages,
        "settings": (e.metadata or {}).get("settings"),
        "usage": {
            k: v.model_dump(exclude_none=True) for k, v in (log.stats.model_usage or {}).items()
        },
    }
