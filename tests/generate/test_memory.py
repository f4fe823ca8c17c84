"""MEM formats: the official layout (as eval.py writes it), bullets and JSON, and the composition
subset."""

import json

import pytest

from cimem.generate.memory import profile_memory, render
from cimem.llm.prompts import memory_lines, profile_bio

BIO = {"name": "Ada Lovelace", "sex": "female", "address": "12 St James's Square", "age": 36}
M = profile_memory(
    "Ada Lovelace",
    BIO,
    [
        ("name", "Ada Lovelace", "My name is Ada."),
        ("sex", "female", "I am a woman."),
        ("annual_income", 95000, "My annual income is $95,000."),
        ("age", 36, "I am 36."),
        ("diagnosis", "hypertension", "I have hypertension."),
    ],
)


def test_official_layout_keeps_the_profile_order_with_bio_lines_for_bio_keys():
    # eval.py: the first line of each key, in information_attributes order; the bio's
    # third-person line wins over the statement for name, age, sex and address
    assert render(M).splitlines() == [
        "Ada Lovelace is the person's name.",
        "The person's sex is female.",
        "My annual income is $95,000.",
        "The person is 36 years old.",
        "I have hypertension.",
    ]


def test_memory_lines_fall_back_to_key_and_value():
    lines = memory_lines(
        {"name": "Ann", "height": 170},
        [("height", 170, "I am tall."), ("pets", ["cat"], "  "), ("general_name", "Ann", " Ann. ")],
    )
    assert lines == ["height: 170", "pets: ['cat']", "Ann."]


def test_bio_comes_from_the_stored_json_or_the_fields():
    assert profile_bio("Ann", "F", None, "40", '{"name": "Ann", "age": 40}') == {
        "name": "Ann",
        "age": 40,
    }
    assert profile_bio("Ann", "F", None, "40", None) == {"name": "Ann", "sex": "F", "age": "40"}


def test_bullets_and_json_hold_the_same_memories():
    bullets = render(M, "bullets").splitlines()
    assert all(line.startswith("- ") for line in bullets)
    assert [b[2:] for b in bullets] == render(M).splitlines()
    obj = json.loads(render(M, "json"))
    assert obj["annual_income"] == "My annual income is $95,000."
    assert list(obj) == ["name", "sex", "annual_income", "age", "diagnosis"]


def test_keep_limits_the_memory_and_unknown_formats_fail():
    assert (
        render(M, keep={"diagnosis", "age"}) == "The person is 36 years old.\nI have hypertension."
    )
    with pytest.raises(ValueError, match="unknown memory format"):
        render(M, "yaml")
