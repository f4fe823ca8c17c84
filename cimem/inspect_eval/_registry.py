"""What the package registers with Inspect (``[project.entry-points.inspect_ai]``), so that
``inspect eval cimem/cimemories`` finds the task, and ``--model cimem/stand-in`` the stand-in
assistant that lets the task be tried with no model and no network."""

from cimem.inspect_eval.stand_in import stand_in as stand_in
from cimem.inspect_eval.task import cimemories as cimemories

__all__ = ["cimemories", "stand_in"]
