"""What every command shares: the --db option, the call options, the one --where grammar, progress
bars, tables, integer lists, and JSON/percent formatting. Imports no other command module (no
cycles)."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from cimem.errors import CimemError
from cimem.paths import DB_WAIT_ENV, DEFAULT_DB_ENV, default_db_path
from cimem.store import Store, default_wait
from cimem.store.location import is_lake

EXIT_USER_ERROR = 2


def add_db(
    p: argparse.ArgumentParser | argparse._ArgumentGroup | argparse._MutuallyExclusiveGroup,
) -> None:
    """The one declaration of --db."""
    p.add_argument(
        "--db",
        default=None,
        help=f"database file, or a lake ducklake:postgres:... (docs/scaling.md; default:"
        f" ${DEFAULT_DB_ENV} or ./cimem.duckdb)",
    )


def open_store(args: argparse.Namespace, read_only: bool = False) -> Store:
    """The database of ``--db`` (else $CIMEM_DB, else cimem.duckdb). While another process holds
    it (the app reading, a run storing a part, an import), wait for it as $CIMEM_DB_WAIT says,
    saying so once on stderr."""
    path = args.db or default_db_path()
    if read_only and not is_lake(path) and not os.path.exists(path):
        raise CimemError(
            f"{path}: no such database (make one with `python -m cimem ingest FILE --db {path}`)"
        )

    def waiting(holder: str) -> None:
        print(
            f"waiting for {path}: {holder} (up to {default_wait():g} s; ${DB_WAIT_ENV})",
            file=sys.stderr,
            flush=True,
        )

    return Store.open(path, read_only=read_only, on_wait=waiting)


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1 (argparse names the option in its error).

    >>> positive_int("3")
    3
    """
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value}: at least 1")
    return value


def add_call_args(p: argparse.ArgumentParser, concurrency: int = 8) -> argparse._ArgumentGroup:
    """The one declaration of how model calls are made (every command that calls a model)."""
    c = p.add_argument_group("calls")
    c.add_argument(
        "--concurrency",
        type=positive_int,
        default=concurrency,
        help=f"calls in flight (default {concurrency})",
    )
    c.add_argument("--rpm", type=float, help="at most this many requests per minute")
    c.add_argument("--timeout", type=float, default=120.0, help="seconds per call (default 120)")
    c.add_argument(
        "--retries",
        type=int,
        default=4,
        help="retries per call, exponential backoff with jitter, honouring Retry-After",
    )
    return c


def progress_bar(
    desc: str, unit: str = "B"
) -> tuple[Callable[[int, int], None], Callable[[], None]]:
    """A tqdm bar on stderr that appears only for work that takes a while."""
    bar = None

    def update(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = tqdm(
                total=total,
                desc=desc,
                unit=unit,
                unit_scale=True,
                file=sys.stderr,
                delay=0.5,
                leave=False,
                disable=None,
            )
        bar.n = done
        bar.refresh() if done >= total else bar.update(0)

    def close() -> None:
        if bar is not None:
            bar.close()

    return update, close


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Columns padded to their widest cell, the header first (a table of no rows is its header).

    >>> print(table(("a", "bb"), [("xyz", "10")]))
    a    bb
    xyz  10
    >>> table(("a",), [])
    'a'
    """
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in rows]
    return "\n".join(lines)


def int_list(text: str | None, flag: str) -> list[int] | None:
    if not text:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise CimemError(
            f"{flag} {text!r}: expected comma-separated integers, e.g. 1,5,10"
        ) from None


@dataclass
class Where:
    """A --where selection: profile names, context positions, trials (empty = all)."""

    profiles: list[str] = field(default_factory=list)
    contexts: list[int] = field(default_factory=list)
    trials: list[int] = field(default_factory=list)

    def one(self) -> dict[str, Any]:
        """At most one value per key, as single-message filters take them."""
        out: dict[str, Any] = {}
        for key, values in (
            ("profile", self.profiles),
            ("context", self.contexts),
            ("trial", self.trials),
        ):
            if len(values) > 1:
                raise CimemError(f"--where: give one {key}= here, not {len(values)}")
            if values:
                out[key] = values[0]
        return out


def parse_where(text: str | None, keys: Sequence[str] = ("profile", "context", "trial")) -> Where:
    """The one --where grammar: ``profile=NAME,context=N,trial=N``, comma-separated, keys repeatable.

    >>> parse_where("profile=Ann Lee,context=3,context=4")
    Where(profiles=['Ann Lee'], contexts=[3, 4], trials=[])
    """
    where = Where()
    wanted = " and/or ".join(f"{k}={'NAME' if k == 'profile' else 'N'}" for k in keys)
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in keys:
            raise CimemError(f"--where {text!r}: expected {wanted}, separated by commas")
        if key == "profile":
            where.profiles.append(value.strip())
            continue
        try:
            number = int(value)
        except ValueError:
            raise CimemError(f"--where {key}={value!r}: expected an integer") from None
        (where.contexts if key == "context" else where.trials).append(number)
    return where


def jsonable(obj: Any) -> Any:
    """NaN and infinities become null: the JSON output must parse everywhere."""
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj


def pct(x: float | None) -> str:
    return "  n/a" if x is None or math.isnan(x) else f"{100 * x:5.2f}"


def read_text_file(path: str, expected: str = "a CSV file") -> str:
    """A file people filled in, read as UTF-8 (a spreadsheet's byte-order mark dropped), with a
    one-line error naming the file when it is none."""
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise CimemError(f"{path}: not UTF-8 text") from None
    except IsADirectoryError:
        raise CimemError(f"{path}: a folder, expected {expected}") from None
    except FileNotFoundError:
        raise CimemError(f"{path}: no such file") from None
