"""Highlighted messages: evidence coloured by what it reveals, the rest escaped."""

from cimem.analysis.audit import AMBIGUOUS, NEEDED_INCLUDED, PRIVATE_LEAKED, Evidence
from webapp import render
from webapp.render import highlighted

MESSAGE = "Hi. I am 58 and earn $95,000. My blood pressure is high. See [x](http://h)."


def test_each_kind_has_its_colour_and_the_rest_is_escaped():
    out = highlighted(
        MESSAGE,
        [
            Evidence("I am 58", "age", NEEDED_INCLUDED),
            Evidence("my blood pressure is high", "diagnosis", PRIVATE_LEAKED),
            Evidence("earn $95,000", "income", AMBIGUOUS),
            Evidence("not in the message", "x", PRIVATE_LEAKED),
        ],
    )
    assert ":green-background[I am 58]" in out
    assert ":red-background[My blood pressure is high]" in out  # found whatever the case
    assert ":gray-background[earn \\$95,000]" in out
    assert "not in the message" not in out
    assert "\\[x\\]" in out and "http://h" not in out  # a link in the message stays text
    assert out.count("-background[") == 3


def test_a_sentence_that_is_evidence_twice_takes_the_most_serious_colour():
    both = [Evidence("I am 58", "age", NEEDED_INCLUDED), Evidence("I am 58", "dob", PRIVATE_LEAKED)]
    assert ":red-background[I am 58]" in highlighted(MESSAGE, both)
    assert ":red-background[I am 58]" in highlighted(MESSAGE, both[::-1])


def test_overlapping_evidence_is_highlighted_once_and_evidence_cannot_inject_markdown():
    out = highlighted(
        MESSAGE,
        [
            Evidence("I am 58 and earn", "age", NEEDED_INCLUDED),
            Evidence("58", "age2", PRIVATE_LEAKED),
            Evidence("](http://evil)", "x", PRIVATE_LEAKED),
        ],
    )
    assert out.count("-background[") == 1 and ":green-background[I am 58 and earn]" in out
    assert "http://evil" not in out
    assert highlighted("", []) == "" and highlighted("a*b", []) == "a\\*b"


def test_a_static_table_escapes_every_text_cell_and_header_and_breaks_long_keys():
    import pandas as pd

    frame = pd.DataFrame(
        {
            "key": ["a_b_c", "**x**"],
            "note": ["[l](http://h)", None],
            "n": [1, 2],
            "ok": [True, False],
        }
    )
    out = render.table_safe(frame.rename(columns={"note": "<b>note</b>"}), breakable=("key",))
    assert list(out.columns) == ["key", "\\<b\\>note\\</b\\>", "n", "ok"]
    assert list(out["key"]) == ["a\\_\u200bb\\_\u200bc", "\\*\\*x\\*\\*"]
    assert list(out["\\<b\\>note\\</b\\>"]) == [render.escape_md("[l](http://h)"), ""]
    assert list(out["n"]) == [1, 2] and list(out["ok"]) == [True, False]  # numbers untouched
    assert list(frame["key"]) == ["a_b_c", "**x**"]  # a copy: the caller's frame is unchanged
