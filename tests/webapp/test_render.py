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
    import html.parser

    import pandas as pd

    frame = pd.DataFrame(
        {
            "key": ["a_b_c", "**x**"],
            "note": ['<img src="http://h/x.png">', None],
            "n": [1234, 2],
            "rate": [0.5, float("nan")],
            "ok": [True, False],
        }
    )
    out = render.table_html(
        frame.rename(columns={"note": "<b>note</b>"}),
        digits={"rate": 1},
        breakable=("key",),
        styles={"ok": lambda v: "color:red" if v else ""},
    )
    tags: list[str] = []
    texts: list[str] = []

    class Reader(html.parser.HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append(tag)

        def handle_data(self, data):
            texts.append(data)

    Reader().feed(out)
    # the data's <img> and <b> are text, never elements; "_" may break (<wbr>); one style
    # sheet, the table's own, ahead of it
    assert set(tags) == {"style", "div", "table", "thead", "tbody", "tr", "th", "td", "wbr"}
    assert tags.count("style") == 1 and out.startswith(render._STYLE)
    assert '<td class="right">1,234</td>' in out and '<th class="right">n</th>' in out
    assert "<b>note</b>" in texts
    # cells in order (a blank cell has no text): counts with separators, a missing rate "-"
    assert texts[texts.index("key") + 5 :] == [
        "a_", "b_", "c", '<img src="http://h/x.png">', "1,234", "0.5", "yes",
        "**x**", "2", "-", "no",
    ]  # fmt: skip
    assert out.count("color:red") == 1
    assert list(frame["key"]) == ["a_b_c", "**x**"]  # the caller's frame is unchanged
