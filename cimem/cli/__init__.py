"""The command line, `python -m cimem`: one module per command group, shared options in one place."""

from cimem.cli.main import main

__all__ = ["main"]
