"""Judges: the judge interface (`base`), the offline judge and its text matching, the LLM judge
over any OpenAI-compatible endpoint (`llm`), and reply parsing.

May import `cimem.store` and `cimem.llm`; the offline parts import no network code, so analysis
can use them.
"""
