"""The Data page's message health: a run's messages scanned once per file version (the scan does
not depend on the judge or the options), and the report under a run's scope (its cube's metrics
with and without the flagged messages)."""

from __future__ import annotations

import pandas as pd

from cimem.analysis.health import HealthReport, health_report, scan
from webapp.cache import registry
from webapp.cache.cubes import cube
from webapp.cache.scope import DbScope, RunScope
from webapp.connection import reading_at


@registry.data_read(show_spinner="Scanning the messages...", max_entries=16)
def _scan(db: DbScope, run_id: int) -> pd.DataFrame:

    with reading_at(db.path) as store:
        return scan(store.health_messages(run_id))


@registry.data_read(show_spinner=False, max_entries=32)
def health(scope: RunScope) -> HealthReport:
    """The run's health report: counts per flag, and its metrics under the scope's judge and
    options with every message and without the flagged ones (what ``cimem health`` prints)."""
    return health_report(cube(scope), _scan(scope.db, scope.run_id), (scope.opts,))
