"""Text normalisation for the offline judge: sentences, numbers, dates, content words.

Everything here is deterministic and general: no rule names a profile, a key or a value.
"""

from __future__ import annotations

import re
from datetime import date
from functools import lru_cache

from cimem.text import normalize

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\$?\d[\d,]*(?:\.\d+)?(?:\s?[kK]\b)?")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")
_SLASH_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})(?:/(\d{2,4}))?\b")
MONTHS = {
    m: i + 1
    for i, m in enumerate(
        [
            "january",
            "february",
            "march",
            "april",
            "may",
            "june",
            "july",
            "august",
            "september",
            "october",
            "november",
            "december",
        ]
    )
}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items())})
MONTHS["sept"] = 9
# a month name only as a whole word; a day is one or two digits and a year four, never the first
# digits of a longer number (so "May 2019" is a month and year, not May 20)
_MONTH_RE = r"\b(" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\b\.?"
_DAY_RE = r"(\d{1,2})(?!\d)(?:st|nd|rd|th)?"
_YEAR_RE = r"(\d{4})(?!\d)"
_MDY = re.compile(_MONTH_RE + r"\s+" + _DAY_RE + r"(?:,?\s+" + _YEAR_RE + ")?", re.I)
_DMY = re.compile(
    r"\b" + _DAY_RE + r"\s+(?:of\s+)?" + _MONTH_RE + r"(?:,?\s+" + _YEAR_RE + ")?", re.I
)
_MONTH_YEAR = re.compile(_MONTH_RE + r"\s+" + _YEAR_RE, re.I)
NUMBER_WORDS: dict[str, float] = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
NUMBER_WORDS.update(
    {
        "thirty": 30,
        "forty": 40,
        "fifty": 50,
        "sixty": 60,
        "seventy": 70,
        "eighty": 80,
        "ninety": 90,
        "hundred": 100,
        "once": 1,
        "twice": 2,
        "single": 1,
        "both": 2,
        "half": 0.5,
        "dozen": 12,
    }
)
STOPWORDS = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be
been being has have had do does did this that these those it its i me my we our you your he him his
she her they them their there here will would can could should may might must shall not no nor so
than too very just also about into over under after before during per each every all any some such
person user users person's user's s t which who whom what when where why how up out off again
further then once am only own same other more most few both while until because through between
above below down""".split()
)
NEGATIONS = frozenset(
    {
        "no",
        "not",
        "never",
        "none",
        "without",
        "didn't",
        "don't",
        "doesn't",
        "isn't",
        "wasn't",
        "hasn't",
        "haven't",
        "won't",
        "cannot",
        "n't",
    }
)


def sentences(text: str) -> list[str]:
    """The message cut into sentences (and lines), each kept as written."""
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def words(text: str) -> list[str]:
    return _WORD.findall(normalize(text))


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A crude suffix stripper: enough to match 'sessions'/'session', 'attended'/'attend'."""
    w = word.lower().rstrip("'s") if word.endswith("'s") else word.lower()
    for suffix in (
        "ations",
        "ation",
        "ments",
        "ment",
        "ings",
        "ing",
        "ness",
        "ies",
        "ied",
        "edly",
        "ed",
        "es",
        "ly",
        "s",
    ):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)] + ("y" if suffix in ("ies", "ied") else "")
    return w


def content_stems(text: str, drop: frozenset[str] = frozenset()) -> set[str]:
    """Stems of the words that carry meaning (no stopwords, no numbers, none of ``drop``)."""
    return {
        stem(w)
        for w in words(text)
        if w not in STOPWORDS
        and w not in drop
        and not w.isdigit()
        and len(w) > 1
        and w not in NUMBER_WORDS
    }


def to_number(token: str) -> float | None:
    t = token.replace("$", "").replace(",", "").strip().lower()
    mult = 1000.0 if t.endswith("k") else 1.0
    t = t.rstrip("k").strip()
    try:
        return float(t) * mult
    except ValueError:
        return None


def numbers_in(text: str) -> set[float]:
    """Every number a text states, in digits or words ('$95,000', '95k', 'two', 'twelve')."""
    norm = _strip_dates(normalize(text))
    out = {n for n in (to_number(m.group()) for m in _NUMBER.finditer(norm)) if n is not None}
    out |= {abs(n) for n in out}
    for w in _WORD.findall(norm):
        if w in NUMBER_WORDS:
            out.add(float(NUMBER_WORDS[w]))
    return out


def _strip_dates(norm: str) -> str:
    """Dates blanked out, so their parts are not read as amounts or counts."""
    for pattern in (_ISO_DATE, _SLASH_DATE, _MDY, _DMY, _MONTH_YEAR):
        norm = pattern.sub(" ", norm)
    return norm


def dates_in(text: str) -> set[tuple[int | None, int, int]]:
    """Dates a text states as (year or None, month, day), from ISO, slash and month-name forms;
    day 0 for a month and year alone ("May 2019")."""
    norm = normalize(text)
    out: set[tuple[int | None, int, int]] = set()
    for y, m, d in _ISO_DATE.findall(norm):
        out.add((int(y), int(m), int(d)))
    for m, d, y in _SLASH_DATE.findall(norm):
        if 1 <= int(m) <= 12 and 1 <= int(d) <= 31:
            year = int(y) + (2000 if y and len(y) == 2 else 0) if y else None
            out.add((year, int(m), int(d)))
    days: list[tuple[int, int]] = []  # spans of the month-name dates with a day
    for match in _MDY.finditer(norm):
        m, d, y = match.groups()
        out.add((int(y) if y else None, MONTHS[m.lower()], int(d)))
        days.append(match.span())
    for match in _DMY.finditer(norm):
        d, m, y = match.groups()
        out.add((int(y) if y else None, MONTHS[m.lower()], int(d)))
        days.append(match.span())
    for match in _MONTH_YEAR.finditer(norm):
        if any(a < match.end() and match.start() < b for a, b in days):
            continue  # the month and year of a date already read with its day
        m, y = match.groups()
        out.add((int(y), MONTHS[m.lower()], 0))  # day 0: month and year only
    return out


def parse_iso_date(value: str) -> date | None:
    m = _ISO_DATE.fullmatch(value.strip())
    if not m:
        return None
    try:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def has_negation(text: str) -> bool:
    ws = set(words(text))
    return bool(ws & NEGATIONS) or "n't" in normalize(text)


def phrase_in(phrase: str, text: str) -> bool:
    """Whether the words of ``phrase`` occur contiguously in ``text`` (case and punctuation free)."""
    p = " ".join(words(phrase))
    return bool(p) and f" {p} " in f" {' '.join(words(text))} "
