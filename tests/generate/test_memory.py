"""MEM formats: the official layout, bullets and JSON, and the composition subset."""

import json

import pytest

from cimem.generate.memory import Memory, render

M = Memory(
    "Ada Lovelace",
    "female",
    "12 St James's Square",
    "36",
    [
        ("name", "My name is Ada."),
        ("annual_income", "My annual income is $95,000."),
        ("diagnosis", "I have hypertension."),
    ],
)


def test_official_layout_puts_bio_first_in_the_third_person():
    # the order of the benchmark's description: name, age, sex, address
    assert render(M).splitlines() == [
        "Ada Lovelace is the person's name.",
        "The person is 36 years old.",
        "The person's sex is female.",
        "The person's address is 12 St James's Square.",
        "My annual income is $95,000.",
        "I have hypertension.",
    ]


def test_bullets_and_json_hold_the_same_memories():
    bullets = render(M, "bullets").splitlines()
    assert all(line.startswith("- ") for line in bullets)
    assert [b[2:] for b in bullets] == render(M).splitlines()
    obj = json.loads(render(M, "json"))
    assert obj["annual_income"] == "My annual income is $95,000."
    assert list(obj)[:4] == ["name", "age", "sex", "address"]


def test_keep_limits_the_memory_and_unknown_formats_fail():
    assert render(M, keep={"diagnosis"}) == "I have hypertension."
    with pytest.raises(ValueError, match="unknown memory format"):
        render(M, "yaml")
