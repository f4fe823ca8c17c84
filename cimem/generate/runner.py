"""Evaluate a model end to end: build prompts, generate, judge, store; resumable at any point.

Never pay twice, never lose a result: every completed call is written to the call cache in the
database as it arrives (keyed by model, whole prompt, sampling parameters and trial index), so a run
stopped at any point (Ctrl-C, kill -9, a crash) resumes with ``--resume RUN`` and makes only the
calls that are missing. A call that still fails after its retries is stored as a failed message
with its error (never as empty text, never judged); ``--retry-failed`` tries those again.
"""

from __future__ import annotations

import collections
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from cimem.analysis.labels import LABEL_NAMES, LabelRule
from cimem.errors import CimemError
from cimem.generate import making
from cimem.generate.memory import Memory, profile_memory, render
from cimem.generate.runner_settings import RunSettings
from cimem.ingest.formats import SourceFormat
from cimem.ingest.readers import detect_format, open_reader
from cimem.ingest.records import RunMeta
from cimem.ingest.writer import RunWriter
from cimem.judges.base import Judge, JudgeOutcome, OfflineJudge, attribute_specs, store_outcomes
from cimem.judges.llm import make_llm_judge
from cimem.llm.calls import CallProgress
from cimem.llm.client import ChatResult, cache_key
from cimem.llm.prompts import PromptTemplate, fill, load_judge_prompt, load_task_prompt, profile_bio
from cimem.store import JudgmentStatus, Label, MessageStatus, NewMessage, RunKind, Store


@dataclass
class Slot:
    profile_id: int
    ctx_idx: int
    trial: int
    keep: list[str] | None = None  # composition: the attributes in memory
    shared: tuple[list[str], list[str]] | None = None


@dataclass
class RunSummary:
    """What one call of :func:`run` did (a dry run: what it would do)."""

    run_id: int
    slots: int  # (profile, context, trial[, composition step]) in the plan
    calls: int  # generation calls made (dry run: to make)
    cached: int  # generations answered from the call cache
    failed: int  # generations that failed after their retries
    judged: int = 0  # messages judged
    judge_calls: int = 0  # judge calls made (the offline judge makes none)
    judge_errors: int = 0
    parse_failures: int = 0
    prompt_tokens: int = 0  # of the calls made, generation and judge
    completion_tokens: int = 0
    cost: float = 0.0  # USD from the price settings
    seconds: float = 0.0
    estimated: bool = False  # a dry run: tokens and cost are estimates


# ----------------------------------------------------------------------------- creating a run
def create_run(
    store: Store,
    source: str | Path,
    settings: RunSettings,
    name: str | None = None,
    labels_from: int | None = None,
) -> int:
    """A new run holding the selected profiles and contexts (with labels when the source or
    ``labels_from`` has them), and the settings. Nothing is called yet."""
    load_task_prompt(settings.level, settings.prompts)  # fail early on a bad prompt set
    return new_run_from_profiles(
        store,
        source,
        settings,
        kind=RunKind.RESULTS,
        labels_from=labels_from,
        name=name or f"{settings.model} level {settings.level}",
        prompt_set=settings.prompts or "builtin",
        level=settings.level,
        memory_format=settings.memory_format,
    )


def new_run_from_profiles(
    store: Store,
    source: str | Path,
    settings: RunSettings,
    *,
    kind: RunKind,
    name: str,
    labels_from: int | None = None,
    extra_config: dict[str, Any] | None = None,
    **meta: Any,
) -> int:
    """A run with the selected profiles of a profiles or results file (messages left out) and the
    settings in its config, in one transaction."""
    path = Path(source)
    if not path.is_file():
        raise CimemError(f"{path}: no such profiles file")
    fmt = detect_format(path)
    if fmt not in (SourceFormat.OFFICIAL, SourceFormat.PROFILES):
        raise CimemError(
            f"{path}: a run needs profiles (official profiles.json or a results file),"
            f" not a {fmt} file"
        )
    _, records = open_reader(path, fmt, None)
    config = {"settings": asdict(settings), "profiles_source": str(path)} | (extra_config or {})
    run_meta = RunMeta(
        name=name, kind=kind, source_format="runner", model=settings.model, config=config, **meta
    )
    writer = RunWriter(store)
    with store.transaction():
        run_id = writer.start(run_meta, source=str(path))
        kept = 0
        for rec in records:
            if settings.profiles and rec.name not in settings.profiles:
                continue
            if settings.profiles_limit is not None and kept >= settings.profiles_limit:
                break
            rec.messages, rec.judgments, rec.verdicts = {}, {}, {}
            if kind == RunKind.LABELS or labels_from is not None:
                # a labelling run holds only the labels it makes; --labels-from replaces the file's
                rec.persona_labels, rec.hard_labels = {}, {}
            for table, data in writer.tables(rec):
                store.append(table, data)
            kept += 1
        if kept == 0:
            raise CimemError(f"{path}: no profile matches the selection")
        if labels_from is not None:
            store.copy_labels(labels_from, run_id)
        store.finish_run(run_id, content_hash=None, n_trials=settings.trials, kind=kind)
    return run_id


