"""cimem: run, store, explore, teach and audit the CIMemories benchmark."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os

    from cimem.notebook import Database

__version__ = "0.1.0"


def open(path: str | os.PathLike[str]) -> Database:  # noqa: A001 - cimem.open, as documented
    """The store's views from Python, as pandas DataFrames: :func:`cimem.notebook.open`."""
    from cimem.notebook import open as opened

    return opened(path)
