"""Reading and writing the benchmark's file formats.

Owns: format detection (`formats`), the registry of readers (`readers`), one reader per source
format (`official`, `profiles`, `hf`, `persistbench`) producing the records of `records`, the one
writer (`writer`) that puts records
into the store, the import itself in one transaction (`importer`), and export back to the
official run-output format (`export`). May import `cimem.store`, nothing else above it.
"""

from cimem.ingest.importer import IngestResult, file_sha256, ingest_file, ingest_or_find
from cimem.ingest.readers import READERS, SourceFormat, detect_format, open_reader
from cimem.ingest.records import Told

__all__ = [
    "READERS",
    "IngestResult",
    "SourceFormat",
    "Told",
    "detect_format",
    "file_sha256",
    "ingest_file",
    "ingest_or_find",
    "open_reader",
]
