"""What the importers refuse beyond types and ranges: NUL characters and invalid UTF-8 in text of
any format, persona fractions that do not sum to 1, a Hugging Face row given twice, a broken JSON
line (named by the file's line number only) and a file of another format read as run output.
Every error names the file, the place, the field and what was expected; nothing is written."""

import copy
import json
import re
import subprocess
import sys

import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq
import pytest

from cimem.analysis.cube_file import cube_from_official
from cimem.errors import InputError
from cimem.ingest import ingest_file
from cimem.ingest.validate import find_nul

from conftest import shared_file
from fixtures import PERSONAS, hf_rows, small_profile, write_jsonl

TRIAL0 = "combination_num_to_share=3_num_not_to_share=0_trial=0"
NO_NUL = r"expected text without NUL characters \(\\u0000\)"
SUM = r"expected fractions necessary \+ private \+ unlabeled summing to 1 \(within 0.01\)"


def refused(store, path, message, **kwargs) -> str:
    """The import's error, which starts with the file and matches ``message``; the database is
    left as it was, without a run."""
    before = store.table_counts()
    with pytest.raises(InputError, match=message) as err:
        ingest_file(store, path, **kwargs)
    assert str(err.value).startswith(f"{path}: ")
    assert store.table_counts() == before and before["runs"] == 0
    return str(err.value)


def mutated(fn) -> dict:
    obj = small_profile("Bad")
    fn(obj)
    return obj


def solution(obj) -> dict:
    return obj["contexts"][0][TRIAL0]["model_solution"]


def persistbench_doc() -> dict:
    gen = {
        "generation_index": 0,
        "memory_response": "My income is 5.",
        "judge": {"per_attribute": [{"id": "income", "revealed": True, "evidence": "income"}]},
    }
    entry = {
        "cim_metadata": {
            "name": "Ann",
            "attribute_memory_map": {"income": "My income is 5.", "hobby": "I knit."},
        },
        "cim_recipient": "landlord",
        "cim_task": "Renew lease",
        "required_attributes": ["income"],
        "forbidden_attributes": ["hobby"],
        "results": {"m1": {"generations": [gen]}},
    }
    return {"metadata": {"models": [{"name": "m1"}]}, "entries": {"e1": entry}}


def write_rows(tmp_path, rows: list[dict], kind: str):
    """Hugging Face rows as a Parquet, CSV or JSON-lines export."""
    path = tmp_path / f"rows.{kind}"
    if kind == "jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    elif kind == "csv":
        pcsv.write_csv(pa.Table.from_pylist(rows), path)
    else:
        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


# ------------------------------------------------------------------ NUL characters
OFFICIAL_NUL = {
    "in a message": (
        lambda o: solution(o).update(response_solution="Hi\x00there"),
        rf"'contexts\[0\]\.{TRIAL0}\.model_solution\.response_solution'",
    ),
    "in evidence": (
        lambda o: solution(o)["revealed_attributes_explanation"].update(annual_income="I\x00"),
        rf"'contexts\[0\]\.{TRIAL0}\.model_solution\.revealed_attributes_explanation"
        r"\.annual_income'",
    ),
    "in a memory statement": (
        lambda o: o["information_attributes"]["diagnosis"].update(memory_statement="I\x00 x."),
        r"'information_attributes\.diagnosis\.memory_statement'",
    ),
    "in the bio": (lambda o: o["bio"].update(address="1 Main\x00St"), r"'bio\.address'"),
}


@pytest.mark.parametrize("case", sorted(OFFICIAL_NUL))
def test_official_text_with_a_nul_is_refused(store, tmp_path, case):
    fn, field = OFFICIAL_NUL[case]
    path = write_jsonl(tmp_path / "bad.jsonl", [small_profile("Good"), mutated(fn)])
    message = refused(store, path, rf"bad.jsonl: line 2: field {field}: {NO_NUL}, got a NUL at")
    with pytest.raises(InputError) as again:
        cube_from_official(path)
    assert str(again.value) == message


def test_an_escaped_backslash_before_u0000_is_not_a_nul(store, tmp_path):
    text = "C:\\u0000 is a folder name"
    path = write_jsonl(
        tmp_path / "ok.jsonl", [mutated(lambda o: solution(o).update(response_solution=text))]
    )
    ingest_file(store, path)
    assert store.con.execute("SELECT count(*) FROM messages WHERE text = ?", [text]).fetchone()[0]


def test_profiles_file_with_a_nul_names_the_profile(store, tmp_path):
    profiles = []
    for name in ("Ann", "Bob"):
        p = small_profile(name)
        p["contexts"] = [{"recipient": c["recipient"], "task": c["task"]} for c in p["contexts"]]
        profiles.append(p)
    profiles[1]["contexts"][1]["task"] = "Schedule\x00 a check-up"
    path = tmp_path / "p.json"
    path.write_text(json.dumps(profiles, indent=1))
    refused(store, path, rf"p.json: profile \[1\]: field 'contexts\[1\]\.task': {NO_NUL}")


