"""Bad input fails with a message naming file, place, field and expectation, and changes nothing."""

import json
import subprocess
import sys

import pytest

from cimem.errors import InputError
from cimem.ingest import ingest_file

from fixtures import small_profile, write_jsonl


def good_line() -> str:
    return json.dumps(small_profile("Good"))


def trial(obj):
    return obj["contexts"][0]["combination_num_to_share=3_num_not_to_share=0_trial=0"]


def mutate(fn):
    obj = small_profile("Bad")
    fn(obj)
    return json.dumps(obj)


CASES = {
    "truncated line": (
        lambda: good_line() + "\n" + good_line()[:200] + "\n",
        r"line 2: expected one complete JSON object per line",
    ),
    "wrong type of contexts": (
        lambda: mutate(lambda o: o.update(contexts={"a": 1})) + "\n",
        r"line 1: field 'contexts': expected a JSON list, got dict",
    ),
    "wrong type of revealed value": (
        lambda: (
            mutate(
                lambda o: trial(o)["model_solution"]["revealed_attributes"].update(
                    annual_income="yes"
                )
            )
            + "\n"
        ),
        r"line 1: field 'contexts\[0\].combination_num_to_share=3_num_not_to_share=0_trial=0"
        r".model_solution.revealed_attributes': expected values 0 or 1, got str 'yes'",
    ),
    "unknown attribute": (
        lambda: (
            mutate(lambda o: trial(o)["model_solution"]["revealed_attributes"].update(shoe_size=1))
            + "\n"
        ),
        r"revealed_attributes.shoe_size': expected a key of information_attributes \(verdict for"
        r" an unknown attribute\)",
    ),
    "bad trial key": (
        lambda: (
            mutate(lambda o: o["contexts"][0].update({"combination_num_to_share=all_trial=x": {}}))
            + "\n"
        ),
        r"field 'contexts\[0\].combination_num_to_share=all_trial=x': expected a trial key",
    ),
    "label fraction not a number": (
        lambda: (
            mutate(
                lambda o: o["contexts"][1]["labels_combined"]["I have hypertension."].update(
                    private="high"
                )
            )
            + "\n"
        ),
        r"contexts\[1\].labels_[^\[]*\['I have hypertension.'\].private.: expected a number between 0 and 1",
    ),
    "label for unknown statement": (
        lambda: (
            mutate(
                lambda o: o["contexts"][0]["labels_combined"].update(
                    {"I like jazz.": {"necessary": 1, "private": 0, "unlabeled": 0}}
                )
            )
            + "\n"
        ),
        r"contexts\[0\].labels_[^\[]*\['I like jazz.'\].: expected the memory_statement of an attribute",
    ),
    "missing bio": (
        lambda: mutate(lambda o: o.pop("bio")) + "\n",
        r"line 1: field 'bio': expected a JSON object, got missing",
    ),
    "not an object": (lambda: "[1, 2, 3]\n", r"expected a JSON object with bio"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_malformed_official_file(store, tmp_path, case):
    make, message = CASES[case]
    ingest_file(store, write_jsonl(tmp_path / "ok.jsonl", [small_profile("Kept")]))
    before = store.table_counts()
    bad = tmp_path / "bad.jsonl"
    bad.write_text(make())
    with pytest.raises(InputError, match=message) as err:
        ingest_file(store, bad, fmt="official")
    assert str(bad) in str(err.value)
    assert store.table_counts() == before


def test_empty_file(store, tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    with pytest.raises(InputError, match=r"empty.jsonl: line 1: expected a non-empty"):
        ingest_file(store, path)
    assert store.table_counts()["runs"] == 0


def test_binary_garbage(store, tmp_path):
    path = tmp_path / "garbage.jsonl"
    path.write_bytes(bytes(range(256)) * 10)
    with pytest.raises(InputError, match=r"garbage.jsonl: byte 1: expected a text"):
        ingest_file(store, path)
    assert store.table_counts()["runs"] == 0


def test_cli_reports_bad_input_without_traceback(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text(good_line() + '\n{"bio": \n')
    db = tmp_path / "cli.duckdb"
    result = subprocess.run(
        [sys.executable, "-m", "cimem", "ingest", str(bad), "--db", str(db)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2
    assert result.stderr.startswith(f"error: {bad}: line 2: expected one complete JSON object")
    assert "Traceback" not in result.stderr
    runs = subprocess.run(
        [sys.executable, "-m", "cimem", "runs", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
    )
    assert json.loads(runs.stdout) == []
