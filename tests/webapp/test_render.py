"""Static tables: every text escaped, numbers formatted (messages: test_message_view.py)."""

from cimem.publish import html_table
from cimem.publish.html_table import table_html


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
    out = table_html(
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
    assert tags.count("style") == 1 and out.startswith(html_table._STYLE)
    assert '<td class="right">1,234</td>' in out and '<th class="right">n</th>' in out
    assert "<b>note</b>" in texts
    # cells in order (a blank cell has no text): counts with separators, a missing rate "-"
    assert texts[texts.index("key") + 5 :] == [
        "a_", "b_", "c", '<img src="http://h/x.png">', "1,234", "0.5", "yes",
        "**x**", "2", "-", "no",
    ]  # fmt: skip
    assert out.count("color:red") == 1
    assert list(frame["key"]) == ["a_b_c", "**x**"]  # the caller's frame is unchanged
