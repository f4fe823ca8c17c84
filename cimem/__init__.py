"""cimem: run, store, explore, teach and audit the CIMemories benchmark."""

__version__ = "0.1.0"
