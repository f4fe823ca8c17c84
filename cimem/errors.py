"""Errors that reach the user: each names the file, the place in it, and what was expected."""

from __future__ import annotations

import reprlib


class CimemError(Exception):
    """A problem the user can fix; the CLI prints it without a traceback."""


class InputError(CimemError):
    """Bad input data: names the file, the place (line or record), the field and what was expected."""

    def __init__(self, path: str, place: str, field: str, expected: str, got: str | None = None):
        self.path, self.place, self.field, self.expected, self.got = (
            path,
            place,
            field,
            expected,
            got,
        )
        where = f"{path}: {place}: " + (f"field {field!r}: " if field and field[0] != "(" else "")
        message = f"{where}expected {expected}"
        if got is not None:
            message += f", got {got}"
        super().__init__(message)

    def lines_later(self, lines: int) -> InputError:
        """The same error ``lines`` lines further down its file (a place "line N" counted within
        a part of the file made the file's own).

        >>> InputError("f.jsonl", "line 2", "bio", "an object").lines_later(5).place
        'line 7'
        """
        place = self.place
        if place.startswith("line ") and place[5:].isdigit():
            place = f"line {int(place[5:]) + lines}"
        return InputError(self.path, place, self.field, self.expected, self.got)

    def __reduce__(self) -> tuple[type[InputError], tuple[str, str, str, str, str | None]]:
        """Made again from its parts (a reader in another process raises it to this one)."""
        return (type(self), (self.path, self.place, self.field, self.expected, self.got))


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxstring, _REPR.maxother, _REPR.maxlist, _REPR.maxdict = 3, 50, 50, 4, 4


def describe(value: object, limit: int = 60) -> str:
    """A short, safe description of an unexpected value for an error message (depth-limited, so
    a value nested a thousand levels deep is described, not a RecursionError)."""
    text = _REPR.repr(value)
    kind = type(value).__name__
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{kind} {text}"
