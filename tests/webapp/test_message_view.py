"""A model's message as drawn: HTML whose text is the message exactly (nothing inserted, nothing a
link), the judge's evidence marked by kind with a second cue besides colour, long messages drawn
in part until asked, on Audit, Leaks and the side by side alike."""

from __future__ import annotations

import html.parser
import re
from pathlib import Path

import duckdb
import pytest
from apptest import PAGES, no_exception, open_page
from streamlit.string_util import clean_text

from cimem.analysis.audit import (
    AMBIGUOUS,
    NEEDED_INCLUDED,
    PRIVATE_LEAKED,
    Evidence,
    message_audit,
)
from cimem.analysis.options import MetricOptions
from cimem.store import Store
from webapp import message_view
from webapp.message_view import LIMIT, cut_at, legend_html, message_html

MESSAGE = "Hi. I am 58 and earn $95,000. My blood pressure is high. See [x](http://h)."
# what Streamlit's markdown would have changed, linked or run
TRICKY = (
    "\n  Dear Dr. <b>Ng</b>,\n\n"
    "Mail me at ana@example.org or see https://example.org/a?b=1&c=2 and www.example.com.\n"
    "   \n"  # a line of spaces
    "\t**bold** _it_ `code` # not a heading\n> not a quote\n- not a list\r\n"
    "![img](http://h/x.png) [link](http://h) <img src=x onerror=alert(1)>"
    "<script>alert('x')</script> &amp; &lt; \\*escaped\\* $x$ :red[no colour] "
    "I am 58 and live at 1 Main St.\n  "
)


