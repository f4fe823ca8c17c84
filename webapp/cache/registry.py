"""Every cached read of the app, registered where it is made, and the app's one write path.

A cached read is made with :func:`data_read` (Streamlit's ``st.cache_data``: a copy per caller)
or :func:`shared_read` (``st.cache_resource``: one object shared by every session, for the big
cubes and tables a copy per rerun would cost too much for). Both keep the function in one list,
so that :func:`writing` forgets exactly the reads of the app after a write, with no hand-kept
list to fall behind: a read made any other way is refused by the habits test
(``tests/webapp/test_cache_registry.py``). Cached reads are keyed by the database file's version
too, so a write made by another process is seen on the next rerun; forgetting after the app's own
writes also frees the memory of what can no longer be asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, Protocol, TypeVar, cast

import streamlit as st

from cimem.store import Store
from webapp import connection

P = ParamSpec("P")
R = TypeVar("R")


class _Forgettable(Protocol):
    def clear(self) -> None: ...


_READS: list[_Forgettable] = []


def data_read(**options: Any) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``st.cache_data(**options)``, registered: its results are forgotten after a write."""

    def register(read: Callable[P, R]) -> Callable[P, R]:
        cached: Callable[P, R] = st.cache_data(**options)(read)
        _READS.append(cast(_Forgettable, cached))
        return cached

    return register


def shared_read(**options: Any) -> Callable[[Callable[P, R]], Callable[P, R]]:
    """``st.cache_resource(**options)``, registered: its objects are forgotten after a write.
    Its results are shared by every session: callers must not change them."""

    def register(read: Callable[P, R]) -> Callable[P, R]:
        cached: Callable[P, R] = st.cache_resource(**options)(read)
        _READS.append(cast(_Forgettable, cached))
        return cached

    return register


def registered() -> tuple[object, ...]:
    """The cached reads made so far (the modules of ``webapp.cache`` make theirs at import)."""
    return tuple(_READS)


def forget() -> None:
    """Forget every cached read's results (the next asking reads the database again)."""
    for read in _READS:
        read.clear()


@contextmanager
def writing() -> Iterator[Store]:
    """This visit's database to write while the block lasts, then every cached read forgotten,
    whether the block ended well or not (a write that failed half way may have committed its
    first statements). The app's only way to write."""
    try:
        with connection.writing() as store:
            yield store
    finally:
        forget()
