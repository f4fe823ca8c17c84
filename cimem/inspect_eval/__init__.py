"""CIMemories in Inspect: the task, its REVEAL scorer and metrics, and a run written back as an
Inspect log. Importing this package imports ``inspect_ai``; nothing else in cimem does, but the
log reader (:mod:`cimem.ingest.inspect_log`) when a log is read."""
