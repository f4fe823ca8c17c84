"""Opening input files: plain or gzip for every format, and clear errors for what is not a file.

Every reader goes through here, so a corrupt or truncated gzip stream, a folder, a FIFO, a device or
a symlink loop gives the same one-line error naming the file and what it is, never a traceback
(and never a read that blocks forever on a FIFO or runs forever on ``/dev/zero``).
"""

from __future__ import annotations

import errno
import gzip
import io
import os
import stat
import zlib
from collections.abc import Iterator
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
