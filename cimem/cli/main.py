"""The command line: ``python -m cimem COMMAND ...`` (also installed as ``cimem``).

Every command takes ``--db`` (default: ``$CIMEM_DB`` or ``./cimem.duckdb``). Errors the user can fix
are printed as one line on stderr, with exit status 2 and no traceback. The commands live in one
module per group (`data`, `analysis`, `audit`, `judging`, `run`, `report`); `common` holds what they share.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
import warnings
from collections.abc import Sequence
from typing import TextIO

from cimem.cli.analysis import add_analysis_commands
from cimem.cli.audit import add_audit_commands
from cimem.cli.common import EXIT_USER_ERROR
from cimem.cli.data import add_data_commands
from cimem.cli.judging import add_judge_command
from cimem.cli.labels import add_labels_commands
from cimem.cli.lake import add_lake_commands
from cimem.cli.report import add_report_command
from cimem.cli.run import add_run_commands
from cimem.errors import CimemError
from cimem.paths import DEFAULT_DB_ENV
from cimem.store.call_cache import JournalWarning
from cimem.store.lake import catalog_gone, catalog_line
from cimem.store.location import is_lake, shown


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cimem", description="Run, store, explore and audit CIMemories results."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_data_commands(sub)
    add_analysis_commands(sub)
    add_audit_commands(sub)
    add_labels_commands(sub)
    add_judge_command(sub)
    add_run_commands(sub)
    add_report_command(sub)
    add_lake_commands(sub)
    return parser


def _is_user_error(exc: Exception) -> bool:
    """Errors worth one line, not a traceback: bad input, unknown runs, database problems."""
    if isinstance(exc, (CimemError, LookupError, FileNotFoundError, ValueError)):
        return True
    return type(exc).__module__.split(".")[0] in ("duckdb", "_duckdb")


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    """Journal lines set aside while opening the database: one line, once, on stderr."""
    if issubclass(category, JournalWarning):
        print(f"warning: {shown(str(message))}", file=sys.stderr)
    else:
        _default_show_warning(message, category, filename, lineno, file, line)


_default_show_warning = warnings.showwarning
EXIT_BUG = 1  # what Python exits with on an exception it did not catch


def main(argv: Sequence[str] | None = None) -> int:
    warnings.showwarning = _show_warning
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
        sys.stdout.flush()  # a pipe's reader gone: found here, not in the exit's flush
        return code
    except BrokenPipeError:  # output piped into head & co., which stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # exit's flush: no error
        return 0
    except Exception as exc:
        if not _is_user_error(exc):  # a bug: the whole traceback, with every password masked
            print(shown("".join(traceback.format_exception(exc))), end="", file=sys.stderr)
            return EXIT_BUG
        message = str(exc.args[0] if isinstance(exc, LookupError) and exc.args else exc)
        location = getattr(args, "db", None) or os.environ.get(DEFAULT_DB_ENV, "")
        if is_lake(location) and catalog_gone(message):  # one line, whatever query it stopped
            message = catalog_line(location, message)
        print(f"error: {shown(message)}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("interrupted; nothing was half written", file=sys.stderr)
        return 130
