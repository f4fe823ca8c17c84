"""The one validation layer: gzip for every format, special files, strict CSV, ranges and types,
the shared official grammar, and a failed import that uses up no run id."""

import gzip
import json
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from cimem.analysis.cube_file import cube_from_official
from cimem.errors import CimemError, InputError
from cimem.ingest import ingest_file
from cimem.ingest.official_profile import is_parse_failure, parse_trial_key
from cimem.ingest.validate import MAX_TRIALS

from fixtures import hf_rows, small_profile, write_jsonl

TRIAL0 = "combination_num_to_share=3_num_not_to_share=0_trial=0"


def persistbench_doc(model="m1"):
    return {
        "metadata": {"models": [{"name": model}], "judge_model": "j"},
        "entries": {
            "e1": {
                "cim_metadata": {
                    "name": "Ann",
                    "attribute_memory_map": {"income": "My income is 5.", "hobby": "I knit."},
                },
                "cim_recipient": "landlord",
                "cim_task": "Renew lease",
                "required_attributes": ["income"],
                "forbidden_attributes": ["hobby"],
                "results": {
                    model: {
                        "generations": [
                            {
                                "generation_index": 0,
                                "memory_response": "My income is 5.",
                                "judge": {
                                    "per_attribute": [
                                        {"id": "income", "revealed": True, "evidence": "income"}
                                    ]
                                },
                            }
                        ]
                    }
                },
            }
        },
    }


def write_format(tmp_path, fmt, gz=False):
    """A valid file of each format (gzipped when asked)."""
    if fmt == "official":
        path, data = tmp_path / "r.jsonl", json.dumps(small_profile("Ann")).encode() + b"\n"
    elif fmt == "profiles":
        obj = small_profile("Ann")
        obj["contexts"] = [
            {"recipient": c["recipient"], "task": c["task"]} for c in obj["contexts"]
        ]
        path, data = tmp_path / "p.json", json.dumps([obj]).encode()
    elif fmt == "persistbench":
        path, data = tmp_path / "pb.json", json.dumps(persistbench_doc()).encode()
    elif fmt == "csv":
        import pyarrow.csv as pcsv

        sink = pa.BufferOutputStream()
        pcsv.write_csv(pa.Table.from_pylist(hf_rows()), sink)
        path, data = tmp_path / "rows.csv", sink.getvalue().to_pybytes()
    else:
        sink = pa.BufferOutputStream()
        pq.write_table(pa.Table.from_pylist(hf_rows()), sink)
        path, data = tmp_path / "rows.parquet", sink.getvalue().to_pybytes()
    if gz:
        path, data = path.with_name(path.name + ".gz"), gzip.compress(data)
    path.write_bytes(data)
    return path


