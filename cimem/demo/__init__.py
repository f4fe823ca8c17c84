"""The simulated demo (seeded synthetic people and assistants), the teaching data and the
published reference numbers. May import store, ingest and the offline judge.
"""
