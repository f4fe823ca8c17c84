"""Where things live by default (kept free of heavy imports: the CLI reads it at start-up)."""

from __future__ import annotations

import os

DEFAULT_DB_ENV = "CIMEM_DB"
DEFAULT_DB_PATH = "cimem.duckdb"


def default_db_path() -> str:
    """The database path when none is given: ``$CIMEM_DB`` or ``cimem.duckdb`` here."""
    return os.environ.get(DEFAULT_DB_ENV) or DEFAULT_DB_PATH
