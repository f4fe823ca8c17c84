"""What the package registers with Inspect (``[project.entry-points.inspect_ai]``), so that
``inspect eval cimem/cimemories`` finds the task."""

from cimem.inspect_eval.task import cimemories as cimemories

__all__ = ["cimemories"]
