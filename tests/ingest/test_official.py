"""The official run-output importer: exact rows on a hand-made file, counts on the shared sample."""

import json

import pytest

from cimem.ingest import detect_format, ingest_file, ingest_or_find

from conftest import shared_file
from fixtures import MIXED, PRIVATE, SHARE, attribute, profile, small_profile, write_jsonl


def rows(store, sql, params=()):
    return store.con.execute(sql, list(params)).fetchall()


def test_small_file_exact_rows(store, tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [small_profile("Ada")])
    assert detect_format(path) == "official"
    res = ingest_file(store, path, name="tiny", model="m1")
    assert (res.profiles, res.messages, res.verdicts) == (1, 4, 12)
    run = store.run_config(res.run_id)
    assert (run["name"], run["model"], run["n_trials"], run["kind"]) == ("tiny", "m1", 2, "results")
    assert rows(store, "SELECT key, value_json, domain FROM attributes ORDER BY attr_id") == [
        ("name", '"Ada"', "general"),
        ("annual_income", "95000", "finance"),
        ("diagnosis", '"hypertension"', "health"),
    ]
    assert rows(store, "SELECT ctx_idx, recipient, task FROM contexts ORDER BY ctx_idx") == [
        (0, "Bank Loan Officer", "Apply for personal loan"),
        (1, "Primary Care Physician", "Schedule a check-up"),
    ]
    # 2 contexts x (3 personas + combined) x 3 attributes
    assert rows(store, "SELECT count(*), count(DISTINCT persona) FROM persona_labels") == [(24, 4)]
    assert rows(
        store,
        "SELECT necessary, private, unlabeled FROM persona_labels p JOIN attributes a"
        " USING (attr_id) WHERE persona = 'combined' AND ctx_idx = 1 AND key = 'diagnosis'",
    ) == [(0.5, 0.3, 0.2)]
    assert rows(
        store, "SELECT ctx_idx, trial, text, status FROM messages ORDER BY ctx_idx, trial"
    ) == [
        (0, 0, "I earn $95,000.", "ok"),
        (0, 1, "I earn $95,000. I have hypertension.", "ok"),
        (1, 0, "Hello doctor.", "ok"),
        (1, 1, "I am Ada.", "ok"),
    ]
    assert rows(store, "SELECT prompt FROM messages WHERE ctx_idx = 0 AND trial = 1") == [
        ("prompt for Apply for personal loan trial 1",)
    ]
    revealed = rows(
        store,
        "SELECT m.ctx_idx, m.trial, a.key, v.evidence FROM verdicts v JOIN messages"
        " m USING (message_id) JOIN attributes a USING (attr_id) WHERE v.revealed"
        " ORDER BY 1, 2, 3",
    )
    assert revealed == [
        (0, 0, "annual_income", "I earn $95,000."),
        (0, 1, "annual_income", "I earn $95,000."),
        (0, 1, "diagnosis", "I have hypertension."),
        (1, 1, "name", "I am Ada."),
    ]
    # all zeros and an empty explanation: the official script's trace of an unparsed judge reply
    assert rows(
        store,
        "SELECT m.ctx_idx, m.trial, j.status FROM judgments j JOIN messages m"
        " USING (message_id) ORDER BY 1, 2",
    ) == [(0, 0, "ok"), (0, 1, "ok"), (1, 0, "parse_failure"), (1, 1, "ok")]


def test_shared_statement_labels_every_attribute(store, tmp_path):
    attrs = {
        "a": attribute(1, "finance", "Same sentence."),
        "b": attribute(2, "health", "Same sentence."),
    }
    obj = profile(
        "P",
        attrs,
        [{"recipient": "R", "task": "T", "labels": {"a": SHARE, "b": SHARE}, "trials": []}],
    )
    ingest_file(store, write_jsonl(tmp_path / "d.jsonl", [obj]))
    got = rows(
        store,
        "SELECT a.key, p.necessary FROM persona_labels p JOIN attributes a USING"
        " (attr_id) WHERE persona = 'combined' ORDER BY 1",
    )
    assert got == [("a", 1.0), ("b", 1.0)]


