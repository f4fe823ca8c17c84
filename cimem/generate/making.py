"""Making a run a part at a time: each part's messages are generated, judged, and stored with
their verdicts and the run's progress in one transaction.

So another process (the app, a co-author's `cimem metrics`) sees the run grow with complete
numbers and never a message without its verdicts; the database is let go while the calls are out
(:meth:`cimem.store.Store.released`), so that process can read and write it meanwhile; and a stop
(Ctrl-C, kill -9) loses at most the part under way, whose calls are in the call cache already.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from cimem.analysis.progress import RunState, state_of, this_host
from cimem.errors import CimemError
from cimem.judges.base import Judge, JudgeOutcome, new_judge, store_outcomes
from cimem.judges.offline import AttributeSpec
from cimem.llm.calls import CallProgress
from cimem.store import MessageStatus, MessageToJudge, NewMessage, Store

PART_PER_CALL = 16  # a part holds this many messages per concurrent call (bench/runner.py:
# with 4, the waits for each part's slowest calls and its storing cost a fifth of the throughput)


def part_size(concurrency: int, chunk: int | None) -> int:
    """Messages per part: ``chunk``, else sixteen per concurrent call (at least 16).

    >>> part_size(8, None), part_size(1, None), part_size(8, 100)
    (128, 16, 100)
    """
    if chunk is not None:
        if chunk < 1:
            raise CimemError(f"--chunk: expected a number of messages >= 1, got {chunk}")
        return chunk
    return max(16, PART_PER_CALL * concurrency)


def parts(n: int, size: int) -> Iterator[range]:
    """The positions 0..n-1 in parts of ``size``.

    >>> [list(p) for p in parts(5, 2)]
    [[0, 1], [2, 3], [4]]
    """
    for start in range(0, n, size):
        yield range(start, min(n, start + size))


def claim(store: Store, run_id: int, total: int, done: int) -> None:
    """Record that this process makes the run; refuse when another process is making it now
    (two makers would generate and pay for the same messages)."""
    for row in store.run_progress(run_id):
        if row.pid != os.getpid() and state_of(row) == RunState.MAKING:
            raise CimemError(
                f"run {run_id} is being made by process {row.pid} on {row.host} (since"
                f" {row.started_at:%Y-%m-%d %H:%M} UTC): let it finish, or stop it first"
                " (Ctrl-C; nothing it paid for is lost)"
            )
    store.begin_progress(run_id, pid=os.getpid(), host=this_host(), total=total, done=done)


@dataclass
class Tally:
    """The run's counts over its parts, passed on to the command's progress bars as totals."""

    total: int  # messages to make in this call
    done_before: int  # the run's messages stored before this call
    cost: Callable[[CallProgress], float]  # USD so far: generation's and the judge's calls
    on_generation: Callable[[CallProgress], None] | None = None
    on_judge: Callable[[int, int], None] | None = None
    generation: CallProgress = field(default_factory=CallProgress)
    judged: int = 0  # messages judged so far in this call

    def part_progress(self, part: CallProgress) -> None:
        """A part's call counts, shown added to those of the parts before it."""
        if self.on_generation is not None:
            self.on_generation(self._plus(part))

    def part_done(self, part: CallProgress) -> None:
        self.generation = self._plus(part)

    def judge_progress(self, done: int, _total: int) -> None:
        if self.on_judge is not None:
            self.on_judge(self.judged + done, self.total)

    def _plus(self, part: CallProgress) -> CallProgress:
        g = self.generation
        return CallProgress(
            total=self.total,
            done=g.done + part.done,
            cached=g.cached + part.cached,
            failed=g.failed + part.failed,
            retries=g.retries + part.retries,
            prompt_tokens=g.prompt_tokens + part.prompt_tokens,
            completion_tokens=g.completion_tokens + part.completion_tokens,
        )

    @property
    def spent(self) -> float:
        return self.cost(self.generation)


def judge_id_of(store: Store, run_id: int, judge: Judge) -> int:
    """The run's own judge: the first one, made for it now when it has none."""
    found = store.find_default_judge(run_id)
    return found if found is not None else new_judge(store, run_id, judge, judge.config())


@dataclass(frozen=True)
class PartContext:
    """What judging and storing a part needs of the run: its judge, each profile's name and
    attributes (as the judge sees them)."""

    run_id: int
    judge: Judge
    names: dict[int, str]
    specs: dict[int, list[tuple[int, AttributeSpec]]]


def judge_and_store(
    store: Store, ctx: PartContext, new: list[NewMessage], tally: Tally
) -> list[JudgeOutcome]:
    """Judge a part's generated messages (the database let go during an LLM judge's calls),
    then store them, their verdicts and the run's progress in one transaction."""
    ok = [i for i, m in enumerate(new) if m.status == MessageStatus.OK and m.text is not None]
    items = [
        (
            str(new[i].text),
            [sp for _, sp in ctx.specs.get(new[i].profile_id, [])],
            ctx.names[new[i].profile_id],
        )
        for i in ok
    ]
    outcomes = ctx.judge.judge_many(items, tally.judge_progress) if items else []

    def store_part() -> None:
        ids = store.add_messages(ctx.run_id, new)
        rows = [
            MessageToJudge(
                ids[i],
                new[i].profile_id,
                ctx.names[new[i].profile_id],
                new[i].ctx_idx,
                new[i].trial,
                str(new[i].text),
            )
            for i in ok
        ]
        if rows:
            store_outcomes(
                store, judge_id_of(store, ctx.run_id, ctx.judge), rows, ctx.specs, outcomes
            )
        store.record_progress(
            ctx.run_id,
            done=tally.done_before + tally.generation.done,
            failed=tally.generation.failed,
            cost=tally.spent,
        )

    store.write(store_part, f"run {ctx.run_id}: storing {len(new)} messages and their verdicts")
    tally.judged += len(items)
    return outcomes
