"""Where things live, and which paths a visitor of a served app may reach (kept free of heavy
imports: the CLI reads it at start-up).

The data folder confines every path that comes from outside (the app's ``?db=``, its database
picker, its server-path import): the path is resolved (``..`` and symlinks followed) and must
land inside the folder, on a regular file of the expected kind. A refusal is one line naming
only what was typed and why: never the resolved server path, never the file's content.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
from pathlib import Path

from cimem.errors import CimemError

DEFAULT_DB_ENV = "CIMEM_DB"
DEFAULT_DB_PATH = "cimem.duckdb"
DATA_DIR_ENV = "CIMEM_DATA_DIR"
DEMO_DB_ENV = "CIMEM_DEMO_DB"  # where the app builds its demo database (default local/demo.duckdb)
DB_WAIT_ENV = "CIMEM_DB_WAIT"  # seconds to wait for a database another process holds
DATABASE_SUFFIXES = (".duckdb",)
LAKE_SCHEME = "ducklake:"  # a database location that names a lake, not a file
INPUT_SUFFIXES = (".jsonl", ".json", ".gz", ".parquet", ".csv")
# DuckLake's own Parquet files (data and deletes), wherever the lake keeps them: never an input
LAKE_DATA_FILE = re.compile(r"ducklake-[0-9a-fA-F-]+(?:-delete)?\.parquet")


def default_db_path() -> str:
    """The database path when none is given: ``$CIMEM_DB`` or ``cimem.duckdb`` here."""
    return os.environ.get(DEFAULT_DB_ENV) or DEFAULT_DB_PATH


def lake_journal_base(location: str) -> str:
    """Where this machine keeps a lake's side files (its call journals): a folder of the user's
    cache (``$XDG_CACHE_HOME/cimem`` or ``~/.cache/cimem``), one name per lake.

    >>> lake_journal_base("ducklake:postgres:dbname=a").endswith(".lake")
    True
    """
    digest = hashlib.sha256(location.strip().encode()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "cimem"
    cache.mkdir(parents=True, exist_ok=True)
    return str(cache / f"{digest}.lake")


def data_dir() -> Path:
    """The folder visitors' paths are confined to: ``$CIMEM_DATA_DIR``, else the folder of
    ``$CIMEM_DB``, else the working folder (resolved)."""
    if os.environ.get(DATA_DIR_ENV):
        return Path(os.environ[DATA_DIR_ENV]).expanduser().resolve()
    if os.environ.get(DEFAULT_DB_ENV) and not os.environ[DEFAULT_DB_ENV].strip().startswith(
        LAKE_SCHEME
    ):
        return Path(os.environ[DEFAULT_DB_ENV]).expanduser().resolve().parent
    return Path.cwd().resolve()


class PathRefused(CimemError):
    """A path outside the data folder, or not a file of the expected kind there. ``str()`` is
    one line with only what was typed: safe to show a visitor."""

    def __init__(self, typed: str, reason: str):
        self.typed, self.reason = typed, reason
        super().__init__(f"{typed}: refused: {reason}")


def confine(typed: str, root: Path, suffixes: tuple[str, ...]) -> Path:
    """The resolved path of ``typed`` (relative to ``root``) when it is a regular file with one
    of ``suffixes`` inside ``root``; raises :class:`PathRefused` otherwise (a visitor's path
    never names a file to create).

    >>> import tempfile; root = Path(tempfile.mkdtemp())
    >>> confine("../x.duckdb", root, (".duckdb",))
    Traceback (most recent call last):
    ...
    cimem.paths.PathRefused: ../x.duckdb: refused: outside the data folder
    >>> confine("new.duckdb", root, (".duckdb",))
    Traceback (most recent call last):
    ...
    cimem.paths.PathRefused: new.duckdb: refused: no such file in the data folder
    """
    text = typed.strip()
    if not text:
        raise PathRefused(typed, "no path given")
    base = root.resolve()
    try:
        path = (base / Path(text).expanduser()).resolve()
    except (OSError, ValueError, RuntimeError):  # NUL bytes, symlink loops, names too long
        raise PathRefused(typed, "not a valid path") from None
    if not path.is_relative_to(base):
        raise PathRefused(typed, "outside the data folder")
    if any(part.startswith(".") for part in path.relative_to(base).parts):
        raise PathRefused(typed, "hidden (a name starting with a dot, such as a lake's .lake)")
    if LAKE_DATA_FILE.fullmatch(path.name):
        raise PathRefused(typed, "a lake's own data file (a lake is read with --db)")
    if path.suffix.lower() not in suffixes:
        raise PathRefused(typed, f"not a {' or '.join(suffixes)} file")
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise PathRefused(typed, "no such file in the data folder") from None
    except (OSError, ValueError):
        raise PathRefused(typed, "cannot be read") from None
    if stat.S_ISDIR(mode):
        raise PathRefused(typed, "a folder, not a file")
    if not stat.S_ISREG(mode):
        raise PathRefused(typed, "not a regular file")
    if not os.access(path, os.R_OK):
        raise PathRefused(typed, "cannot be read")
    return path


def as_typed(message: str, path: Path, typed: str) -> str:
    """``message`` with the server path ``path`` (as given and resolved) said as ``typed``, the
    name its reader knows: an error about a file names the file, not where the server keeps it.

    >>> as_typed("/srv/data/x.json: line 1: expected a list", Path("/srv/data/x.json"), "x.json")
    'x.json: line 1: expected a list'
    """
    for form in sorted({str(path), str(path.resolve())}, key=len, reverse=True):
        message = message.replace(form, typed)
    return message


def databases_in(root: Path, depth: int = 2, limit: int = 200) -> list[str]:
    """The ``.duckdb`` files in ``root`` and its non-hidden subfolders down to ``depth``, as
    paths relative to it (only those :func:`confine` accepts: no symlink out of the folder)."""
    base = root.resolve()
    found: list[str] = []

    def walk(folder: Path, level: int) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if len(found) >= limit or entry.name.startswith("."):
                continue
            rel = Path(entry.path).relative_to(base).as_posix()
            if entry.name.lower().endswith(DATABASE_SUFFIXES):
                try:
                    confine(rel, base, DATABASE_SUFFIXES)
                    found.append(rel)
                except PathRefused:
                    pass
            elif level < depth and entry.is_dir(follow_symlinks=False):
                walk(Path(entry.path), level + 1)

    walk(base, 0)
    return found


def private_files() -> None:
    """From now on, files this process creates are readable and writable by their owner only.

    Databases hold prompts with people's private memories. DuckDB creates the database file,
    and a new WAL after every checkpoint, with the process umask, so the umask is the one place
    that makes them all 0600; the call journal is opened 0600 as well. Only tightens (a stricter
    umask stays) and is idempotent; it is process-wide, so exports are private too."""
    current = os.umask(0o077)
    os.umask(current | 0o077)


def replaceable(out: Path) -> Path:
    """``out``, when a file written beside it may be renamed over it: absent, or a regular file
    (a link to one too). Anything else (``/dev/null``, a pipe, a folder) is refused with
    :class:`PathRefused`: the rename would replace it."""
    if (out.exists() or out.is_symlink()) and not out.resolve().is_file():
        raise PathRefused(
            str(out), "not a regular file (the output is written whole, then renamed)"
        )
    return out


def write_whole(out: str | Path, text: str) -> None:
    """Write ``text`` whole or not at all: a temporary file beside ``out``, then renamed, so a
    reader never sees half a file and a failure leaves nothing behind (see :func:`replaceable`)."""
    out = replaceable(Path(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
