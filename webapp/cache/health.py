"""The Data page's message health: a run's messages scanned once per file version (the scan does
not depend on the judge or the options), and the report under a run's scope (its cube's metrics
with and without the flagged messages)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import streamlit as st

from webapp.cache.cubes import cube
from webapp.cache.scope import DbScope, RunScope
from webapp.connection import reading_at

if TYPE_CHECKING:
    import pandas as pd

    from cimem.analysis.health import HealthReport


@st.cache_data(show_spinner="Scanning the messages...", max_entries=16)
def _scan(db: DbScope, run_id: int) -> pd.DataFrame:
    from cimem.analysis.health import scan

    with reading_at(db.path) as store:
        return scan(store.health_messages(run_id))


@st.cache_data(show_spinner=False, max_entries=32)
def health(scope: RunScope) -> HealthReport:
    """The run's health report: counts per flag, and its metrics under the scope's judge and
    options with every message and without the flagged ones (what ``cimem health`` prints)."""
    from cimem.analysis.health import health_report

    return health_report(cube(scope), _scan(scope.db, scope.run_id), (scope.opts,))
