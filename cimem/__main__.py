"""python -m cimem: see cimem.cli."""

from .cli import main

raise SystemExit(main())
