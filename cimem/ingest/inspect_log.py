"""An Inspect log of the cimemories task (``.eval``) as a run: its samples' messages, the REVEAL
scorer's verdicts, the task's labels, and its provenance (model, provider, generation config,
judge, task and Inspect versions; the importer adds the log file's hash).

A log of another task is refused; a log still being written is read as far as it goes and says
so in the run's provenance. Inspect is imported only here, when a log is read."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cimem.errors import InputError
from cimem.ingest.formats import SourceFormat
from cimem.ingest.inspect_judges import LogJudge, run_of_eval, scorers_of, write_judges
from cimem.ingest.inspect_samples import (
    SCHEMA,
    SCORER,
    TASK_NAME,
    Judged,
    LoggedSample,
    records_from_samples,
)
from cimem.ingest.records import JudgeMeta, ProfileRecord, Progress, RunMeta
from cimem.store import Store
from cimem.store.enums import JudgeKind, RunKind

_ENDINGS = {"max_tokens": "length", "model_length": "length"}  # Inspect's words, cimem's


def read_inspect_log(
    path: Path, progress: Progress | None = None, model: str | None = None
) -> tuple[RunMeta, Iterator[ProfileRecord]]:
    """The run a log holds, judged by its first REVEAL score; its further REVEAL scores are
    written as further judges once the run's rows are (``model`` is not used: a log holds one
    model's run)."""
    log = _read(path)
    names = _scorers_of(log)
    primary = names[0] if names else None
    samples = [_sample(s, primary) for s in log.samples or []]
    if progress:
        progress(1, 1)
    meta = _run_meta(path, log, primary, len(samples))
    more = [_log_judge(log, name) for name in names[1:]]
    if more:
        meta.after = lambda store, run_id: write_judges(store, run_id, more, str(path))
    return meta, iter(records_from_samples(samples))


@dataclass(frozen=True)
class Continued:
    """A log whose run was imported before: the REVEAL scores it added as judges."""

    run_id: int
    name: str
    judges: int
    verdicts: int


def continue_inspect_run(store: Store, path: Path) -> Continued | None:
    """A log of an eval already imported (a copy rescored with ``inspect score``): its REVEAL
    scores not yet stored become judges of that run. None when the eval was not imported."""
    head = _read(path, header_only=True)
    run_id = run_of_eval(store, head.eval.eval_id)
    if run_id is None:
        return None
    log = _read(path)
    have = scorers_of(store, run_id)
    judges = [_log_judge(log, name) for name in _scorers_of(log) if name not in have]
    with store.transaction():
        verdicts = write_judges(store, run_id, judges, str(path))
    return Continued(run_id, str(store.run_config(run_id)["name"]), len(judges), verdicts)


def _read(path: Path, header_only: bool = False) -> Any:
    """The log (or its header), or one line naming the file and what is wrong: a file that is
    no zip or is cut short ("EOCD not found"), a header that is no JSON, or one Inspect's
    schema refuses (a dozen lines of validation errors, of which the first is said)."""
    from inspect_ai.log import read_eval_log

    try:
        log = read_eval_log(str(path), header_only=header_only)
    except Exception as exc:  # a zip that is no log, or a log Inspect cannot read
        raise InputError(
            str(path), "the archive", "(file)", "an Inspect log (.eval)", got=_first_line(exc)
        ) from None
    _check_task(path, log)
    return log


def _first_line(exc: Exception) -> str:
    """An exception in one line: its kind and its message's first line.

    >>> _first_line(ValueError("EOCD not found"))
    'no zip archive (not an .eval file, or one cut short)'
    >>> _first_line(ValueError("3 validation errors for EvalLog\\nstatus ..."))
    'ValueError: 3 validation errors for EvalLog'
    """
    lines = str(exc).strip().splitlines()
    if lines and "EOCD" in lines[0]:  # the zip's end record: not a zip, or cut short
        return "no zip archive (not an .eval file, or one cut short)"
    return f"{type(exc).__name__}: {lines[0][:200] if lines else 'no message'}"


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


def _scorers_of(log: Any) -> list[str]:
    """The log's REVEAL scores (those of cimem's shape): ``reveal`` first, then the others in
    the order the samples hold them (``reveal1``, ... from ``inspect score --action append``)."""
    names: dict[str, None] = {}
    for s in log.samples or []:
        for name, score in (s.scores or {}).items():
            if "revealed" in (score.metadata or {}):
                names.setdefault(str(name))
    return sorted(names, key=lambda n: (n != SCORER, list(names).index(n)))


def _log_judge(log: Any, name: str) -> LogJudge:
    return LogJudge(name, _judge_meta(log, name), [_sample(s, name) for s in log.samples or []])


def _judge_meta(log: Any, scorer: str) -> JudgeMeta:
    """The judge of a score, as its scores recorded it (else as the task's settings say)."""
    said = next(
        (
            sc.metadata["judge"]
            for s in log.samples or []
            if (sc := (s.scores or {}).get(scorer)) is not None
            and isinstance((sc.metadata or {}).get("judge"), dict)
        ),
        None,
    )
    if said is None:
        settings = (log.eval.metadata or {}).get("settings", {})
        grader = (log.eval.model_roles or {}).get("grader")
        llm = settings.get("judge") == "grader"
        said = {"kind": JudgeKind.LLM if llm else JudgeKind.OFFLINE, "hash": None}
        said["model"] = grader.model if llm and grader else None
    kind = JudgeKind(said["kind"])
    suffix = "" if scorer == SCORER else f" {scorer}"
    return JudgeMeta(
        name=f"Inspect REVEAL scorer{suffix}"
        if kind == JudgeKind.LLM
        else f"offline judge (Inspect REVEAL scorer{suffix})",
        kind=kind,
        model=said.get("model"),
        prompt_hash=said.get("hash"),
        config={"scorer": scorer, "eval_id": log.eval.eval_id, "prompt": said.get("prompt")},
    )


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
    judge = _judge_meta(log, scorer) if scorer else None
    told = (e.metadata or {}).get("judge")  # a log cimem exported names its judge
    if judge is not None and isinstance(told, dict) and told.get("name"):
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
        judge=judge,
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
