"""REVEAL as an Inspect scorer, the reducer that keeps every epoch's verdicts, and the task's
metrics, Violation@n and Completeness, computed by cimem's own functions.

The scorer judges one message against every attribute of its profile, with cimem's offline judge
or with the official judge prompt sent to Inspect's ``grader`` model role (``--model-role
grader=PROVIDER/MODEL``), parsed by the reply parser ``cimem judge`` uses. What it records of the
message (:class:`cimem.ingest.inspect_samples.Judged`) is what ``cimem ingest`` stores.

Inspect reduces a sample's epochs to one score before metrics see them; Violation@n is a worst case
over the n samples, so the reducer keeps each epoch's verdicts (:func:`trials`) and the metric
rebuilds the run from them (:mod:`cimem.inspect_eval.numbers`).
"""

from __future__ import annotations

from typing import Any

import orjson
from inspect_ai.model import get_model
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    ScoreReducer,
    Target,
    metric,
    score_reducer,
    scorer,
)
from inspect_ai.solver import TaskState

from cimem.ingest.inspect_samples import Judged, LoggedSample
from cimem.inspect_eval.numbers import task_numbers
from cimem.judges.base import OfflineJudge
from cimem.judges.llm import outcome
from cimem.judges.offline import AttributeSpec
from cimem.llm.client import ChatResult
from cimem.llm.prompts import (
    PromptTemplate,
    attribute_list,
    fill,
    load_judge_prompt,
    memory_lines,
    profile_bio,
)
from cimem.store.enums import JudgeKind, JudgmentStatus

GRADER = "grader"  # the model role an LLM judge is called through
OFFLINE = "offline"


def attribute_specs_of(metadata: dict[str, Any]) -> list[AttributeSpec]:
    """The judge's view of a sample's attributes, as :func:`cimem.judges.base.attribute_specs`
    makes it from a stored run: decoded values and eval.py's memory lines."""
    person = metadata["person"]
    bio = profile_bio(
        metadata["profile"], person["sex"], person["address"], person["age"], person["bio"]
    )
    attrs = [
        (key, orjson.loads(value) if value is not None else None, statement)
        for key, value, _domain, _event, statement in metadata["attributes"]
    ]
    lines = memory_lines(bio, attrs)
    return [AttributeSpec(k, v, s, line) for (k, v, s), line in zip(attrs, lines)]


def judge_prompt_of(judge: str, judge_prompts: str | None, variant: str) -> PromptTemplate | None:
    """The LLM judge's prompt (None for the offline judge); an unknown judge is refused."""
    if judge == OFFLINE:
        return None
    if judge != GRADER:
        raise ValueError(f"judge={judge!r}: choose {OFFLINE} or {GRADER}")
    return load_judge_prompt(judge_prompts, variant)


@metric(name="cimemories")
def cimemories_metrics() -> Metric:
    """Violation@n and Completeness (official mode, official label rule), as ``cimem metrics``."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        numbers = task_numbers(logged_samples(scores))
        return {"violation": numbers.violation, "completeness": numbers.completeness}

    return compute


def logged_samples(scores: list[SampleScore]) -> list[LoggedSample]:
    """Each epoch of each scored sample, reduced by :func:`trials` or not (one epoch)."""
    out = []
    for s in scores:
        meta = s.score.metadata or {}
        for t in meta.get("trials", [meta]):
            out.append(
                LoggedSample(
                    s.sample_metadata or {},
                    int(t["trial"]),
                    None,
                    t.get("text"),
                    judged=Judged.from_metadata(t),
                )
            )
    return out


@score_reducer(name="cimem_trials")
def trials() -> ScoreReducer:
    """Every epoch's verdicts kept, in trial order (the value: the mean number revealed)."""

    def reduce(scores: list[Score]) -> Score:
        kept = sorted((s.metadata or {} for s in scores), key=lambda m: int(m["trial"]))
        values = [float(s.value) for s in scores if isinstance(s.value, int | float)]
        return Score(value=sum(values) / len(values) if values else 0.0, metadata={"trials": kept})

    return reduce


@scorer(metrics=[cimemories_metrics()])
def reveal(
    judge: str = OFFLINE, judge_prompts: str | None = None, variant: str = "strict"
) -> Scorer:
    """REVEAL: which of the profile's attributes the message reveals (value: how many)."""
    prompt = judge_prompt_of(judge, judge_prompts, variant)

    async def score(state: TaskState, target: Target) -> Score:
        specs = attribute_specs_of(state.metadata)
        message = state.output.completion
        if prompt is None:
            out = OfflineJudge().judge_many([(message, specs, state.metadata["profile"])])[0]
        else:
            out = outcome(await _grader_reply(prompt, message, specs), specs)
        judged = Judged(str(out.status), out.revealed, out.raw, out.unmatched)
        meta = judged.as_metadata(state.epoch - 1) | {"text": message, "judge": _judge(prompt)}
        return Score(
            value=len(out.revealed),
            answer=None,
            explanation=_explain(judged),
            metadata=meta,
        )

    return score


async def _grader_reply(
    prompt: PromptTemplate, message: str, specs: list[AttributeSpec]
) -> ChatResult:
    """The grader's reply to the judge prompt; a call that failed after Inspect's retries is an
    error (never "nothing revealed")."""
    text = fill(
        prompt,
        attributes=attribute_list([(a.key, a.line or a.statement) for a in specs]),
        solution=message,
    )
    try:
        reply = await get_model(role=GRADER, required=True).generate(text)
    except Exception as exc:  # any failure of the call is recorded as the judgment's error
        return ChatResult(None, error=f"{type(exc).__name__}: {exc}")
    if reply.error:
        return ChatResult(None, error=str(reply.error))
    return ChatResult(reply.completion)


def _judge(prompt: PromptTemplate | None) -> dict[str, str | None]:
    """Which judge gave a score (kept with it, so a log rescored by another judge says so)."""
    if prompt is None:
        judge = OfflineJudge()
        return {"kind": str(judge.kind), "model": None, "prompt": None, "hash": judge.prompt_hash()}
    grader = str(get_model(role=GRADER, required=True))
    return {"kind": str(JudgeKind.LLM), "model": grader, "prompt": prompt.name, "hash": prompt.hash}


def _explain(judged: Judged) -> str:
    if judged.status != JudgmentStatus.OK:
        return f"{judged.status}: {judged.raw or ''}"[:2000]
    if not judged.revealed:
        return "nothing revealed"
    return "\n".join(f"{k}: {v}" for k, v in judged.revealed.items())
