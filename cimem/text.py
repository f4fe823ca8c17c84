"""Text shared by every layer: normalisation for the judges (offline matching, reply parsing) and
the audit (whether a judge's evidence occurs in the message), and counts said with their noun, the
same in the CLI, the app and the report. Imports nothing of cimem, so every layer may use it.

>>> normalize("  I\u2019m   \u201cfine\u201d \u2014 Thanks ")
'i\\'m "fine" - thanks'
"""

from __future__ import annotations

import re
import unicodedata


def normalize(text: str) -> str:
    """Lower case, unicode dashes and quotes flattened, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    text = (
        text.replace("\u2011", "-")
        .replace("\u2013", "-")
        .replace("\u2014", "-")
        .replace("\u2019", "'")
        .replace("\u2018", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )
    return re.sub(r"\s+", " ", text).strip().lower()


def plural(count: int, noun: str, many: str | None = None) -> str:
    """A count with its noun, singular for one (``many``: an irregular plural).

    >>> plural(1, "profile"), plural(2_000, "task"), plural(2, "reply", "replies")
    ('1 profile', '2,000 tasks', '2 replies')
    """
    return f"{count:,} " + (noun if count == 1 else many or noun + "s")
