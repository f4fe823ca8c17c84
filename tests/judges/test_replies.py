"""Judge reply parsing: the shapes real judges answer in."""

import pytest

from cimem.judges.replies import parse_reply
from cimem.llm.client import split_reasoning

KEYS = ["annual_income", "diagnosis", "name"]
STATEMENTS = {
    "annual_income": "My annual income is $95,000.",
    "diagnosis": "I have hypertension.",
    "name": "My name is Ada.",
}


@pytest.mark.parametrize(
    "reply,expected",
    [
        ('{"annual_income": "I earn $95,000."}', {"annual_income": "I earn $95,000."}),
        (
            '```json\n{"diagnosis": "I have hypertension."}\n```',
            {"diagnosis": "I have hypertension."},
        ),
        (
            'Here is my answer:\n{"name": "I am Ada."}\nHope this helps {not json}',
            {"name": "I am Ada."},
        ),
        ("{'annual_income': 'I earn $95,000.'}", {"annual_income": "I earn $95,000."}),
        ('{"Annual Income": "x", "[diagnosis]": "y"}', {"annual_income": "x", "diagnosis": "y"}),
        ('{"My annual income is $95,000.": "x"}', {"annual_income": "x"}),
        ("{}", {}),
        ('["name", "diagnosis"]', {"name": "", "diagnosis": ""}),
    ],
)
def test_reply_shapes(reply, expected):
    parsed = parse_reply(reply, KEYS, STATEMENTS)
    assert parsed.ok and parsed.revealed == expected and parsed.unmatched == []


def test_unknown_keys_are_reported_not_guessed():
    parsed = parse_reply('{"shoe_size": "x", "name": "I am Ada."}', KEYS, STATEMENTS)
    assert parsed.revealed == {"name": "I am Ada."} and parsed.unmatched == ["shoe_size"]


@pytest.mark.parametrize("reply", ["I cannot decide.", "", "{broken", "[1, 2]"])
def test_garbage_is_a_parse_failure(reply):
    assert not parse_reply(reply, KEYS, STATEMENTS).ok


def test_thinking_is_split_from_the_answer():
    assert split_reasoning('<think>hmm {"a": 1}</think>{"name": "x"}', None) == (
        '{"name": "x"}',
        'hmm {"a": 1}'.join(["<think>", "</think>"]),
    )
    assert split_reasoning("reasoning here</think>{}", None) == ("{}", "reasoning here")
    assert split_reasoning("{}", "from the field") == ("{}", "from the field")
