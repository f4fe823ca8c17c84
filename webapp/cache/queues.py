"""The Audit page's queues: the messages to review under a judge (by a filter), and the
suggested audit sample. Shared read-only resources: copying a queue of thousands of items out
of ``st.cache_data`` cost about 40 ms of every Next."""

from __future__ import annotations

from dataclasses import dataclass

from cimem.analysis.audit import correction, queue
from cimem.analysis.audit.plan import plan_sentence, run_plan
from cimem.analysis.audit.queue import Queue
from cimem.analysis.audit.sample import SampleRow, audit_sample
from cimem.analysis.choices import QueueFilter
from cimem.analysis.metrics import MetricOptions, prepare
from cimem.errors import CimemError
from webapp.cache import registry
from webapp.cache.cubes import cube
from webapp.cache.scope import RunScope
from webapp.connection import reading_at
from webapp.startup import prefetch


@dataclass(frozen=True)
class QueueAsk:
    """Which messages the review queue holds: the ``filter`` (leaked, disagree, ...) against
    judge ``vs``, narrowed to a profile, a task (or recipient) and an attribute ("" for all)."""

    filter: QueueFilter
    vs: int | None = None
    profile: str = ""
    task: str = ""
    attribute: str = ""


# The filters whose queues come from the same reads (about 0.4 s each on a 60-profile run): once
# a queue is shown, the others are made in the background, so that a change of filter finds its
# queue made. Evidence not in the message and the health scan read every message's text again:
# made only when asked for.
MADE_AHEAD = (
    QueueFilter.LEAKED,
    QueueFilter.UNREVIEWED,
    QueueFilter.PARSE_FAILURE,
    QueueFilter.JUDGE_ERROR,
    QueueFilter.PEOPLE_DISAGREE,
)


def _queue_scope(scope: RunScope) -> RunScope:
    """The scope a queue is kept under: its judge and label rule (no other option changes it)."""
    return scope.with_opts(MetricOptions(label_rule=scope.opts.label_rule))


def review_queue(scope: RunScope, ask: QueueAsk) -> Queue:
    """The Audit page's queue under the scope's judge and label rule (task matches the task or
    the recipient); the other options do not change it, nor its cache entry."""
    return _review_queue(_queue_scope(scope), ask)


def prefetch_queues(scope: RunScope, vs: int | None) -> None:
    """Start making, in the background, each whole queue of :data:`MADE_AHEAD` (and two judges'
    disagreements against ``vs``, when given), unless made or started already."""
    scope = _queue_scope(scope)
    asks = [QueueAsk(f) for f in MADE_AHEAD]
    asks += [QueueAsk(QueueFilter.DISAGREE, vs)] if vs is not None else []
    for ask in asks:
        prefetch.start(("queue", scope, ask), _make_queue, scope, ask)


@registry.shared_read(show_spinner="Building the review queue...", max_entries=32)
def _review_queue(scope: RunScope, ask: QueueAsk) -> Queue:
    started = prefetch.claim(("queue", scope, ask))
    return _make_queue(scope, ask) if started is None else started.result()


def _make_queue(scope: RunScope, ask: QueueAsk) -> Queue:
    with reading_at(scope.path) as store:
        q = queue.review_queue(
            store,
            scope.run_id,
            scope.judge_id,
            vs=ask.vs,
            filter=ask.filter,
            label_rule=scope.opts.label_rule,
        )
    return queue.narrow(
        q, queue.Narrowing(profile=ask.profile, task_or_recipient=ask.task, attribute=ask.attribute)
    )


@registry.data_read(show_spinner=False, max_entries=16)
def audit_seed(scope: RunScope) -> int:
    """The seed of the audit sample people decided on the run under the scope's judge and
    options (noted with their verdicts), else 0: the sample the pages go on with."""
    with reading_at(scope.path) as store:
        return correction.audit_seed(store, cube(scope), scope.opts, None)


@registry.data_read(show_spinner=False, max_entries=16)
def noted_size(scope: RunScope) -> int | None:
    """The size of the audit sample people decided on the run (None: none noted): where the
    Review page starts."""
    seed = audit_seed(scope)
    with reading_at(scope.path) as store:
        return correction.noted_size(store, cube(scope), scope.opts, seed)


@registry.shared_read(show_spinner="Drawing the audit sample...", max_entries=16)
def sample_rows(scope: RunScope, size: int, seed: int) -> list[SampleRow]:
    """The suggested audit sample's cells of a run under a judge, in review order."""
    run_cube = cube(scope)
    if run_cube.info.judge_id is None:
        raise CimemError(f"run {scope.run_id} has no judge: there is nothing to audit")
    with reading_at(scope.path) as store:
        return audit_sample(store, prepare(run_cube, scope.opts), size, seed)


@registry.shared_read(show_spinner="Drawing the audit sample...", max_entries=16)
def sample_queue(scope: RunScope, size: int, seed: int) -> Queue:
    """The suggested audit sample of a run under a judge, as a queue with its progress."""
    rows = sample_rows(scope, size, seed)
    judge = cube(scope).info.judge_id
    assert judge is not None
    with reading_at(scope.path) as store:
        return queue.sample_queue(store, scope.run_id, judge, rows)


@registry.data_read(show_spinner=False, max_entries=16)
def audit_plan_sentence(scope: RunScope, margin_points: float) -> str:
    """How much more audit gives the corrected metrics +/- ``margin_points`` (one line)."""
    with reading_at(scope.path) as store:
        plans = run_plan(store, prepare(cube(scope), scope.opts), margin_points / 100)
    return plan_sentence(plans, margin_points)