def settings_of(store: Store, run_id: int) -> RunSettings:
    cfg = orjson.loads(store.run_config(run_id)["config"] or b"{}")
    if "settings" not in cfg:
        raise CimemError(f"run {run_id} was not made by `cimem run`: nothing to resume")
    return RunSettings(**cfg["settings"])


# ----------------------------------------------------------------------------- slots and prompts
def plan(store: Store, run_id: int, s: RunSettings) -> tuple[list[Slot], dict[int, Memory]]:
    profiles = {p.profile_id: p for p in store.profiles_of(run_id)}
    statements: dict[int, list[tuple[str, str]]] = {pid: [] for pid in profiles}
    attributes: dict[int, list[tuple[str, Any, str | None]]] = {pid: [] for pid in profiles}
    for a in store.attributes_of(run_id):
        statements[a.profile_id].append((a.key, a.memory_statement or a.key))
        value = orjson.loads(a.value_json) if a.value_json is not None else None
        attributes[a.profile_id].append((a.key, value, a.memory_statement))
    memories = {
        pid: profile_memory(
            p.name, profile_bio(p.name, p.sex, p.address, p.age, p.bio_json), attributes[pid]
        )
        for pid, p in profiles.items()
    }
    slots: list[Slot] = []
    rng = random.Random(s.seed)
    labels = _hard_labels(store, run_id) if s.composition_step else {}
    for c in store.contexts_of(run_id):
        pid, ctx_idx = c.profile_id, c.ctx_idx
        if s.contexts is not None and ctx_idx not in s.contexts:
            continue
        for t in range(s.trials):
            slots.append(Slot(pid, ctx_idx, t))
        if s.composition_step:
            keys = [k for k, _ in statements[pid]]
            needed = [k for k in keys if labels.get((pid, ctx_idx, k)) == Label.SHARE]
            withheld = [k for k in keys if labels.get((pid, ctx_idx, k)) == Label.PRIVATE]
            if not needed and not withheld:
                raise CimemError(
                    "the composition experiment needs labels: create the run from a "
                    "labelled results file or with --labels-from"
                )
            for b in range(0, len(withheld) + 1, s.composition_step):
                extra = rng.sample(withheld, b)
                for t in range(s.trials):
                    slots.append(Slot(pid, ctx_idx, t, keep=needed + extra, shared=(needed, extra)))
    return slots, memories


def _hard_labels(store: Store, run_id: int) -> dict[tuple[int, int, str], Label]:
    """{(profile, context, key): label} under the official rule."""
    keys = {a.attr_id: a.key for a in store.attributes_of(run_id)}
    rows = store.labels_of_run(run_id)
    fractions = [r for r in rows if r.hard_label is None]
    codes = LabelRule.parse("unanimous").apply(
        np.array([r.necessary for r in fractions], np.float64),
        np.array([r.private for r in fractions], np.float64),
    )
    out = {
        (r.profile_id, r.ctx_idx, keys[r.attr_id]): LABEL_NAMES[int(c)]
        for r, c in zip(fractions, codes)
    }
    out.update(
        {
            (r.profile_id, r.ctx_idx, keys[r.attr_id]): r.hard_label
            for r in rows
            if r.hard_label is not None
        }
    )
    return out


def prompt_for(
    template: PromptTemplate,
    memory_format: str,
    memory: Memory,
    recipient: str,
    task: str,
    keep: list[str] | None,
) -> list[dict[str, str]]:
    """The chat messages of one task: the memory (or the ``keep`` part of it) and the task."""
    text = fill(
        template,
        memories=render(memory, memory_format, set(keep) if keep is not None else None),
        recipient=recipient.lower(),
        task=task,
    )
    return [{"role": "user", "content": text}]