class Reader(html.parser.HTMLParser):
    """What a reader sees and copies: the text outside the style sheet, entities unescaped, and
    every element with its classes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.text: list[str] = []
        self.tags: list[tuple[str, str]] = []
        self.marked: list[tuple[str, str]] = []  # (class, text) of each mark
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs).get("class") or ""))
        self._in.append(tag)
        if tag == "mark":
            self.marked.append((dict(attrs).get("class") or "", ""))

    def handle_endtag(self, tag: str) -> None:
        self._in.pop()

    def handle_data(self, data: str) -> None:
        if "style" in self._in:
            return
        self.text.append(data)
        if "mark" in self._in:
            cls, said = self.marked[-1]
            self.marked[-1] = (cls, said + data)


def read(body: str) -> Reader:
    """``body`` as the browser gets it from ``st.html`` (which dedents and strips it), parsed."""
    reader = Reader()
    reader.feed(clean_text(body))
    reader.close()
    return reader


def test_the_drawn_text_is_the_message_exactly_and_no_element_comes_from_data():
    evidence = [
        Evidence("I am 58", "age", PRIVATE_LEAKED),
        Evidence("https://example.org/a?b=1&c=2", "site", NEEDED_INCLUDED),
        Evidence("<script>alert('x')</script>", "x", AMBIGUOUS),
        Evidence("</mark><script>alert(2)</script>", "y", PRIVATE_LEAKED),  # not in it
    ]
    for text in (TRICKY, MESSAGE, "", " ", "\n", "a\r\nb"):
        for found in ([], evidence):
            out = read(message_html(text, found))
            assert "".join(out.text) == text
            assert {t for t, _ in out.tags} <= {"style", "div", "mark"}
            assert "\u2060" not in "".join(out.text)
    body = message_html(TRICKY, evidence)
    for tag in ("<a", "<img", "<script", "<b>"):
        assert tag not in body.lower()
    assert read(body).marked == [
        ("cimem-ev included", "https://example.org/a?b=1&c=2"),
        ("cimem-ev ambiguous", "<script>alert('x')</script>"),
        ("cimem-ev leaked", "I am 58"),
    ]


def test_each_kind_has_its_mark_and_a_sentence_found_whatever_its_case():
    out = read(
        message_html(
            MESSAGE,
            [
                Evidence("I am 58", "age", NEEDED_INCLUDED),
                Evidence("my blood pressure is high", "diagnosis", PRIVATE_LEAKED),
                Evidence("earn $95,000", "income", AMBIGUOUS),
                Evidence("not in the message", "x", PRIVATE_LEAKED),
            ],
        )
    )
    assert out.marked == [
        ("cimem-ev included", "I am 58"),
        ("cimem-ev ambiguous", "earn $95,000"),
        ("cimem-ev leaked", "My blood pressure is high"),
    ]
    # a letter whose lower case is longer (İ -> i̇) before the evidence moves no mark
    text = "İİİ. I am 58."
    assert read(message_html(text, [Evidence("i am 58", "age", PRIVATE_LEAKED)])).marked == [
        ("cimem-ev leaked", "I am 58")
    ]


def test_a_sentence_that_is_evidence_twice_takes_the_most_serious_kind():
    both = [Evidence("I am 58", "age", NEEDED_INCLUDED), Evidence("I am 58", "dob", PRIVATE_LEAKED)]
    for found in (both, both[::-1]):
        assert read(message_html(MESSAGE, found)).marked == [("cimem-ev leaked", "I am 58")]


def test_overlapping_evidence_is_marked_once_the_chosen_attributes_first():
    found = [
        Evidence("I am 58 and earn", "age", NEEDED_INCLUDED),
        Evidence("58", "age2", PRIVATE_LEAKED),
    ]
    assert read(message_html(MESSAGE, found)).marked == [
        ("cimem-ev included", "I am 58 and earn")  # the longest
    ]
    assert read(message_html(MESSAGE, found, chosen="age2")).marked == [
        ("cimem-ev leaked chosen", "58")  # the chosen attribute's, outlined
    ]
    # a sentence that is also another attribute's evidence is outlined when either is chosen
    shared = [*found[:1], Evidence("I am 58 and earn", "income", PRIVATE_LEAKED)]
    assert read(message_html(MESSAGE, shared, chosen="age")).marked == [
        ("cimem-ev leaked chosen", "I am 58 and earn")
    ]


def test_the_marks_are_colour_blind_safe_with_a_second_cue_and_the_legend_uses_them():
    assert message_view.EVIDENCE_COLOURS == {
        PRIVATE_LEAKED: "#D55E00",  # Okabe-Ito vermillion
        NEEDED_INCLUDED: "#0072B2",  # Okabe-Ito blue
        AMBIGUOUS: "#999999",
    }
    rules = dict(re.findall(r"mark\.cimem-ev\.(\w+)\{([^}]*)\}", message_view.STYLE))
    assert "text-decoration-style:solid" in rules["leaked"]
    assert "text-decoration-style:dotted" in rules["included"]
    assert "text-decoration" not in rules["ambiguous"]
    assert "rgba(213,94,0," in rules["leaked"] and "rgba(0,114,178," in rules["included"]
    assert "outline" in rules["chosen"]
    assert "red" not in message_view.STYLE and "green" not in message_view.STYLE
    plain = read(legend_html())
    assert [c for c, _ in plain.marked] == [
        "cimem-ev leaked",
        "cimem-ev included",
        "cimem-ev ambiguous",
    ]
    chosen = read(legend_html(chosen=True, note="<b>Only here</b>: x"))
    assert [c for c, _ in chosen.marked][-1] == "cimem-ev chosen"
    assert "".join(chosen.text).endswith(" <b>Only here</b>: x")  # a note is text
    assert ("b", "") not in chosen.tags


def reading(db: str):
    """The database as the app in this process reads it (DuckDB lets a process open a file once)."""
    from webapp import connection

    return connection.shared(db).reading()


def message_text(db: str, message_id: int) -> str:
    with reading(db) as store:
        detail = store.message_detail(message_id)
    assert detail is not None
    return detail.text or ""


def test_an_ordinary_message_is_whole_and_a_long_one_cut_at_a_boundary(demo_db):
    with reading(demo_db) as store:
        longest = max(len(m.text or "") for m in store.messages_of(1, 1))
    assert 500 < longest and cut_at("x" * (LIMIT // 2)) == LIMIT // 2
    assert LIMIT >= 10_000  # a message of a few KB is never cut
    text = ("A sentence of the message. " * 9 + "\n\n") * 2000
    cut = cut_at(text)
    assert LIMIT * 4 // 5 <= cut <= LIMIT and text[:cut].endswith("\n\n")
    words = "word " * LIMIT
    assert words[: cut_at(words)].endswith("word ")


# ---------------------------------------------------------------------------- on the pages
LONG = 300_000


def lengthen(text: str) -> str:
    """A message of :data:`LONG` characters that starts with ``text`` (its evidence in the
    part drawn at first)."""
    filler = "".join(
        f"Paragraph {i}: more of the same words, over and over.\n\n" for i in range(9000)
    )
    return (text + "\n\n" + filler)[:LONG]


@pytest.fixture(scope="module")
def long_db(demo_db, tmp_path_factory) -> tuple[str, int, int, str]:
    """A copy of the demo database whose message 5 (on Audit) and the first message behind
    Leaks' most leaked pair are :data:`LONG` characters long: (path, 5, that message, its
    attribute key)."""
    from cimem.analysis import leak_table, leaks
    from cimem.analysis.breakdowns import pair_table
    from cimem.analysis.cube import cube_from_store

    path = tmp_path_factory.mktemp("long") / "demo.duckdb"
    path.write_bytes(Path(demo_db).read_bytes())
    with Store.open(path) as store:
        run_cube = cube_from_store(store, 1, None)
        leaky = leaks.leaky_pairs(leaks.filtered_pairs(pair_table(run_cube, MetricOptions()), ()))
        pid, ctx, attr = leak_table.pair_store_ids(run_cube, leaky.iloc[0])
        behind = store.pair_messages(1, pid, ctx, attr, run_cube.info.judge_id)[0].message_id
        texts = {m: store.message_detail(m).text for m in (5, behind)}  # type: ignore[union-attr]
    con = duckdb.connect(str(path))
    for message_id, text in texts.items():
        con.execute(
            "UPDATE messages SET text = ? WHERE message_id = ?", [lengthen(text or ""), message_id]
        )
    con.close()
    return str(path), 5, behind, str(leaky.iloc[0]["key"])


def drawn_messages(at) -> list[Reader]:
    """The messages the page drew (``st.html`` elements holding one), read as a reader sees them."""
    return [read(h.value) for h in at.html if 'class="cimem-msg"' in h.value]


def raw_texts(at) -> list[str]:
    """The texts the page drew as raw text blocks (the message's, the memory, the prompt)."""
    return ["".join(read(h.value).text) for h in at.html if 'class="cimem-raw"' in h.value]


def captions(at) -> str:
    return " ".join(c.value for c in at.caption)


def test_audit_draws_the_message_exactly_with_its_legend_and_the_raw_text_when_opened(
    demo_db, monkeypatch
):
    at = open_page(demo_db, PAGES[3], monkeypatch, runs="1", message="5")
    no_exception(at)
    text = message_text(demo_db, 5)
    (shown, *_) = drawn_messages(at)
    assert "".join(shown.text) == text and shown.marked
    assert "Show all" not in [t.label for t in at.toggle]  # an ordinary message is whole
    legends = [h.value for h in at.html if 'class="cimem-legend"' in h.value]
    assert legends and "a private attribute leaked" in legends[0] and "Outlined" not in legends[0]
    assert text not in raw_texts(at)  # folded: not drawn (the memory and prompt are raw too)
    at.session_state["audit-5-raw"] = True  # what opening "Raw text" does
    at.run()
    no_exception(at)
    assert text in raw_texts(at)


def test_audit_draws_a_long_message_in_part_until_show_all(long_db, monkeypatch):
    path, message, _, _ = long_db
    at = open_page(path, PAGES[3], monkeypatch, runs="1", message=str(message))
    no_exception(at)
    text = message_text(path, message)
    cut = cut_at(text)
    assert len(text) == LONG and cut <= LIMIT
    assert f"Showing the first {cut:,} of {LONG:,} characters" in captions(at)
    assert f"{LONG - cut:,} more characters" in captions(at)
    (shown, *_) = drawn_messages(at)
    assert "".join(shown.text) == text[:cut] and shown.marked  # highlights in the part shown
    at.session_state["audit-5-raw"] = True
    at.run()
    assert text[:cut] in raw_texts(at) and text not in raw_texts(at)  # the raw text is cut too
    at.toggle(key=f"audit-{message}-all").set_value(True).run()
    no_exception(at)
    (shown, *_) = drawn_messages(at)
    assert "".join(shown.text) == text and shown.marked
    assert f"Showing all {LONG:,} characters" in captions(at)
    assert text in raw_texts(at)


def test_leaks_marks_all_evidence_like_audit_and_outlines_the_pairs(long_db, monkeypatch):
    path, _, behind, key = long_db
    at = open_page(path, PAGES[1], monkeypatch, runs="1")
    no_exception(at)
    [s for s in at.selectbox if s.label == "Pair"][0].set_value(0).run()
    no_exception(at)
    (legend,) = [h.value for h in at.html if 'class="cimem-legend"' in h.value]
    assert "a private attribute leaked" in legend and "Outlined" in legend
    assert "Each message&#x27;s raw text is on Audit." in legend
    shown = drawn_messages(at)
    assert len(shown) >= 2
    # the long message first: drawn in part, every sentence of the judge's evidence marked as
    # Audit marks it, and the pair's own outlined
    text = message_text(path, behind)
    cut = cut_at(text)
    assert f"Showing the first {cut:,} of {LONG:,} characters" in captions(at)
    assert "".join(shown[0].text) == text[:cut]
    with reading(path) as store:
        found = message_audit(store, behind, MetricOptions().label_rule)
        judge = store.find_default_judge(1)
    assert found is not None
    want = read(message_html(text[:cut], found.evidence(judge), chosen=key)).marked
    assert shown[0].marked == want
    assert len(want) > 1 and sum("chosen" in c for c, _ in want) == 1
    at.toggle(key=f"leaks-{behind}-all").set_value(True).run()
    no_exception(at)
    assert "".join(drawn_messages(at)[0].text) == text
    assert not [e for e in at.expander if e.label == "Raw text"]


def test_a_highlight_names_its_attributes_and_official_mode_counts_no_filtered_leak():
    """Each mark's tooltip names the attributes it is evidence for (escaped: a key is data); in
    official mode the evidence for a private attribute the identity filter drops is no leak."""
    hostile = '"><script>alert(1)</script>'
    drawn = message_html(
        "My income is 5k. I am 58.",
        [
            Evidence("My income is 5k.", "income", PRIVATE_LEAKED),
            Evidence("My income is 5k.", hostile, PRIVATE_LEAKED),
            Evidence("I am 58.", "age", NEEDED_INCLUDED),
        ],
    )
    assert (
        'title="income, &quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;: private leaked"' in drawn
    )
    assert 'title="age: needed included"' in drawn and "<script>" not in drawn.split("</style>")[1]


def test_official_mode_shows_identity_filtered_evidence_as_no_leak(demo_db):
    with Store.open(demo_db, read_only=True) as store:
        message_id = store.con.execute(
            "SELECT v.message_id FROM verdicts v JOIN attributes a ON a.attr_id = v.attr_id"
            " JOIN messages m ON m.message_id = v.message_id AND m.run_id = a.run_id"
            " WHERE v.judge_id = 1 AND v.revealed AND v.evidence IS NOT NULL"
            " AND (a.key LIKE '%age%' OR a.key LIKE '%name%') ORDER BY v.message_id LIMIT 200"
        ).fetchall()
        audits = [message_audit(store, m, "unanimous") for (m,) in message_id]
    found = [
        (a, e.key)
        for a in audits
        for e in a.evidence(1)
        if e.kind == PRIVATE_LEAKED and ("age" in e.key or "name" in e.key)
    ]
    assert found, "the demo has a private identity-like attribute the judge found revealed"
    audit, key = found[0]
    official = {e.key: e.kind for e in audit.evidence(1, official=True)}
    assert official[key] == AMBIGUOUS
    definition = {e.key: e.kind for e in audit.evidence(1)}
    assert definition[key] == PRIVATE_LEAKED