@pytest.mark.parametrize(
    ("where", "field"),
    [
        (lambda e: e.update(cim_task="Renew\x00 lease"), "cim_task"),
        (
            lambda e: e["results"]["m1"]["generations"][0].update(memory_response="x\x00"),
            r"results\.m1\.generations\[0\]\.memory_response",
        ),
    ],
)
def test_persistbench_text_with_a_nul_names_the_entry(store, tmp_path, where, field):
    doc = persistbench_doc()
    where(doc["entries"]["e1"])
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(doc))
    refused(store, path, rf"pb.json: entries\['e1'\]: field '{field}': {NO_NUL}")


@pytest.mark.parametrize("kind", ["parquet", "csv", "jsonl"])
@pytest.mark.parametrize("column", ["name", "attribute", "memory_statement", "prompt"])
def test_hf_text_with_a_nul_names_the_row(store, tmp_path, kind, column):
    rows = hf_rows()
    rows[4][column] = "My\x00" + rows[4][column]
    path = write_rows(tmp_path, rows, kind)
    refused(
        store, path, rf"rows.{kind}: row 5: field '{column}': {NO_NUL}, got a NUL at character 3"
    )


def test_a_raw_nul_byte_names_its_byte(store, tmp_path):
    path = tmp_path / "bin.jsonl"
    path.write_bytes(b'{"bio": "a\x00"}\n')
    refused(store, path, r"bin.jsonl: byte 11: expected a text \(JSON/JSONL/CSV\) or Parquet")


def test_a_nul_deep_down_is_found_without_recursion():
    value: object = "x\x00"
    for _ in range(5000):
        value = [value]
    found = find_nul({"a": "clean", "b": value})
    assert found is not None and found[0] == ("b", *[0] * 5000) and found[1] == "x\x00"
    assert find_nul({"k\x00": 1}) == (("k\x00",), "k\x00")
    assert find_nul({"a": ["b", {"c": 1}], "d": None}) is None


# ------------------------------------------------------------------ invalid UTF-8
def test_hf_jsonl_with_invalid_utf8_names_the_row(store, tmp_path):
    lines = [json.dumps(r).encode() for r in hf_rows()]
    lines[4] = lines[4].replace(b"My diagnosis.", b"My diag\xffnosis.")
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    refused(
        store,
        path,
        r"rows.jsonl: row 5: field 'memory_statement': expected UTF-8 text, got byte 0xff at"
        r" byte 8 of bytes b'My diag\\xffnosis.'",
    )


def test_hf_parquet_with_invalid_utf8_names_the_row(store, tmp_path):
    table = pa.Table.from_pylist(hf_rows())
    names = [n.encode() for n in table.column("name").to_pylist()]
    names[7] = b"B\xffb"
    raw = pa.array(names, pa.binary())
    unchecked = pa.Array.from_buffers(pa.string(), len(raw), raw.buffers())  # as a writer may
    table = table.set_column(table.schema.get_field_index("name"), "name", unchecked)
    path = tmp_path / "rows.parquet"
    pq.write_table(table, path)
    refused(store, path, r"rows.parquet: row 8: field 'name': expected UTF-8 text, got byte 0xff")


@pytest.mark.parametrize("column", ["name", "memory_statement", "prompt"])
def test_csv_with_invalid_utf8_names_the_column(store, tmp_path, column):
    rows = hf_rows()
    rows[5][column] = "MARK" + rows[5][column]
    path = write_rows(tmp_path, rows, "csv")
    data = path.read_bytes().replace(b"MARK", b"\xff", 1)
    path.write_bytes(data)
    line = data.count(b"\n", 0, data.index(b"\xff")) + 1
    refused(
        store, path, rf"rows.csv: line {line}: field '{column}': expected UTF-8 text, got byte 0xff"
    )


def test_official_line_with_invalid_utf8_names_its_byte(store, tmp_path):
    good = json.dumps(small_profile("Good")).encode()
    bad = json.dumps(small_profile("Bad")).encode().replace(b'"Bad"', b'"B\xffd"', 1)
    path = tmp_path / "bad.jsonl"
    path.write_bytes(good + b"\n" + bad + b"\n")
    at = bad.index(b"\xff") + 1
    refused(
        store,
        path,
        rf"bad.jsonl: line 2: expected one complete JSON object per line \(UTF-8\), got invalid"
        rf" UTF-8: byte 0xff at byte {at} of the line$",
    )