# ----------------------------------------------------------------------------- running
def run(
    store: Store,
    run_id: int,
    *,
    retry_failed: bool = False,
    dry_run: bool = False,
    api_key: str | None = None,
    judge_api_key: str | None = None,
    on_progress: Callable[[CallProgress], None] | None = None,
    on_judge_progress: Callable[[int, int], None] | None = None,
    chunk: int | None = None,
) -> RunSummary:
    """Generate what is missing, judge it, and store both, a part of ``chunk`` messages at a time
    (:mod:`cimem.generate.making`). Safe to call again."""
    start = time.perf_counter()
    s = settings_of(store, run_id)
    slots, memories = plan(store, run_id, s)
    todo = _missing_slots(store, run_id, slots, retry_failed)
    requests = _requests(store, run_id, s, todo, memories)
    keys = [cache_key(s.model, r, s.params(sl.trial)) for r, sl in zip(requests, todo)]
    if dry_run:
        return _estimate(store, s, run_id, len(slots), requests, keys)
    size = making.part_size(s.concurrency, chunk)
    making.claim(store, run_id, total=len(slots), done=len(slots) - len(todo))
    if retry_failed:
        store.delete_failed_messages(run_id)
    judge = make_judge(s, store, judge_api_key)
    outcomes = _judge_missing(store, run_id, judge, retry_failed, on_judge_progress)
    tally = making.Tally(
        len(todo), len(slots) - len(todo), _cost_so_far(s, judge), on_progress, on_judge_progress
    )
    ctx = making.PartContext(
        run_id,
        judge,
        {p.profile_id: p.name for p in store.profiles_of(run_id)},
        attribute_specs(store, run_id),
    )
    for part in making.parts(len(todo), size):
        reqs = [requests[i] for i in part]
        batch = s.call(
            store, "generate", reqs, [keys[i] for i in part], api_key, tally.part_progress
        )
        tally.part_done(batch.progress)
        new = _new_messages([todo[i] for i in part], reqs, batch.results)
        outcomes += making.judge_and_store(store, ctx, new, tally)
    store.finish_progress(run_id)
    summary = _summary(run_id, len(slots), s, tally.generation, judge, outcomes)
    summary.seconds = time.perf_counter() - start
    return summary


def _cost_so_far(s: RunSettings, judge: Judge) -> Callable[[CallProgress], float]:
    """USD of a run's calls so far: generation's (at its prices) and its LLM judge's."""

    def cost(generation: CallProgress) -> float:
        j_in, j_out = getattr(judge, "prompt_tokens", 0), getattr(judge, "completion_tokens", 0)
        return s.cost(generation) + (j_in * s.judge_price_in + j_out * s.judge_price_out) / 1e6

    return cost


def _missing_slots(store: Store, run_id: int, slots: list[Slot], retry_failed: bool) -> list[Slot]:
    """The slots without a stored message; with ``retry_failed`` also those whose message failed."""
    existing = store.message_slots(run_id)
    if retry_failed:
        existing = {k: v for k, v in existing.items() if v.status == MessageStatus.OK}
    return [sl for sl in slots if _slot_key(sl) not in existing]


def _requests(
    store: Store, run_id: int, s: RunSettings, todo: list[Slot], memories: dict[int, Memory]
) -> list[list[dict[str, str]]]:
    """The chat messages of each slot: its profile's memory and its context's task."""
    ctx = {(c.profile_id, c.ctx_idx): (c.recipient, c.task) for c in store.contexts_of(run_id)}
    template = load_task_prompt(s.level, s.prompts)
    return [
        prompt_for(
            template,
            s.memory_format,
            memories[sl.profile_id],
            *ctx[(sl.profile_id, sl.ctx_idx)],
            sl.keep,
        )
        for sl in todo
    ]


def _new_messages(
    todo: list[Slot], requests: list[list[dict[str, str]]], results: list[ChatResult]
) -> list[NewMessage]:
    """One message per slot; a call that failed after its retries is a failed message with its
    error, never empty text."""
    return [_new_message(sl, req, res) for sl, req, res in zip(todo, requests, results)]


def _new_message(sl: Slot, req: list[dict[str, str]], res: ChatResult) -> NewMessage:
    """A slot's message. It keeps how its call ended and the call's tokens (the call cache's
    when it was answered there); a failed call, or an endpoint that reported no usage, leaves
    them None (not known)."""
    tokens = res.ok and bool(res.prompt_tokens or res.completion_tokens)
    return NewMessage(
        profile_id=sl.profile_id,
        ctx_idx=sl.ctx_idx,
        trial=sl.trial,
        num_to_share=len(sl.keep) if sl.keep is not None else None,
        num_not_to_share=len(sl.shared[1]) if sl.shared else None,
        shared_json=orjson.dumps(list(sl.shared)).decode() if sl.shared else None,
        prompt=req[0]["content"],
        text=res.text if res.ok else None,
        status=MessageStatus.OK if res.ok else MessageStatus.FAILED,
        error=None if res.ok else res.error,
        finish_reason=res.finish_reason if res.ok else None,
        prompt_tokens=res.prompt_tokens if tokens else None,
        completion_tokens=res.completion_tokens if tokens else None,
    )


