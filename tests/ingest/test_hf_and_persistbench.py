"""Hugging Face rows and PersistBench files."""

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cimem.errors import InputError
from cimem.ingest import detect_format, ingest_file
from cimem.ingest.hf import parse_request

from conftest import shared_file
from fixtures import HF_PROMPT, hf_rows


def test_parse_request_takes_recipient_and_task():
    assert parse_request(HF_PROMPT.format(r="x y", t="Do a. b")) == ("x y", "Do a. b")
    assert parse_request("no request here") is None


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_hf_rows_in_every_export_format(store, tmp_path, suffix):
    table = pa.Table.from_pylist(hf_rows())
    path = tmp_path / f"rows{suffix}"
    if suffix == ".parquet":
        pq.write_table(table, path)
    elif suffix == ".csv":
        import pyarrow.csv as pcsv

        pcsv.write_csv(table, path)
    else:
        path.write_text("".join(json.dumps(r) + "\n" for r in hf_rows()))
    assert detect_format(path) == "hf"
    res = ingest_file(store, path)
    assert res.profiles == 2
    got = store.con.execute(
        "SELECT p.name, c.recipient, c.task, a.key, h.label FROM hard_labels h"
        " JOIN profiles p USING (run_id, profile_id) JOIN contexts c USING (run_id, profile_id, ctx_idx)"
        " JOIN attributes a USING (attr_id) WHERE p.name = 'Ann' ORDER BY 2, 4"
    ).fetchall()
    assert got == [
        ("Ann", "bank loan officer", "Apply for personal loan", "diagnosis", "private"),
        ("Ann", "bank loan officer", "Apply for personal loan", "hobby", "ambiguous"),
        ("Ann", "bank loan officer", "Apply for personal loan", "income", "private"),
        ("Ann", "landlord", "Renew lease", "diagnosis", "private"),
        ("Ann", "landlord", "Renew lease", "hobby", "ambiguous"),
        ("Ann", "landlord", "Renew lease", "income", "share"),
    ]


def test_hf_bad_label_names_the_row(store, tmp_path):
    rows = hf_rows()
    rows[4]["label"] = 0.5
    path = tmp_path / "bad.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(
        InputError, match=r"bad.parquet: row 5: field 'label': expected 1.0, 0.0 or null"
    ):
        ingest_file(store, path)
    assert store.table_counts()["runs"] == 0


def test_hf_shared_sample(store):
    path = shared_file("hf_rows_sample.parquet")
    table = pq.read_table(path)
    res = ingest_file(store, path)
    assert res.profiles == len(set(table.column("name").to_pylist()))
    counts = dict(
        store.con.execute("SELECT label, count(*) FROM hard_labels GROUP BY 1").fetchall()
    )
    labels = table.column("label").to_pylist()
    assert counts == {
        "share": labels.count(1.0),
        "private": labels.count(0.0),
        "ambiguous": sum(v is None for v in labels),
    }
    assert store.con.execute("SELECT count(*) FROM contexts").fetchone()[0] == 98


def test_persistbench_real_file(store):
    path = shared_file("persistbench_llama33_jeffery_day.json")
    doc = json.loads(path.read_text())
    assert detect_format(path) == "persistbench"
    res = ingest_file(store, path)
    run = store.run_config(res.run_id)
    assert run["model"] == "meta/llama-3.3-70b-instruct-maas" and res.messages == 49
    entries = list(doc["entries"].values())
    labelled = sum(len(e["required_attributes"]) + len(e["forbidden_attributes"]) for e in entries)
    got = dict(store.con.execute("SELECT label, count(*) FROM hard_labels GROUP BY 1").fetchall())
    assert got["share"] + got["private"] == labelled
    # judge ids written as "[key]" map back; positional ids are parse failures with the ids kept
    statuses = dict(
        store.con.execute("SELECT status, count(*) FROM judgments GROUP BY 1").fetchall()
    )
    positional = sum(
        1
        for e in entries
        for g in e["results"]["meta/llama-3.3-70b-instruct-maas"]["generations"]
        if any(
            p["id"].strip("[]") not in e["cim_metadata"]["attribute_memory_map"]
            for p in g["judge"]["per_attribute"]
        )
    )
    assert statuses["parse_failure"] == positional and statuses["ok"] == 49 - positional
    judge = store.judges(res.run_id)[0]
    assert judge.model == "moonshotai/kimi-k2-thinking-maas"
    evidence = store.con.execute(
        "SELECT v.evidence FROM verdicts v JOIN attributes a USING (attr_id)"
        " WHERE a.key = 'annual_income' AND v.revealed LIMIT 1"
    ).fetchone()[0]
    assert "95,000" in evidence


RAW_RESPONSES = [  # how each provider's SDK dumps a reply, as PersistBench keeps it
    {
        "choices": [{"finish_reason": "length"}],
        "usage": {"prompt_tokens": 900, "completion_tokens": 1024},
    },
    {
        "type": "succeeded",
        "message": {
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 950, "output_tokens": 300},
        },
    },
    {
        "candidates": [{"finishReason": "MAX_TOKENS"}],
        "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 8},
    },
    {"choices": [{"finish_reason": 3}], "usage": {"prompt_tokens": -1}},  # not readable: unknown
]


def test_persistbench_keeps_how_each_generation_ended_when_the_file_has_it(store, tmp_path):
    path = shared_file("persistbench_llama33_jeffery_day.json")
    plain = ingest_file(store, path)
    assert store.con.execute(
        "SELECT count(finish_reason), count(prompt_tokens), count(completion_tokens)"
        " FROM messages WHERE run_id = ?",
        [plain.run_id],
    ).fetchall() == [(0, 0, 0)]  # the published file kept no raw responses: not known
    doc = json.loads(path.read_text())
    entries = list(doc["entries"].values())
    for entry, raw in zip(entries, RAW_RESPONSES):
        entry["results"]["meta/llama-3.3-70b-instruct-maas"]["generations"][0][
            "memory_raw_api_response"
        ] = raw
    copy = tmp_path / "with_raw.json"
    copy.write_text(json.dumps(doc))
    res = ingest_file(store, copy)
    got = store.con.execute(
        "SELECT ctx_idx, finish_reason, prompt_tokens, completion_tokens FROM messages"
        " WHERE run_id = ? AND ctx_idx < 5 ORDER BY ctx_idx",
        [res.run_id],
    ).fetchall()
    assert got == [
        (0, "length", 900, 1024),
        (1, "stop", 950, 300),
        (2, "length", 7, 8),
        (3, None, None, None),
        (4, None, None, None),
    ]