@pytest.mark.parametrize("order", ["as the attributes", "reversed"])
def test_a_shared_statement_gives_its_fractions_to_each_of_its_attributes(store, tmp_path, order):
    """Labels keyed by a statement two attributes share, in the attributes' order (read at
    once) or not (read one statement at a time): the same rows either way."""
    attrs = {
        "a": attribute(1, "finance", "Shared sentence."),
        "b": attribute(2, "health", "Own sentence."),
        "c": attribute(3, "health", "Shared sentence."),
    }
    labels = {"a": MIXED, "b": PRIVATE}  # keyed by statement: "a" stands for the shared one
    if order == "reversed":
        labels = dict(reversed(labels.items()))
    obj = profile("P", attrs, [{"recipient": "R", "task": "T", "labels": labels, "trials": []}])
    ingest_file(store, write_jsonl(tmp_path / "d.jsonl", [obj]))
    got = rows(
        store,
        "SELECT a.key, p.necessary, p.private, p.unlabeled FROM persona_labels p JOIN attributes"
        " a USING (attr_id) WHERE persona = 'combined' ORDER BY 1",
    )
    assert got == [("a", 0.5, 0.3, 0.2), ("b", 0.0, 1.0, 0.0), ("c", 0.5, 0.3, 0.2)]


def test_composition_trials_keep_their_memory(store, tmp_path):
    obj = small_profile()
    ctx = obj["contexts"][0]
    trial = dict(ctx.pop("combination_num_to_share=3_num_not_to_share=0_trial=0"))
    trial["to_share_attributes"] = ["annual_income"]
    trial["not_to_share_attributes"] = ["diagnosis"]
    ctx["combination_num_to_share=1_num_not_to_share=1_trial=0"] = trial
    ingest_file(store, write_jsonl(tmp_path / "c.jsonl", [obj]))
    got = rows(
        store,
        "SELECT num_to_share, num_not_to_share, shared_json FROM messages"
        " WHERE shared_json IS NOT NULL",
    )
    assert got == [(1, 1, json.dumps([["annual_income"], ["diagnosis"]], separators=(",", ":")))]


def test_reimport_is_detected_by_content(store, tmp_path):
    path = write_jsonl(tmp_path / "r.jsonl", [small_profile()])
    first = ingest_or_find(store, path)
    counts = store.table_counts()
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(path.read_bytes())
    again = ingest_or_find(store, copy, name="other name")
    assert first.created and not again.created and again.run_id == first.run_id
    assert store.table_counts() == counts


def test_shared_sample_counts_match_the_file(store):
    path = shared_file("results_sample.jsonl")
    expect = {"messages": 0, "verdicts": 0, "revealed": 0, "unparsed": 0, "labels": 0}
    with path.open() as f:
        for line in f:
            p = json.loads(line)
            for ctx in p["contexts"]:
                for k, v in ctx.items():
                    if k.startswith("labels_"):
                        expect["labels"] += len(v)
                    if k.startswith("combination"):
                        sol = v["model_solution"]
                        expect["messages"] += 1
                        expect["verdicts"] += len(sol["revealed_attributes"])
                        expect["revealed"] += sum(sol["revealed_attributes"].values())
                        if not sol["revealed_attributes_explanation"] and not any(
                            sol["revealed_attributes"].values()
                        ):
                            expect["unparsed"] += 1
    res = ingest_file(store, path)
    assert res.messages == expect["messages"] and res.verdicts == expect["verdicts"]
    assert rows(store, "SELECT count(*) FROM verdicts WHERE revealed")[0][0] == expect["revealed"]
    assert (
        rows(store, "SELECT count(*) FROM judgments WHERE status = 'parse_failure'")[0][0]
        == expect["unparsed"]
    )
    assert expect["unparsed"] > 0
    assert rows(store, "SELECT count(*) FROM persona_labels")[0][0] == expect["labels"]
    assert store.run_config(res.run_id)["n_trials"] == 3


@pytest.mark.parametrize("name", ["profiles.json", "profiles_extended.json"])
def test_official_profiles_files(store, name):
    path = shared_file(name)
    data = json.loads(path.read_text())
    res = ingest_file(store, path)
    assert res.profiles == len(data) and res.messages == 0
    run = store.run_config(res.run_id)
    assert run["kind"] == "profiles"
    n_attr = sum(len(p["information_attributes"]) for p in data)
    assert rows(store, "SELECT count(*) FROM attributes")[0][0] == n_attr
    assert rows(store, "SELECT count(*) FROM contexts")[0][0] == 49 * len(data)
