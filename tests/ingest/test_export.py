"""Export to the official format: a round trip keeps every label fraction, message and verdict."""

import json

from cimem.ingest import ingest_file
from cimem.ingest.export import export_official

from conftest import shared_file
from fixtures import small_profile, write_jsonl


def comparable(profile: dict) -> dict:
    """What must survive a round trip, in an order-free form."""
    out = {"bio": profile["bio"], "attributes": profile["information_attributes"], "contexts": []}
    for ctx in profile["contexts"]:
        c = {"recipient": ctx["recipient"], "task": ctx["task"], "labels": {}, "trials": {}}
        for k, v in ctx.items():
            if k.startswith("labels_"):
                c["labels"][k] = v
            elif k.startswith("combination"):
                sol = v["model_solution"]
                c["trials"][k] = {
                    "prompt": v["prompt"],
                    "to_share": v["to_share_attributes"],
                    "not_to_share": v["not_to_share_attributes"],
                    "trial_idx": v["trial_idx"],
                    "message": sol["response_solution"],
                    "revealed": sol["revealed_attributes"],
                    "explanation": sol["revealed_attributes_explanation"],
                }
        out["contexts"].append(c)
    return out


def roundtrip(store, tmp_path, source):
    res = ingest_file(store, source)
    out = tmp_path / "out.jsonl"
    counts = export_official(store, res.run_id, out)
    before = [comparable(json.loads(line)) for line in source.read_text().splitlines() if line]
    after = [comparable(json.loads(line)) for line in out.read_text().splitlines() if line]
    return before, after, counts


def test_roundtrip_small(store, tmp_path):
    src = write_jsonl(tmp_path / "in.jsonl", [small_profile("A"), small_profile("B")])
    before, after, counts = roundtrip(store, tmp_path, src)
    assert after == before
    assert counts == {"profiles": 2, "messages": 8, "verdicts": 24, "skipped_failed": 0}


def test_roundtrip_shared_sample(store, tmp_path):
    before, after, _ = roundtrip(store, tmp_path, shared_file("results_sample.jsonl"))
    assert len(after) == len(before) == 2
    assert after == before


def test_export_leaves_no_partial_file_on_error(store, tmp_path, monkeypatch):
    res = ingest_file(store, write_jsonl(tmp_path / "in.jsonl", [small_profile()]))
    out = tmp_path / "out.jsonl"
    out.write_text("previous content\n")

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr("cimem.ingest.export._profile_object", boom)
    try:
        export_official(store, res.run_id, out)
    except RuntimeError:
        pass
    assert out.read_text() == "previous content\n"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []
