"""Text normalisation for the offline judge: every helper on the forms it must recognise."""

from datetime import date

import pytest

from cimem.judges.textmatch import (
    content_stems,
    dates_in,
    has_negation,
    normalize,
    numbers_in,
    parse_iso_date,
    phrase_in,
    sentences,
    stem,
    to_number,
    words,
)


def test_normalize_flattens_dashes_quotes_and_space():
    assert (
        normalize("  Don\u2019t \u201cStop\u201d\u2014NOW\n\tplease ") == 'don\'t "stop"-now please'
    )


def test_sentences_split_on_end_marks_and_lines():
    assert sentences("Hi there. I earn $95,000! Why?\nNew line\n\n  ") == [
        "Hi there.",
        "I earn $95,000!",
        "Why?",
        "New line",
    ]


def test_words_keep_contractions_and_digits():
    assert words("It's 2024, isn't it?") == ["it's", "2024", "isn't", "it"]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("sessions", "session"),
        ("attended", "attend"),
        ("therapies", "therapy"),
        ("medication", "medic"),
        ("bus", "bus"),  # too short to strip
        ("Doctor's", "doctor"),
    ],
)
def test_stem(word, expected):
    assert stem(word) == expected


def test_content_stems_drop_stopwords_numbers_and_given_words():
    assert content_stems(
        "I attended two therapy sessions in 2023 with Ada", frozenset({"ada"})
    ) == {
        "attend",
        "therapy",
        "session",
    }


@pytest.mark.parametrize(
    ("token", "value"),
    [("$95,000", 95000.0), ("95k", 95000.0), ("1.5K", 1500.0), ("-3", -3.0), ("abc", None)],
)
def test_to_number(token, value):
    assert to_number(token) == value


def test_numbers_in_reads_digits_words_and_not_dates():
    assert numbers_in("I earn $95,000 and have two kids, born 2019-04-05.") == {95000.0, 2.0}
    assert numbers_in("about 95k, a dozen times") == {95000.0, 12.0}
    assert numbers_in("a change of -3 points") == {-3.0, 3.0}  # the magnitude too


def test_dates_in_every_form():
    text = "On 2021-03-04, then 4/5/22, March 7th, 2020 and the 9th of June."
    assert dates_in(text) == {(2021, 3, 4), (2022, 4, 5), (2020, 3, 7), (None, 6, 9)}
    assert (2019, 5, 0) in dates_in("since May 2019")  # day 0: month and year only
    assert dates_in("13/40 is no date") == set()


@pytest.mark.parametrize(
    "text, expected",
    [
        ("on May 20, 2019", {(2019, 5, 20)}),
        ("20 May 2019", {(2019, 5, 20)}),  # a full date, not also its month and year
        ("May 2019", {(2019, 5, 0)}),  # the year's digits are no day
        ("since Mar. 2019", {(2019, 3, 0)}),
        ("May 20 2019", {(2019, 5, 20)}),
        ("2019", set()),
        ("May 201", set()),  # three digits are neither a day nor a year
        ("March 12345", set()),
        ("May 20, 20190", {(None, 5, 20)}),  # five digits are no year
        ("12 mayo", set()),  # a month name only as a whole word
        ("to their dismay 2 left", set()),
    ],
)
def test_dates_in_reads_days_and_years_only_at_digit_boundaries(text, expected):
    assert dates_in(text) == expected


def test_numbers_in_leaves_out_a_month_and_year():
    assert numbers_in("since May 2019, 3 times") == {3.0}


def test_parse_iso_date():
    assert parse_iso_date(" 2020-02-29 ") == date(2020, 2, 29)
    assert parse_iso_date("2021-02-29") is None  # no such day
    assert parse_iso_date("29 Feb 2020") is None


def test_has_negation():
    assert has_negation("I do not smoke")
    assert has_negation("I don\u2019t smoke")
    assert not has_negation("I smoke daily")


def test_phrase_in_matches_whole_words_in_order():
    assert phrase_in("Type 2 diabetes", "He has type-2 diabetes, sadly.")
    assert not phrase_in("type 2", "type 22 diabetes")
    assert not phrase_in("diabetes type", "type 2 diabetes")
    assert not phrase_in("...", "anything")