FORMATS = ["official", "profiles", "persistbench", "csv", "parquet"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_gzip_reads_like_plain_for_every_format(tmp_path, fmt):
    from cimem.store import Store

    counts = []
    for gz in (False, True):
        with Store.open(tmp_path / f"{gz}.duckdb") as store:
            res = ingest_file(store, write_format(tmp_path, fmt, gz))
            counts.append((res.source_format, res.profiles, res.messages, res.verdicts))
            tables = store.table_counts()
        counts[-1] += (tables["attributes"], tables["contexts"])
    assert counts[0] == counts[1]
    assert counts[0][1] >= 1


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("damage", ["truncated", "corrupt"])
def test_damaged_gzip_is_a_clear_error(store, tmp_path, fmt, damage):
    path = write_format(tmp_path, fmt, gz=True)
    data = path.read_bytes()
    if damage == "truncated":
        data = data[: len(data) // 2]
    else:
        mid = len(data) // 2
        data = data[:mid] + bytes(b ^ 0xFF for b in data[mid : mid + 16]) + data[mid + 16 :]
    path.write_bytes(data)
    with pytest.raises(InputError, match=r"expected a complete, uncorrupted gzip stream") as err:
        ingest_file(store, path)
    assert str(err.value).startswith(str(path))
    assert store.table_counts()["runs"] == 0


def test_special_files_say_what_they_are(store, tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(tmp_path / "loop.jsonl")
    cases = {
        tmp_path: "a folder, not a regular file",
        fifo: r"a FIFO \(named pipe\), not a regular file",
        loop: "a symbolic link loop",
        tmp_path / "absent.jsonl": "no such file",
    }
    if os.path.exists("/dev/zero"):
        cases["/dev/zero"] = "a character device, not a regular file"
    for path, message in cases.items():
        with pytest.raises(CimemError, match=message):
            ingest_file(store, path)
        with pytest.raises(CimemError, match=message):
            cube_from_official(path)
    assert store.table_counts()["runs"] == 0


def test_csv_cut_inside_a_quoted_field_names_the_line(store, tmp_path):
    path = write_format(tmp_path, "csv")
    text = path.read_text()
    path.write_text(text[: text.index('"# User', len(text) // 2) + 30])  # inside a quoted prompt
    with pytest.raises(InputError, match=r"rows.csv: line \d+: expected well-formed CSV"):
        ingest_file(store, path)
    assert store.table_counts()["runs"] == 0


def test_csv_with_invalid_utf8_names_the_line(store, tmp_path):
    path = write_format(tmp_path, "csv")
    data = path.read_bytes()
    at = data.index(b"Ann", len(data) // 3)
    path.write_bytes(data[:at] + b"A\xffn" + data[at + 3 :])
    line = data.count(b"\n", 0, at) + 1
    with pytest.raises(
        InputError,
        match=rf"rows.csv: line {line}: field 'name': expected UTF-8 text, got byte 0xff",
    ):
        ingest_file(store, path)
    assert store.table_counts()["runs"] == 0


def mutated(fn):
    obj = small_profile("Bad")
    fn(obj)
    return obj


def trial(obj, c=0, key=TRIAL0):
    return obj["contexts"][c][key]


def labels(obj):
    return obj["contexts"][0]["labels_combined"]["I have hypertension."]


OFFICIAL_BAD = {
    "fraction above 1": (
        lambda o: labels(o).update(private=5.0),
        r"labels_[^\[]*\[.I have hypertension..\].private.: expected a number between 0 and 1,"
        r" got float 5.0",
    ),
    "negative fraction": (lambda o: labels(o).update(necessary=-3.0), r"got float -3.0"),
    "fraction as a string": (lambda o: labels(o).update(private="0.5"), r"got str '0.5'"),
    "fraction as a boolean": (lambda o: labels(o).update(private=True), r"got bool True"),
    "trial 64": (
        lambda o: o["contexts"][0].update(
            {"combination_num_to_share=3_num_not_to_share=0_trial=64": trial(o)}
        ),
        r"expected a trial key .* T \(0 to 63\)",
    ),
    "huge count": (
        lambda o: o["contexts"][0].update(
            {"combination_num_to_share=2147483648_num_not_to_share=0_trial=1": trial(o)}
        ),
        r"at most 2147483647",
    ),
    "reveal value a list": (
        lambda o: trial(o)["model_solution"]["revealed_attributes"].update(diagnosis=[1]),
        r"revealed_attributes': expected values 0 or 1, got list \[1\]",
    ),
    "reveal value 1.0": (
        lambda o: trial(o)["model_solution"]["revealed_attributes"].update(diagnosis=1.0),
        r"expected values 0 or 1, got float 1.0",
    ),
    "empty name": (lambda o: o["bio"].update(name="  "), r"'bio.name': expected a non-empty"),
    "name a number": (lambda o: o["bio"].update(name=7), r"'bio.name': expected a non-empty"),
    "sex an object": (lambda o: o["bio"].update(sex={"a": 1}), r"'bio.sex': expected a string"),
    "empty attributes": (
        lambda o: o.update(information_attributes={}),
        r"'information_attributes': expected a non-empty JSON object",
    ),
    "deeply nested value": (
        lambda o: o["information_attributes"]["diagnosis"].update(value=nest(300)),
        r"information_attributes.diagnosis.value': expected a JSON value nested at most",
    ),
    "empty recipient": (
        lambda o: o["contexts"][0].update(recipient=""),
        r"'contexts\[0\].recipient': expected a non-empty string",
    ),
    "to_share of unknown keys": (
        lambda o: trial(o).update(to_share_attributes=["shoe_size"]),
        r"to_share_attributes': expected keys of information_attributes",
    ),
    "to_share holding a number": (
        lambda o: trial(o).update(to_share_attributes=[7]),
        r"to_share_attributes': expected a list of attribute keys or null, got list",
    ),
    "to_share holding a list": (
        lambda o: trial(o).update(to_share_attributes=[["diagnosis"]]),
        r"to_share_attributes': expected a list of attribute keys or null, got list",
    ),
    "prompt a number": (
        lambda o: trial(o).update(prompt=3),
        r"prompt': expected a string or null, got int 3",
    ),
    "model_solution a string": (
        lambda o: trial(o).update(model_solution="hello"),
        r"model_solution': expected a JSON object or null",
    ),
}


def nest(depth):
    v = 1
    for _ in range(depth):
        v = [v]
    return v


@pytest.mark.parametrize("case", sorted(OFFICIAL_BAD))
def test_official_values_out_of_type_or_range(store, tmp_path, case):
    """The importer and the file-to-cube path share one reader: the same error from both."""
    fn, message = OFFICIAL_BAD[case]
    path = write_jsonl(tmp_path / "bad.jsonl", [small_profile("Good"), mutated(fn)])
    with pytest.raises(InputError, match=message) as err:
        ingest_file(store, path)
    assert str(err.value).startswith(f"{path}: line 2: ")
    with pytest.raises(InputError) as again:
        cube_from_official(path)
    assert str(again.value) == str(err.value)
    assert store.table_counts()["runs"] == 0


def test_trial_key_grammar():
    assert parse_trial_key("combination_num_to_share=5_num_not_to_share=2_trial=3") == (5, 2, 3)
    assert (
        parse_trial_key(f"combination_num_to_share=5_num_not_to_share=0_trial={MAX_TRIALS}") is None
    )
    assert parse_trial_key("combination_num_to_share=x_num_not_to_share=0_trial=1") is None
    assert parse_trial_key("combination_num_to_share=1_num_not_to_share=0_trial=1 ") is None
    assert is_parse_failure({}, [0, 0]) and is_parse_failure(None, [])
    assert not is_parse_failure({}, [0, 1]) and not is_parse_failure({"a": "x"}, [0, 0])


def test_run_output_list_is_not_taken_as_profiles(store, tmp_path):
    path = tmp_path / "list.json"
    path.write_text(json.dumps([small_profile("Ann")]))
    with pytest.raises(InputError, match=r"profile \[0\]: field 'contexts\[0\].labels_gpt"):
        ingest_file(store, path)


PB_BAD = {
    "metadata a string": (lambda d: d.update(metadata="x"), r"'metadata': expected a JSON object"),
    "results a list": (
        lambda d: d["entries"]["e1"].update(results=[]),
        r"'results': expected a JSON object or null",
    ),
    "generation_index -1": (
        lambda d: gen(d).update(generation_index=-1),
        r"generation_index.: expected a trial index between 0 and 63",
    ),
    "generation_index 1.5": (lambda d: gen(d).update(generation_index=1.5), r"got float 1.5"),
    "evidence an int": (
        lambda d: gen(d)["judge"]["per_attribute"][0].update(evidence=3),
        r"evidence.: expected a string or null, got int 3",
    ),
    "model name null": (
        lambda d: d["metadata"].update(models=[{"name": None}]),
        r"'metadata.models\[0\].name': expected a non-empty string",
    ),
    "no entries": (lambda d: d.update(entries={}), r"'entries': expected a non-empty object"),
    "memory map value null": (
        lambda d: d["entries"]["e1"]["cim_metadata"]["attribute_memory_map"].update(hobby=None),
        r"attribute_memory_map.hobby': expected a non-empty string, got null",
    ),
    "required key unknown": (
        lambda d: d["entries"]["e1"].update(required_attributes=["shoe_size"]),
        r"'required_attributes': expected keys of cim_metadata.attribute_memory_map, got str",
    ),
}


def gen(doc):
    return doc["entries"]["e1"]["results"]["m1"]["generations"][0]


@pytest.mark.parametrize("case", sorted(PB_BAD))
def test_persistbench_fields(store, tmp_path, case):
    fn, message = PB_BAD[case]
    doc = persistbench_doc()
    fn(doc)
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match=message) as err:
        ingest_file(store, path, fmt="persistbench")
    assert str(err.value).startswith(str(path))
    assert store.table_counts()["runs"] == 0


def test_hf_column_of_the_wrong_type(store, tmp_path):
    rows = hf_rows()
    for i, r in enumerate(rows):
        r["prompt"] = i
    path = tmp_path / "rows.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    with pytest.raises(InputError, match=r"field 'prompt': expected a column of a non-empty"):
        ingest_file(store, path)


def test_a_failed_import_uses_up_no_run_id(store, tmp_path):
    good = write_jsonl(tmp_path / "a.jsonl", [small_profile("A")])
    assert ingest_file(store, good).run_id == 1
    bad = write_jsonl(tmp_path / "b.jsonl", [mutated(lambda o: labels(o).update(private=2))])
    for _ in range(3):
        with pytest.raises(InputError):
            ingest_file(store, bad)
    assert ingest_file(store, write_jsonl(tmp_path / "c.jsonl", [small_profile("C")])).run_id == 2
    store.delete_run(2)
    assert ingest_file(store, write_jsonl(tmp_path / "d.jsonl", [small_profile("D")])).run_id == 3


def test_metrics_say_no_labels(tmp_path):
    obj = small_profile("Ann")
    for ctx in obj["contexts"]:
        for k in [k for k in ctx if k.startswith("labels_")]:
            del ctx[k]
    path = write_jsonl(tmp_path / "nolabels.jsonl", [obj])
    out = subprocess.run(
        [sys.executable, "-m", "cimem", "metrics", "--results", str(path)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "Completeness                    no labels" in out.stdout
    assert "n/a" not in out.stdout
    assert "--labels-from" in out.stdout
