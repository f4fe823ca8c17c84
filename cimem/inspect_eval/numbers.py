"""The task's own Violation@n and Completeness: its samples written as a run into a database held
in memory, the run's cube read back, and :func:`cimem.analysis.metrics.compute` run on it.

That is the path ``cimem ingest run.eval`` then ``cimem metrics`` takes, so the log's metrics and
cimem's are one number (tests/inspect_eval/test_task.py)."""

from __future__ import annotations

from dataclasses import dataclass

from cimem.analysis.cube import cube_from_store
from cimem.analysis.metrics import RunMetrics, compute
from cimem.ingest.formats import SourceFormat
from cimem.ingest.inspect_samples import LoggedSample, records_from_samples
from cimem.ingest.records import JudgeMeta, RunMeta
from cimem.ingest.writer import RunWriter
from cimem.store import RunKind, Store


@dataclass(frozen=True)
class TaskNumbers:
    violation: float
    completeness: float
    metrics: RunMetrics


def task_numbers(samples: list[LoggedSample]) -> TaskNumbers:
    """The metrics of a task's scored samples, in cimem's default options (official mode and
    label rule)."""
    records = records_from_samples(samples)
    meta = RunMeta(
        name="inspect task",
        kind=RunKind.RESULTS,
        source_format=SourceFormat.INSPECT,
        judge=JudgeMeta(name="reveal"),
    )
    with Store.open(":memory:") as store:
        writer = RunWriter(store)
        with store.transaction():
            run_id = writer.start(meta, source="inspect task")
            for rec in records:
                for table, data in writer.tables(rec):
                    store.append(table, data)
            writer.finish("")
        metrics = compute(cube_from_store(store, run_id))
    return TaskNumbers(metrics.violation.mean, metrics.completeness.mean, metrics)