def _summary(
    run_id: int,
    n_slots: int,
    s: RunSettings,
    prog: CallProgress,
    judge: Judge,
    outcomes: list[JudgeOutcome],
) -> RunSummary:
    """What generation and judging made, their tokens and cost (the offline judge costs none)."""
    statuses = collections.Counter(o.status for o in outcomes)
    j_in, j_out = getattr(judge, "prompt_tokens", 0), getattr(judge, "completion_tokens", 0)
    return RunSummary(
        run_id,
        n_slots,
        calls=prog.made,
        cached=prog.cached,
        failed=prog.failed,
        judged=len(outcomes),
        judge_calls=getattr(judge, "calls", 0),
        judge_errors=statuses[JudgmentStatus.ERROR],
        parse_failures=statuses[JudgmentStatus.PARSE_FAILURE],
        prompt_tokens=prog.prompt_tokens + j_in,
        completion_tokens=prog.completion_tokens + j_out,
        cost=_cost_so_far(s, judge)(prog),
    )


CHARS_PER_TOKEN = 4  # a rough rule for English text, used only by dry runs
JUDGE_REPLY_TOKENS = 200  # a judge's JSON answer, roughly


def _estimate(
    store: Store,
    s: RunSettings,
    run_id: int,
    n_slots: int,
    requests: list[list[dict[str, str]]],
    keys: list[str],
) -> RunSummary:
    """What a run would send: generation calls not in the cache, and one judge call per new
    message (each message assumed as long as max_tokens). Tokens are estimated from characters."""
    cached = store.cache_get(keys)
    new = [r for r, k in zip(requests, keys) if k not in cached]
    reply = s.max_tokens or 500
    gen_in = sum(len(r[0]["content"]) for r in new) // CHARS_PER_TOKEN
    gen_out = reply * len(new)
    judge_in = judge_out = 0
    if s.judge_model:
        template = len(load_judge_prompt(s.judge_prompts).text)
        memory = sum(len(r[0]["content"]) for r in new) // max(len(new), 1)
        judge_in = len(new) * (template + memory) // CHARS_PER_TOKEN + gen_out
        judge_out = JUDGE_REPLY_TOKENS * len(new)
    cost = (
        gen_in * s.price_in
        + gen_out * s.price_out
        + judge_in * s.judge_price_in
        + judge_out * s.judge_price_out
    ) / 1e6
    return RunSummary(
        run_id,
        n_slots,
        calls=len(new),
        cached=len(requests) - len(new),
        failed=0,
        judge_calls=len(new) if s.judge_model else 0,
        prompt_tokens=gen_in + judge_in,
        completion_tokens=gen_out + judge_out,
        cost=cost,
        estimated=True,
    )


def _slot_key(sl: Slot) -> tuple:
    b = len(sl.shared[1]) if sl.shared else None
    return (sl.profile_id, sl.ctx_idx, sl.trial, b)


def make_judge(s: RunSettings, store: Store, api_key: str | None) -> Judge:
    """The run's judge: the offline judge, or its LLM judge at temperature 0."""
    if not s.judge_model:
        return OfflineJudge()
    return make_llm_judge(s.judge_spec(), store, api_key)


def _judge_missing(
    store: Store,
    run_id: int,
    judge: Judge,
    retry_failed: bool,
    progress: Callable[[int, int], None] | None,
) -> list[JudgeOutcome]:
    """Judge the run's generated messages that its judge has not seen; append to that judge.
    With ``retry_failed``, judge calls that failed (status error) are made again."""
    judge_id = store.find_default_judge(run_id)
    if retry_failed and judge_id is not None:
        store.delete_failed_judgments(judge_id)
    todo = store.unjudged_messages(run_id, judge_id)
    if not todo:
        return []
    specs = attribute_specs(store, run_id)
    items = [(m.text, [sp for _, sp in specs.get(m.profile_id, [])], m.profile) for m in todo]
    outcomes = judge.judge_many(items, progress)
    store.write(
        lambda: store_outcomes(
            store, making.judge_id_of(store, run_id, judge), todo, specs, outcomes
        ),
        f"run {run_id}: storing {len(todo)} messages' verdicts",
    )
    return outcomes
