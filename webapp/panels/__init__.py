"""The pages' parts, each one job: a folder per page for the parts only it draws (``audit/``,
``growth/``, ...), and here the parts several pages share (``progress``: a run being made;
``judge_errors``: the judge's errors and the correction they imply)."""
