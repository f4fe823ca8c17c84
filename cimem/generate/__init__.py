"""Evaluating a model: memory formats, the runner (generate, judge, store, resume) and persona
labelling. May import every subpackage below it (store, ingest, analysis' labels, llm, judges).
"""
