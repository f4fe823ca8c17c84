"""Opening input files: plain or gzip for every format, and clear errors for what is not a file.

Every reader goes through here, so a corrupt or truncated gzip stream, a folder, a FIFO, a device or
a symlink loop gives the same one-line error naming the file and what it is, never a traceback
(and never a read that blocks forever on a FIFO or runs forever on ``/dev/zero``).
"""

from __future__ import annotations

import errno
import gzip
import io
import mmap
import os
import stat
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from cimem.errors import CimemError, InputError

GZIP_MAGIC = b"\x1f\x8b"
COMPRESSION_ERRORS = (EOFError, zlib.error, gzip.BadGzipFile)
_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def require_file(path: Path, what: str = "file") -> None:
    """Raise a CimemError saying what ``path`` is unless it is a regular file (or a link to one)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise CimemError(f"{path}: no such {what}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise CimemError(f"{path}: a symbolic link loop, not a {what}") from None
        raise CimemError(f"{path}: cannot be read ({exc.strerror})") from None
    if stat.S_ISREG(mode):
        if not os.access(path, os.R_OK):
            raise CimemError(f"{path}: not readable (permission denied)")
        return
    kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
    raise CimemError(f"{path}: {kind}, not a regular {what}")


def is_gzip(path: Path) -> bool:
    with path.open("rb") as f:
        return f.read(2) == GZIP_MAGIC


def open_maybe_gzip(path: Path) -> IO[bytes]:
    """The file's bytes, decompressed when it is gzip (by its magic number, not its name)."""
    if is_gzip(path):
        return cast(IO[bytes], gzip.open(path, "rb"))
    return path.open("rb")


def compression_error(path: Path, exc: BaseException, place: str = "the file") -> InputError:
    return InputError(
        str(path),
        place,
        "(file)",
        "a complete, uncorrupted gzip stream",
        got=f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__,
    )


def read_bytes(path: Path) -> bytes:
    """All of the file's (decompressed) bytes; a corrupt gzip stream is an InputError."""
    try:
        with open_maybe_gzip(path) as f:
            return f.read()
    except COMPRESSION_ERRORS as exc:
        raise compression_error(path, exc) from None


def read_head(path: Path, n: int) -> bytes:
    """The first ``n`` decompressed bytes (a stream cut later is reported by the reader)."""
    try:
        with open_maybe_gzip(path) as f:
            return f.read(n)
    except COMPRESSION_ERRORS as exc:
        raise compression_error(path, exc) from None


def iter_lines(path: Path) -> Iterator[tuple[int, bytes, int]]:
    """(line number, line, bytes of the file read so far) for every line; decompresses gzip."""
    lineno = 0
    done = 0
    try:
        with open_maybe_gzip(path) as f:
            compressed = getattr(f, "fileobj", None)  # gzip: progress in compressed bytes
            for lineno, line in enumerate(f, 1):
                done = compressed.tell() if compressed is not None else done + len(line)
                yield lineno, line, done
    except COMPRESSION_ERRORS as exc:
        raise compression_error(path, exc, f"line {lineno + 1}") from None


@dataclass(frozen=True)
class Span:
    """A part of a file that starts and ends on line boundaries: bytes ``start`` to ``end``."""

    start: int
    end: int


SPAN_BLOCK = 1 << 24  # bytes read at a time when counting the lines before a span
PARALLEL_BYTES = 64 << 20  # a smaller file is read by one process (starting others costs more)
MAX_READERS = 4


def readers_for(path: Path) -> int:
    """How many processes read the file: one per core (at most four) for a file of 64 MB or
    more that can be read from the middle, read from a program's main thread (the command line:
    readers are forked, and a server's other threads may hold locks a fork would copy), else
    one."""
    if threading.current_thread() is not threading.main_thread():
        return 1
    if path.stat().st_size < PARALLEL_BYTES or is_gzip(path):
        return 1
    return min(MAX_READERS, len(os.sched_getaffinity(0)))


def spans(path: Path, parts: int) -> list[Span]:
    """The file cut into ``parts`` spans of about equal size on line boundaries (fewer when its
    lines are fewer); none for a gzip file, which cannot be read from the middle."""
    if is_gzip(path):
        return []
    size = path.stat().st_size
    cuts = [0]
    with path.open("rb") as f:
        for i in range(1, parts):
            f.seek(max(size * i // parts, cuts[-1]))
            f.readline()  # to the end of the line the cut fell in
            if f.tell() < size and f.tell() > cuts[-1]:
                cuts.append(f.tell())
    cuts.append(size)
    return [Span(a, b) for a, b in zip(cuts, cuts[1:]) if b > a]


def iter_span_lines(
    path: Path, span: Span, marker: bytes
) -> Iterator[tuple[int, memoryview, int, bool]]:
    """(line number within the span, line, bytes of the file read so far, whether the line holds
    ``marker``) for the lines of ``span``; the lines before it are counted only when a number
    must name a line of the file (:func:`lines_before`, on an error). The file is mapped, each
    line found with one ``memchr`` and given as a view of the mapping, valid until the next is
    asked for: no copy (a buffered ``readline`` grows its copy of a multi-megabyte profile line a
    buffer at a time, about three times slower than one copy, itself about 0.1 s slower over the
    60-profile file than none)."""
    if span.end <= span.start or not path.stat().st_size:
        return  # nothing to map (an empty file cannot be)
    with path.open("rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        whole = memoryview(mapped)
        end = min(span.end, len(mapped))
        at, lineno = span.start, 0
        try:
            while at < end:
                stop = mapped.find(b"\n", at, end)
                stop = end if stop < 0 else stop + 1
                lineno += 1
                with whole[at:stop] as line:
                    yield lineno, line, stop, mapped.rfind(marker, at, stop) >= 0
                at = stop
        finally:
            whole.release()  # the mapping closes only once no view of it is left


def lines_before(path: Path, offset: int) -> int:
    """The lines of the file before byte ``offset`` (a line boundary)."""
    count, left = 0, offset
    with path.open("rb") as f:
        while left > 0:
            block = f.read(min(SPAN_BLOCK, left))
            if not block:
                break
            count += block.count(b"\n")
            left -= len(block)
    return count


def decompressed(path: Path) -> IO[bytes] | Path:
    """A path readers can open themselves, or an in-memory copy when the file is gzip."""
    if is_gzip(path):
        return io.BytesIO(read_bytes(path))
    return path


def logical_suffix(path: Path) -> str:
    """The extension that says the format, ``.gz`` left aside (``rows.csv.gz`` -> ``.csv``)."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] == ".gz":
        suffixes.pop()
    return suffixes[-1] if suffixes else ""
