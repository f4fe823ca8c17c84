"""CIMemories as an Inspect task: ``inspect eval cimem/cimemories --model PROVIDER/MODEL
-T profiles=profiles.json`` (the package registers the task with Inspect; docs/inspect.md).

Each sample is one (profile, context) task with the profile's memory, its prompt the bytes
``cimem run`` and the official eval.py send; Inspect's epochs are the n samples per task; the
REVEAL scorer judges each message (:mod:`cimem.inspect_eval.scoring`), and the task's metrics are
cimem's. ``cimem ingest LOG.eval`` stores the log as a run.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from inspect_ai import Epochs, Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import generate

from cimem.errors import CimemError
from cimem.generate.runner_settings import RunSettings
from cimem.ingest.inspect_samples import SCHEMA, TASK_NAME, TASK_VERSION
from cimem.inspect_eval.dataset import task_items
from cimem.inspect_eval.scoring import OFFLINE, judge_prompt_of, reveal, trials


@task(name=TASK_NAME)
def cimemories(
    profiles: str | None = None,
    n: int = 5,
    level: int = 1,
    prompts: str | None = None,
    memory_format: str = "official",
    where: str | list[str] | None = None,
    limit_profiles: int | None = None,
    contexts: str | list[int] | None = None,
    composition_step: int | None = None,
    max_tokens: int | None = 1024,
    temperature: float | None = None,
    judge: str = OFFLINE,
    judge_prompts: str | None = None,
    judge_variant: str = "strict",
) -> Task:
    """The benchmark over ``profiles`` (an official profiles.json or a results file): ``n``
    samples per task, prompt ``level`` 1-4 (from ``prompts``, an official prompts.yaml, else
    cimem's built-in texts), the profiles named in ``where`` or the first ``limit_profiles``, the
    ``contexts`` by position, ``composition_step`` for the composition experiment, and the judge:
    ``offline`` or ``grader`` (the official prompt sent to ``--model-role grader=...``)."""
    _check(profiles, n)
    judge_prompt_of(judge, judge_prompts, judge_variant)  # refuse a bad judge before any call
    settings = RunSettings(
        model="inspect",
        trials=n,
        level=level,
        prompts=prompts,
        memory_format=memory_format,
        profiles=_names(where),
        profiles_limit=limit_profiles,
        contexts=_positions(contexts),
        composition_step=composition_step,
        max_tokens=max_tokens,
        temperature=temperature,
    )
    items = task_items(str(profiles), settings)
    return Task(
        dataset=MemoryDataset(
            [Sample(input=i.prompt, id=i.id, metadata=i.metadata) for i in items],
            name=f"cimemories:{profiles}",
        ),
        solver=generate(),
        scorer=reveal(judge, judge_prompts, judge_variant),
        epochs=Epochs(n, trials()),
        config=GenerateConfig(max_tokens=max_tokens, temperature=temperature),
        fail_on_error=False,  # a failed generation is a failed message, as in cimem run
        version=TASK_VERSION,
        metadata={
            "cimem": SCHEMA,
            "cimem_version": _cimem_version(),
            "profiles_source": str(profiles),
            "settings": _described(settings, judge, judge_prompts, judge_variant),
        },
    )


def _check(profiles: str | None, n: int) -> None:
    if not profiles:
        raise CimemError(
            "the cimemories task needs its profiles: -T profiles=PATH (a results file with"
            " labels, or an official profiles.json)"
        )
    if n < 1:
        raise CimemError(f"-T n={n}: expected a number of samples per task >= 1")


def _names(where: str | list[str] | None) -> list[str] | None:
    if where is None or where == "":
        return None
    return [w.strip() for w in where.split(",")] if isinstance(where, str) else list(where)


def _positions(contexts: str | list[int] | None) -> list[int] | None:
    """``-T contexts=0,3`` (text) or a list of positions."""
    if contexts is None or contexts == "":
        return None
    parts = contexts.split(",") if isinstance(contexts, str) else contexts
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise CimemError(f"-T contexts={contexts}: expected positions such as 0,3,7") from None


def _described(s: RunSettings, judge: str, judge_prompts: str | None, variant: str) -> dict:
    out: dict[str, Any] = {
        k: getattr(s, k)
        for k in ("trials", "level", "prompts", "memory_format", "profiles", "profiles_limit")
    }
    out |= {"contexts": s.contexts, "composition_step": s.composition_step}
    out |= {"max_tokens": s.max_tokens, "temperature": s.temperature, "judge": judge}
    out |= {"judge_prompts": judge_prompts, "judge_variant": variant}
    return out


def _cimem_version() -> str:
    try:
        return version("cimem")
    except PackageNotFoundError:
        return "unknown"
