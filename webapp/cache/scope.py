"""The one frozen value every cached read is keyed by: which database (at which version), and
for a run's reads, which run, judge and metric options. A new file version is a new key, so a
changed database is read again."""

from __future__ import annotations

from dataclasses import dataclass, replace

from cimem.analysis.metrics import MetricOptions


@dataclass(frozen=True)
class DbScope:
    """A database file at one version (:func:`webapp.connection.version`)."""

    path: str
    db_version: float

    def run(
        self, run_id: int, judge_id: int | None = None, opts: MetricOptions | None = None
    ) -> RunScope:
        """A run of this database, under a judge (None: its original verdicts) and options."""
        return RunScope(self.path, self.db_version, run_id, judge_id, opts or MetricOptions())


@dataclass(frozen=True)
class RunScope:
    """A run of a database at one version, under a judge and metric options."""

    path: str
    db_version: float
    run_id: int
    judge_id: int | None = None
    opts: MetricOptions = MetricOptions()
    view: str | None = None  # the run shown under two judges: which one this is (its name says)

    @property
    def db(self) -> DbScope:
        return DbScope(self.path, self.db_version)

    def with_opts(self, opts: MetricOptions) -> RunScope:
        """The same run and judge under other options (the page's other mode)."""
        return replace(self, opts=opts)

    def verdicts(self) -> RunScope:
        """The run and judge alone, for what the options do not change (its cube): one cache
        entry whatever the options."""
        return replace(self, opts=MetricOptions())
