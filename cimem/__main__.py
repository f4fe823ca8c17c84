"""python -m cimem: see cimem.cli.main."""

from cimem.cli.main import main

raise SystemExit(main())
