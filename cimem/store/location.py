"""Where a database is: a DuckDB file, or a DuckLake whose catalog is a PostgreSQL database."""

from __future__ import annotations


def sql_text(text: str) -> str:
    """``text`` as an SQL string literal, for the few statements DuckDB takes no parameter in
    (``ATTACH``'s path).

    >>> sql_text("it's.duckdb")
    "'it''s.duckdb'"
    """
    return "'" + text.replace("'", "''") + "'"
