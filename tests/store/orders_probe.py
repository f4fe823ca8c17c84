"""Run as a script by ``test_read_orders.py``: every read of the store whose rows come back in an
order, each called twice in this process with DuckDB's threads at four, printed as a JSON object
{read: [digest of the first call, digest of the second]}.

A digest hashes the rows in the order they came: a list's rows, a column bundle's columns, a
dict's items in iteration order. Two processes that print the same digests read the same rows in
the same order.

    python tests/store/orders_probe.py DB
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from cimem.store import Store

THREADS = 4


def digest(value: Any) -> str:
    """A hash of ``value`` that depends on the order of its rows."""
    h = hashlib.sha256()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            column = getattr(value, f.name)
            h.update(f.name.encode())
            if isinstance(column, np.ndarray) and column.dtype != object:
                h.update(np.ascontiguousarray(column).tobytes())
            else:
                h.update(repr(list(column)).encode())
    elif isinstance(value, dict):
        h.update(repr(list(value.items())).encode())
    else:
        h.update(repr(value).encode())
    return h.hexdigest()


def reads(store: Store, ids: dict[str, int]) -> dict[str, Callable[[], Any]]:
    """Every read with rows in an order, as the tests' database lets it be called (run 1, its
    judges, the human judge, a profile, a context, a message)."""
    run, judge, other, human = ids["run"], ids["judge"], ids["other"], ids["human"]
    profile, message = ids["profile"], ids["message"]
    return {
        "agreement_pairs": lambda: store.agreement_pairs(judge, other),
        "attribute_keys_by_profile": lambda: store.attribute_keys_by_profile(run),
        "audit_samples": lambda: store.audit_samples(human),
        "attributes_of": lambda: store.attributes_of(run),
        "composition_messages": lambda: store.composition_messages(run, judge),
        "contexts_of": lambda: store.contexts_of(run),
        "counterparts": lambda: store.counterparts(message),
        "hard_labels_of": lambda: store.hard_labels_of(run, profile),
        "health_messages": lambda: store.health_messages(run),
        "human_verdicts": lambda: store.human_verdicts(human, history=True),
        "judge_coverage": lambda: store.judge_coverage(run),
        "judges": lambda: store.judges(run),
        "judgments_of": lambda: store.judgments_of(judge),
        "label_columns": lambda: store.label_columns(run),
        "labels_of_run": lambda: store.labels_of_run(run),
        "leaderboard_facts": lambda: store.leaderboard_facts(),
        "leak_pairs": lambda: store.leak_pairs(run, judge),
        "list_runs": lambda: store.list_runs(),
        "message_index": lambda: store.message_index(run),
        "message_judgments": lambda: store.message_judgments(message),
        "message_slots": lambda: store.message_slots(run),
        "message_slots_index": lambda: store.message_slots_index(run),
        "message_verdicts": lambda: store.message_verdicts(message),
        "messages_of": lambda: store.messages_of(run, profile),
        "messages_to_judge": lambda: store.messages_to_judge(run),
        "pair_labels": lambda: store.pair_labels(run, profile, 0),
        "pair_messages": lambda: store.pair_messages(run, profile, 0, ids["attr"], judge),
        "people_labels": lambda: store.people_labels(history=True),
        "people_labels_of": lambda: store.people_labels_of(run),
        "run_rows": lambda: {t: v.to_pydict() for t, v in store.run_rows(run).items()},
        "shared_rows": lambda: {t: v.to_pydict() for t, v in store.shared_rows().items()},
        "persona_fractions": lambda: store.persona_fractions(run),
        "persona_labels_of": lambda: store.persona_labels_of(run, profile),
        "profiles_of": lambda: store.profiles_of(run),
        "queue_cells": lambda: store.queue_cells(run, judge, other, evidence=True),
        "run_ids": lambda: store.run_ids(),
        "run_progress": lambda: store.run_progress(),
        "settled_human_verdicts": lambda: store.settled_human_verdicts(human),
        "sheet_cells": lambda: store.sheet_cells(
            judge, [(message, ids["attr"]), (message, ids["attr"] + 1), (message - 1, ids["attr"])]
        ),
        "trial_masks": lambda: store.trial_masks(run, judge),
        "unjudged_messages": lambda: store.unjudged_messages(run, human),
        "unmatched_people_labels": lambda: store.unmatched_people_labels([]),
        "values_by_name": lambda: store.values_by_name(run),
        "verdicts_of": lambda: store.verdicts_of(judge, run, profile),
    }


def main(db: str, ids_json: str) -> None:
    ids = json.loads(ids_json)
    with Store.open(db, read_only=True) as store:
        store.con.execute("SET threads = ?", [THREADS])
        out = {name: [digest(read()), digest(read())] for name, read in reads(store, ids).items()}
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
