"""Where a database is: a DuckDB file, or a DuckLake whose catalog is a PostgreSQL database.

A lake is named by one line that fits ``--db`` and ``$CIMEM_DB``: ``ducklake:postgres:`` and
PostgreSQL's own connection keywords, plus ``data_path=FOLDER`` for the lake's Parquet files
(needed when the lake is made; DuckLake remembers it). Passwords belong in ``PGPASSWORD`` or
``~/.pgpass``, where PostgreSQL's client reads them; one typed in the line is never shown.

>>> lake = parse_lake("ducklake:postgres:dbname=cimem host=db.lab port=5432 data_path=/srv/lake")
>>> lake.catalog, lake.data_path
('postgres:dbname=cimem host=db.lab port=5432', '/srv/lake')
>>> is_lake("runs.duckdb"), is_lake(" ducklake:postgres:dbname=x")
(False, True)
>>> shown("ducklake:postgres:dbname=x password=s3cret host=h")
'ducklake:postgres:dbname=x password=*** host=h'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from cimem.errors import CimemError
from cimem.paths import LAKE_SCHEME

CATALOGS = ("postgres:",)  # the catalogs several machines can share (SQLite's lock refuses them)
_DATA_PATH = re.compile(r"(?:^|\s)data_path=(\S+)")
# A password as libpq takes one: a keyword (spaces allowed around "=", its value bare or quoted,
# the quotes perhaps escaped where a message quotes the location), or a URI's user:password@.
_SECRETS = (
    re.compile(
        r"""(\b(?:pg)?password\s*=\s*)('(?:[^'\\]|\\.)*'|\\'.*?\\'|"[^"]*"|[^\s'"]+)""", re.I
    ),
    re.compile(r"(\b[a-z][a-z0-9+.-]*://[^:/@\s]*:)([^@\s]+)(?=@)", re.I),
)


class LakeRefused(CimemError):
    """A lake location that cannot be used as written."""


@dataclass(frozen=True)
class LakeLocation:
    """A DuckLake: its catalog (for DuckDB's ``ATTACH 'ducklake:...'``) and its data folder."""

    catalog: str
    data_path: str | None


def sql_text(text: str) -> str:
    """``text`` as an SQL string literal, for the few statements DuckDB takes no parameter in
    (``ATTACH``'s path).

    >>> sql_text("it's.duckdb")
    "'it''s.duckdb'"
    """
    return "'" + text.replace("'", "''") + "'"


def is_lake(location: str) -> bool:
    """Whether a database location names a lake rather than a file."""
    return location.strip().startswith(LAKE_SCHEME)


def parse_lake(location: str) -> LakeLocation:
    """The lake a location names; LakeRefused, saying what was expected, for any other catalog.

    >>> parse_lake("ducklake:catalog.ducklake")
    Traceback (most recent call last):
    ...
    cimem.store.location.LakeRefused: ducklake:catalog.ducklake: expected a lake over PostgreSQL, \
ducklake:postgres:dbname=NAME host=HOST [port=PORT user=USER] [data_path=FOLDER]
    """
    text = location.strip()
    rest = text[len(LAKE_SCHEME) :]
    if not rest.startswith(CATALOGS):
        raise LakeRefused(
            f"{shown(text)}: expected a lake over PostgreSQL, ducklake:postgres:dbname=NAME"
            " host=HOST [port=PORT user=USER] [data_path=FOLDER]"
        )
    found = _DATA_PATH.search(rest)
    data_path = found.group(1) if found else None
    catalog = " ".join(_DATA_PATH.sub(" ", rest).split())
    return LakeLocation(catalog=catalog, data_path=data_path)


def lake_name(location: str) -> str:
    """A lake as a visitor of the app may see it: its catalog database's name only.

    >>> lake_name("ducklake:postgres:dbname=cimem host=10.0.0.5 password=x")
    'lake cimem'
    >>> lake_name("ducklake:postgres:postgresql://cimem:x@10.0.0.5:5432/runs?sslmode=require")
    'lake runs'
    """
    found = re.search(r"(?:^|[\s:])dbname=(\S+)", location) or re.search(
        r"://[^/\s]*/([^?\s/]+)", location
    )
    return f"lake {found.group(1) if found else '(unnamed)'}"


def shown(location: str) -> str:
    """A location (or a message, a log line or a traceback quoting it) as it may be shown or
    stored: every password typed in it is masked, in each form libpq reads one.

    >>> shown("ducklake:postgres:dbname=x password = 'sec ret' host=h")
    'ducklake:postgres:dbname=x password = *** host=h'
    >>> shown("ducklake:postgres:postgresql://cimem:s3cret@db.lab:5432/cimem")
    'ducklake:postgres:postgresql://cimem:***@db.lab:5432/cimem'
    >>> shown("no lake at 'ducklake:postgres:dbname=x PASSWORD=\\\\'a b\\\\' host=h'")
    "no lake at 'ducklake:postgres:dbname=x PASSWORD=*** host=h'"
    """
    for pattern in _SECRETS:
        location = pattern.sub(r"\1***", location)
    return location
