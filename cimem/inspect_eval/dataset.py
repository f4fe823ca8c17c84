"""The task's samples: one per (profile, context[, composition step]), its input the very prompt
``cimem run`` sends for it, its metadata what the scorer, the metrics and ``cimem ingest`` need.

The prompts are made by the runner's own planning (:func:`cimem.generate.runner.plan` and
:func:`~cimem.generate.runner.prompt_for`) over a run held in memory, so the task and ``cimem run``
send the same bytes, and both are eval.py's (tests/llm/test_prompts_official.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cimem.generate.runner import create_run, plan, prompt_for
from cimem.generate.runner_settings import RunSettings
from cimem.ingest.formats import SourceFormat
from cimem.ingest.inspect_samples import sample_metadata
from cimem.ingest.readers import detect_format, open_reader
from cimem.ingest.records import ProfileRecord
from cimem.llm.prompts import load_task_prompt
from cimem.store import Store


@dataclass(frozen=True)
class TaskItem:
    """One sample of the task before Inspect wraps it."""

    id: str
    prompt: str
    metadata: dict[str, Any]


def task_items(source: str | Path, settings: RunSettings) -> list[TaskItem]:
    """The samples of ``settings`` over the profiles of ``source`` (one epoch: Inspect repeats
    them ``settings.trials`` times), in (profile, context, step) order."""
    one = RunSettings(**{**settings.__dict__, "trials": 1})
    records = _selected_records(Path(source), one)
    with Store.open(":memory:") as store:
        run_id = create_run(store, source, one, name="inspect task")
        slots, memories = plan(store, run_id, one)
        profiles = [p.profile_id for p in store.profiles_of(run_id)]
        contexts = {
            (c.profile_id, c.ctx_idx): (c.recipient, c.task) for c in store.contexts_of(run_id)
        }
    position = {pid: i for i, pid in enumerate(profiles)}
    template = load_task_prompt(one.level, one.prompts)
    items = []
    for sl in slots:
        i = position[sl.profile_id]
        rec = records[i]
        prompt = prompt_for(
            template,
            one.memory_format,
            memories[sl.profile_id],
            *contexts[(sl.profile_id, sl.ctx_idx)],
            sl.keep,
        )[0]["content"]
        step = f"/withheld-{len(sl.shared[1])}" if sl.shared else ""
        items.append(
            TaskItem(
                f"{i}:{rec.name}/{sl.ctx_idx}{step}",
                prompt,
                sample_metadata(rec, i, sl.ctx_idx, sl.keep, sl.shared),
            )
        )
    return items


def _selected_records(path: Path, settings: RunSettings) -> list[ProfileRecord]:
    """The profile records a run of ``settings`` holds, in the run's order (as
    :func:`cimem.generate.runner.new_run_from_profiles` selects them)."""
    fmt = detect_format(path)
    if fmt not in (SourceFormat.OFFICIAL, SourceFormat.PROFILES):
        return []  # create_run names the problem
    _, records = open_reader(path, fmt, None)
    out: list[ProfileRecord] = []
    for rec in records:
        if settings.profiles and rec.name not in settings.profiles:
            continue
        if settings.profiles_limit is not None and len(out) >= settings.profiles_limit:
            break
        out.append(rec)
    return out