# ------------------------------------------------------------------ persona fractions
def labels_of(obj, persona="labels_combined", c=0) -> dict:
    """One context's fractions of the statement 'I have hypertension.', that persona's own (the
    fixture shares one object between personas)."""
    ctx = obj["contexts"][c]
    ctx[persona] = copy.deepcopy(ctx[persona])
    return ctx[persona]["I have hypertension."]


FRACTION_SUMS = {
    "above 1": ({"necessary": 0.5, "private": 0.6, "unlabeled": 0.0}, "sum 1.1"),
    "below 1": ({"necessary": 0.2, "private": 0.3, "unlabeled": 0.1}, "sum 0.6"),
    "all zero": ({"necessary": 0, "private": 0, "unlabeled": 0.0}, "sum 0 "),
    "a third lost": ({"necessary": 0.0, "private": 0.67, "unlabeled": 0.0}, "sum 0.67"),
}


@pytest.mark.parametrize("case", sorted(FRACTION_SUMS))
@pytest.mark.parametrize("persona", ["labels_combined", PERSONAS[2]])
def test_fractions_that_do_not_sum_to_1_are_refused(store, tmp_path, case, persona):
    fractions, got = FRACTION_SUMS[case]
    obj = mutated(lambda o: labels_of(o, persona, c=1).update(fractions))
    path = write_jsonl(tmp_path / "bad.jsonl", [small_profile("Good"), obj])
    field = rf"contexts\[1\]\.{persona}\['I have hypertension\.'\]"
    message = refused(store, path, rf'bad.jsonl: line 2: field "{field}": {SUM}, got {got}')
    with pytest.raises(InputError) as again:
        cube_from_official(path)
    assert str(again.value) == message


def test_fractions_within_the_tolerance_are_kept_as_written(store, tmp_path):
    near = {"necessary": 0.7, "private": 0.2, "unlabeled": 0.1}  # 0.9999999999999999
    rounded = {"necessary": 0.33, "private": 0.33, "unlabeled": 0.33}  # thirds to two decimals
    obj = small_profile("Ok")
    labels_of(obj, c=0).update(near)
    labels_of(obj, c=1).update(rounded)
    ingest_file(store, write_jsonl(tmp_path / "ok.jsonl", [obj]))
    got = store.con.execute(
        "SELECT ctx_idx, necessary, private, unlabeled FROM persona_labels l JOIN attributes a"
        " USING (attr_id) WHERE a.key = 'diagnosis' AND persona = 'combined' ORDER BY 1"
    ).fetchall()
    assert got == [(0, 0.7, 0.2, 0.1), (1, 0.33, 0.33, 0.33)]


def test_shared_sample_fractions_sum_to_1(store):
    """The tolerance is far above the reference file's own rounding (its worst is 2e-16)."""
    ingest_file(store, shared_file("results_sample.jsonl"))
    worst = store.con.execute(
        "SELECT max(abs(necessary + private + unlabeled - 1)) FROM persona_labels"
    ).fetchone()[0]
    assert worst < 1e-12


# ------------------------------------------------------------------ a row given twice
@pytest.mark.parametrize("kind", ["parquet", "csv", "jsonl"])
@pytest.mark.parametrize("label", ["the same", "another"])
def test_hf_row_given_twice_names_both_rows(store, tmp_path, kind, label):
    rows = hf_rows()
    again = dict(rows[1])
    if label == "another":
        again["label"] = 1.0
    rows.insert(9, again)
    path = write_rows(tmp_path, rows, kind)
    refused(
        store,
        path,
        rf"rows.{kind}: row 10: expected one row per profile, task and attribute \(name, prompt,"
        r" attribute\), got a repeat of row 2 \(name 'Ann', attribute 'diagnosis', task 'Apply"
        r" for personal loan'\)",
    )


def test_hf_same_attribute_in_other_tasks_and_profiles_is_no_repeat(store, tmp_path):
    res = ingest_file(store, write_rows(tmp_path, hf_rows(), "parquet"))
    assert res.profiles == 2 and store.table_counts()["hard_labels"] == len(hf_rows())


# ------------------------------------------------------------------ a broken JSON line
@pytest.mark.parametrize(
    ("tail", "got"),
    [
        (lambda good: good[:200], "unexpected control character in string at column 201"),
        (lambda good: '{"bio": ', "unexpected end of data at the end of the line"),
        (lambda good: '{"bio" 1}', "unexpected character, expected ':' after key at column 8"),
    ],
)
def test_a_broken_line_is_named_by_the_files_line_number_only(store, tmp_path, tail, got):
    good = json.dumps(small_profile("Good"))
    path = tmp_path / "bad.jsonl"
    path.write_text(f"{good}\n\n{tail(good)}\n")
    message = refused(
        store,
        path,
        rf"bad.jsonl: line 3: expected one complete JSON object per line \(UTF-8\), got {got}$",
    )
    assert re.findall(r"line \d", message) == ["line 3"]


