"""Analysis: label rules, the leak cube, Violation@n and Completeness, accumulation curves,
breakdowns, the overview table, agreement and reports. Pure numpy over what the store returns.

May import `cimem.store`, `cimem.ingest` (the official format's grammar) and `cimem.judges`'
offline parts; never `cimem.generate`, `cimem.llm` or `openai`.
"""
