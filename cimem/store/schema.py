"""The database's tables: the DDL, its migrations, one Arrow schema per bulk table.

Identifiers: a run owns its profiles (``profile_id`` = position in the source), their contexts
(``ctx_idx`` = position in the profile's context list) and their attributes (``attr_id``, unique
within the run). ``message_id`` and ``judge_id`` are unique in the database. Label fractions are
kept per persona (``persona = 'combined'`` is the weighted view the official rule reads); hard
labels are derived from them at query time by a named rule (see :mod:`cimem.analysis.labels`),
except for sources that only ship hard labels, which go to ``hard_labels``.

>>> BULK_TABLES["judgments"]
('judge_id', 'message_id', 'status', 'raw')
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa

# 2: human_verdicts (people's verdicts with their history); 3: run_progress; 4: each message's
# finish reason and token counts, and the call cache's finish reason; 5: people's adjudications;
# 6: people's labels; 7: the audit samples people decided
SCHEMA_VERSION = 7

SCHEMA_SQL = """
CREATE TABLE IF NOT EXISTS schema_info (version INTEGER NOT NULL);
CREATE SEQUENCE IF NOT EXISTS run_ids START 1;
CREATE SEQUENCE IF NOT EXISTS judge_ids START 1;
CREATE TABLE IF NOT EXISTS id_counters (name VARCHAR NOT NULL, last INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY,
    name VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,            -- 'results' (messages and verdicts), 'profiles', 'labels'
    source_format VARCHAR NOT NULL,   -- official, profiles, hf, persistbench, runner, demo
    source VARCHAR,                   -- the file it came from
    content_hash VARCHAR,             -- sha256 of the source file: re-imports are detected by it
    model VARCHAR,
    prompt_set VARCHAR,
    level INTEGER,
    memory_format VARCHAR,
    n_trials INTEGER,
    simulated BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL,
    config VARCHAR                    -- JSON: everything else about how the run was made
);
CREATE TABLE IF NOT EXISTS profiles (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL,
    name VARCHAR NOT NULL, sex VARCHAR, address VARCHAR, age VARCHAR,
    bio_json VARCHAR                  -- the bio object as it came, for export
);
CREATE TABLE IF NOT EXISTS attributes (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL, attr_id INTEGER NOT NULL,
    key VARCHAR NOT NULL,
    value_json VARCHAR,               -- the value as JSON (numbers, lists, booleans keep their type)
    domain VARCHAR, event VARCHAR, memory_statement VARCHAR
);
CREATE TABLE IF NOT EXISTS contexts (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL, ctx_idx INTEGER NOT NULL,
    recipient VARCHAR NOT NULL, task VARCHAR NOT NULL,
    prompt VARCHAR                    -- a source's task prompt when it ships one without messages
);
CREATE TABLE IF NOT EXISTS persona_labels (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL, ctx_idx INTEGER NOT NULL,
    attr_id INTEGER NOT NULL, persona VARCHAR NOT NULL,
    necessary DOUBLE, private DOUBLE, unlabeled DOUBLE
);
CREATE TABLE IF NOT EXISTS hard_labels (
    run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL, ctx_idx INTEGER NOT NULL,
    attr_id INTEGER NOT NULL, label VARCHAR NOT NULL   -- share, private, ambiguous
);
CREATE TABLE IF NOT EXISTS messages (
    message_id BIGINT NOT NULL, run_id INTEGER NOT NULL, profile_id INTEGER NOT NULL,
    ctx_idx INTEGER NOT NULL, trial INTEGER NOT NULL,
    num_to_share INTEGER, num_not_to_share INTEGER,
    shared_json VARCHAR,              -- [to_share, not_to_share] lists when not the full memory
    prompt VARCHAR, text VARCHAR,
    status VARCHAR NOT NULL,          -- ok, failed
    error VARCHAR,
    finish_reason VARCHAR,            -- the endpoint's (stop, length, ...); NULL: not known
    prompt_tokens INTEGER, completion_tokens INTEGER  -- of the call; NULL: not known
);
CREATE TABLE IF NOT EXISTS judges (
    judge_id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, name VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,            -- imported, llm, offline, human, simulator
    model VARCHAR, prompt_hash VARCHAR, created_at TIMESTAMP NOT NULL, config VARCHAR
);
CREATE TABLE IF NOT EXISTS judgments (
    judge_id INTEGER NOT NULL, message_id BIGINT NOT NULL,
    status VARCHAR NOT NULL,          -- ok, parse_failure, error
    raw VARCHAR
);
CREATE TABLE IF NOT EXISTS llm_cache (
    key VARCHAR PRIMARY KEY,          -- sha256 of model, whole prompt, sampling parameters, trial
    model VARCHAR, purpose VARCHAR, response VARCHAR, reasoning VARCHAR,
    prompt_tokens INTEGER, completion_tokens INTEGER, created_at TIMESTAMP NOT NULL,
    finish_reason VARCHAR             -- the endpoint's (stop, length, ...); NULL: not known
);
CREATE TABLE IF NOT EXISTS verdicts (
    judge_id INTEGER NOT NULL, message_id BIGINT NOT NULL, attr_id INTEGER NOT NULL,
    revealed BOOLEAN NOT NULL, evidence VARCHAR
);
CREATE TABLE IF NOT EXISTS human_verdicts (  -- append-only; verdicts holds each pair's latest
    seq BIGINT NOT NULL,              -- order of recording: the highest of a pair is current
    judge_id INTEGER NOT NULL, message_id BIGINT NOT NULL, attr_id INTEGER NOT NULL,
    revealed BOOLEAN NOT NULL, reviewer VARCHAR, note VARCHAR, created_at TIMESTAMP NOT NULL,
    adjudication BOOLEAN              -- settles reviewers' disagreement on the pair
);
CREATE TABLE IF NOT EXISTS people_labels (  -- append-only; a reviewer's latest on a pair is current
    seq BIGINT NOT NULL,              -- order of recording
    profile VARCHAR NOT NULL,         -- by text, so one label serves every run of the person:
    recipient VARCHAR NOT NULL,       -- the profile's name, the context's recipient and task,
    task VARCHAR NOT NULL,            -- and the attribute's key
    attr_key VARCHAR NOT NULL,
    label VARCHAR NOT NULL,           -- share, withhold, unsure
    reviewer VARCHAR, note VARCHAR, created_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS audit_samples (  -- the samples people decided cells of
    human_judge_id INTEGER NOT NULL,  -- the run's human judge holding people's verdicts
    judge_id INTEGER NOT NULL,        -- the judge whose decisions the sample audits
    seed INTEGER NOT NULL,            -- the seed of its draws
    options VARCHAR NOT NULL,         -- the metric options it was drawn under (mode, label rule, ...)
    cells INTEGER,                    -- the largest size asked for
    created_at TIMESTAMP NOT NULL
);
CREATE TABLE IF NOT EXISTS run_progress (  -- a run being made by `cimem run`, one row per run
    run_id INTEGER PRIMARY KEY,
    pid INTEGER NOT NULL, host VARCHAR NOT NULL,  -- the process making it
    started_at TIMESTAMP NOT NULL, updated_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,            -- NULL while it runs (or since it was stopped)
    total INTEGER NOT NULL,           -- messages the run makes
    done INTEGER NOT NULL,            -- messages stored, each with its judge's verdicts
    done_at_start INTEGER NOT NULL,   -- of them, stored before this process began
    failed INTEGER NOT NULL,          -- generation calls that failed after their retries
    cost DOUBLE NOT NULL              -- USD of this process's calls so far
);
"""

# Version 1 kept only people's latest verdict, in verdicts (note as evidence): it becomes the
# first entry of each pair's history, dated when its judge was made.
MIGRATE_1_TO_2 = """
INSERT INTO human_verdicts (seq, judge_id, message_id, attr_id, revealed, reviewer, note,
                            created_at)
SELECT row_number() OVER (ORDER BY v.judge_id, v.message_id, v.attr_id), v.judge_id,
       v.message_id, v.attr_id, v.revealed, NULL, v.evidence, j.created_at
FROM verdicts v JOIN judges j USING (judge_id) WHERE j.kind = 'human'
"""

# Version 3 did not keep how a generation ended or what it cost: those columns are added, NULL
# (not known) for what is stored already. New files have them where the DDL above puts them,
# at the end of their tables too.
MIGRATE_3_TO_4 = """
ALTER TABLE messages ADD COLUMN IF NOT EXISTS finish_reason VARCHAR;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS prompt_tokens INTEGER;
ALTER TABLE messages ADD COLUMN IF NOT EXISTS completion_tokens INTEGER;
ALTER TABLE llm_cache ADD COLUMN IF NOT EXISTS finish_reason VARCHAR;
"""
MIGRATE_4_TO_5 = """
ALTER TABLE human_verdicts ADD COLUMN IF NOT EXISTS adjudication BOOLEAN;
"""


def _ids(*names: str) -> list[pa.Field]:
    return [pa.field(n, pa.int32()) for n in names]


def _texts(*names: str) -> list[pa.Field]:
    return [pa.field(n, pa.string()) for n in names]


# The tables bulk appends may target, with their columns in order and the Arrow type that matches
# each column's SQL type (INTEGER int32, BIGINT int64, VARCHAR string, DOUBLE float64).
BULK_SCHEMAS: dict[str, pa.Schema] = {
    "profiles": pa.schema(
        [*_ids("run_id", "profile_id"), *_texts("name", "sex", "address", "age", "bio_json")]
    ),
    "attributes": pa.schema(
        [
            *_ids("run_id", "profile_id", "attr_id"),
            *_texts("key", "value_json", "domain", "event", "memory_statement"),
        ]
    ),
    "contexts": pa.schema(
        [*_ids("run_id", "profile_id", "ctx_idx"), *_texts("recipient", "task", "prompt")]
    ),
    "persona_labels": pa.schema(
        [
            *_ids("run_id", "profile_id", "ctx_idx", "attr_id"),
            pa.field("persona", pa.string()),
            *(pa.field(n, pa.float64()) for n in ("necessary", "private", "unlabeled")),
        ]
    ),
    "hard_labels": pa.schema(
        [*_ids("run_id", "profile_id", "ctx_idx", "attr_id"), pa.field("label", pa.string())]
    ),
    "messages": pa.schema(
        [
            pa.field("message_id", pa.int64()),
            *_ids("run_id", "profile_id", "ctx_idx", "trial", "num_to_share", "num_not_to_share"),
            *_texts("shared_json", "prompt", "text", "status", "error", "finish_reason"),
            *_ids("prompt_tokens", "completion_tokens"),
        ]
    ),
    "judgments": pa.schema(
        [*_ids("judge_id"), pa.field("message_id", pa.int64()), *_texts("status", "raw")]
    ),
    "verdicts": pa.schema(
        [
            *_ids("judge_id"),
            pa.field("message_id", pa.int64()),
            *_ids("attr_id"),
            pa.field("revealed", pa.bool_()),
            *_texts("evidence"),
        ]
    ),
    "people_labels": pa.schema(
        [
            pa.field("seq", pa.int64()),
            *_texts("profile", "recipient", "task", "attr_key", "label", "reviewer", "note"),
            pa.field("created_at", pa.timestamp("us")),
        ]
    ),
}
BULK_TABLES: dict[str, tuple[str, ...]] = {t: tuple(s.names) for t, s in BULK_SCHEMAS.items()}

LLM_CACHE_SCHEMA = pa.schema(
    [
        *_texts("key", "model", "purpose", "response", "reasoning"),
        *_ids("prompt_tokens", "completion_tokens"),
        pa.field("created_at", pa.timestamp("us")),
        *_texts("finish_reason"),
    ]
)

INSERT_SQL = {
    table: f"INSERT INTO {table} ({', '.join(cols)}) SELECT {', '.join(cols)} FROM _bulk"
    for table, cols in BULK_TABLES.items()
}
ID_COLUMNS = ("profile_id", "attr_id", "message_id")
"""The ids an import numbers within its run, which a part of a file read apart numbers from zero."""
SHIFTED_INSERT_SQL = {
    table: (
        f"INSERT INTO {table} ({', '.join(cols)}) SELECT "
        + ", ".join(f"{c} + ?" if c in ID_COLUMNS else c for c in cols)
        + " FROM _bulk",
        tuple(c for c in cols if c in ID_COLUMNS),
    )
    for table, cols in BULK_TABLES.items()
}
"""Each bulk table's insert with its id columns moved by parameters, and those columns in order.

>>> SHIFTED_INSERT_SQL["judgments"]
('INSERT INTO judgments (judge_id, message_id, status, raw) SELECT judge_id, message_id + ?, \
status, raw FROM _bulk', ('message_id',))
"""
COUNT_SQL = {t: f"SELECT count(*) FROM {t}" for t in ("runs", "judges", "llm_cache", *BULK_TABLES)}


def bulk_table(table: str, columns: Mapping[str, Any]) -> pa.Table:
    """The Arrow table ``Store.append(table, ...)`` takes, built from the table's own schema:
    every column given by name (lists, numpy arrays or Arrow arrays, which are kept as they are),
    each converted to its column's type; a missing or unknown column is a ValueError.

    >>> bulk_table("judgments", {"judge_id": [1], "message_id": [7], "status": ["ok"],
    ...                          "raw": [None]}).schema.types[:2]
    [DataType(int32), DataType(int64)]
    """
    schema = BULK_SCHEMAS[table]
    missing, unknown = set(schema.names) - set(columns), set(columns) - set(schema.names)
    if missing or unknown:
        raise ValueError(f"{table}: missing columns {sorted(missing)}, unknown {sorted(unknown)}")
    return pa.table({f.name: _arrow(columns[f.name], f.type) for f in schema})


def _arrow(values: Any, type_: pa.DataType) -> pa.Array:
    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values
    return pa.array(values, type_)