# ------------------------------------------------------------------ another format as run output
def test_persistbench_file_read_as_run_output_says_what_it_is(tmp_path):
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(persistbench_doc(), indent=2))
    with pytest.raises(InputError) as err:
        cube_from_official(path)
    assert str(err.value) == (
        f"{path}: the file: expected official run output (JSON lines, one profile object per"
        " line), got a PersistBench JSON document; import it with `python -m cimem ingest"
        f" {path}`, which detects the format, and read its run from the database with --db"
    )
    growth = subprocess.run(
        [sys.executable, "-m", "cimem", "growth", "--results", str(path)],
        capture_output=True,
        text=True,
    )
    assert growth.returncode == 2 and growth.stderr == f"error: {err.value}\n"
    db = tmp_path / "pb.duckdb"
    done = subprocess.run(
        [sys.executable, "-m", "cimem", "ingest", str(path), "--db", str(db)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_the_shared_persistbench_file_as_run_output(store):
    path = shared_file("persistbench_llama33_jeffery_day.json")
    message = refused(store, path, r"the file: expected official run output", fmt="official")
    assert "got a PersistBench JSON document; import it with `python -m cimem ingest" in message


@pytest.mark.parametrize("kind", ["profiles", "hf"])
def test_profiles_and_rows_read_as_run_output_say_what_they_are(tmp_path, kind):
    if kind == "hf":
        path = write_rows(tmp_path, hf_rows(), "parquet")
    else:
        path = tmp_path / "profiles.json"
        path.write_text(json.dumps([small_profile("Ann")], indent=1))
    with pytest.raises(InputError, match=r"the file: expected official run output") as err:
        cube_from_official(path)
    what = "a profiles file" if kind == "profiles" else "Hugging Face rows"
    assert f"got {what} (" in str(err.value) and "--db" not in str(err.value)


def test_run_output_broken_on_its_first_line_keeps_its_own_error(store, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"bio": \n' + json.dumps(small_profile("Later")) + "\n")
    refused(store, path, r"r.jsonl: line 1: expected one complete JSON object per line")


# ------------------------------------------------------------------ every text field, the unread too
BAD_UTF8 = {
    "0xff": b"\xff",
    "a lone continuation byte": b"\x80",
    "an overlong form": b"\xc0\xaf",
    "an encoded surrogate": b"\xed\xa0\x80",
}


@pytest.mark.parametrize("bad", list(BAD_UTF8))
@pytest.mark.parametrize("column", ["memory_statement", "prompt", "adv_reveal_prompt"])
def test_hf_jsonl_refuses_invalid_utf8_in_any_text_field(store, tmp_path, bad, column):
    """Every text field of a row is UTF-8, those the import does not read included (a file whose
    text is mangled in one column is not trusted in the others)."""
    rows = [r | {"adv_reveal_prompt": "You judge. SOLUTION:\n{solution}"} for r in hf_rows()]
    lines = [json.dumps(r).encode() for r in rows]
    field = f'"{column}": "'.encode()
    at = lines[3].index(field) + len(field)
    lines[3] = lines[3][:at] + BAD_UTF8[bad] + lines[3][at:]
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    refused(store, path, rf"rows.jsonl: row 4: field '{column}': expected UTF-8 text, got byte")


def test_hf_csv_refuses_a_nul_in_a_column_it_does_not_read(store, tmp_path):
    rows = [r | {"adv_reveal_prompt": "You judge. SOLUTION:\n{solution}"} for r in hf_rows()]
    rows[2]["adv_reveal_prompt"] = "You ju\x00dge."
    path = write_rows(tmp_path, rows, "csv")
    refused(store, path, rf"rows.csv: row 3: field 'adv_reveal_prompt': {NO_NUL}")


def test_persistbench_config_method_must_be_text(store, tmp_path):
    doc = persistbench_doc() | {"config": {"method": 3}}
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(doc))
    refused(store, path, r"field 'config.method': expected a string or null, got int 3")


def test_persistbench_null_generation_index_is_refused_and_an_absent_one_is_its_position(
    store, tmp_path
):
    doc = persistbench_doc()
    doc["entries"]["e1"]["results"]["m1"]["generations"][0]["generation_index"] = None
    path = tmp_path / "pb.json"
    path.write_text(json.dumps(doc))
    refused(store, path, r"generation_index\"?: expected a trial index between 0 and 63, got null")
    del doc["entries"]["e1"]["results"]["m1"]["generations"][0]["generation_index"]
    path.write_text(json.dumps(doc))
    assert ingest_file(store, path).messages == 1
