"""The audit workflow: people check a judge's decisions and the numbers are corrected for its
errors.

- :mod:`.message`: one message under audit (labels, every judge's verdict, grounded evidence);
- :mod:`.queue`: which messages need a look, narrowed by what a reviewer typed;
- :mod:`.sample`: the audit sample in review order; :mod:`.cells`: messages as cells of a run;
- :mod:`.human`: people's verdicts as cells and per message; :mod:`.verdict_csv`: as CSV;
- :mod:`.error_rates`: the judge's errors people saw; :mod:`.design`, :mod:`.estimate`,
  :mod:`.plan`: the audit's draws, what they estimate, the order to decide them;
  :mod:`.correction`: Violation@n and Completeness under people's verdicts;
  :mod:`.simulation`: the correction checked on runs with a known truth.

The audit of one message is the package's front door, so its names are importable from here.
"""

from cimem.analysis.audit.message import (
    AMBIGUOUS,
    EVIDENCE_KINDS,
    NEEDED_INCLUDED,
    PRIVATE_LEAKED,
    UNLABELED,
    AttributeAudit,
    Evidence,
    MessageAudit,
    Verdict,
    evidence_grounded,
    message_audit,
    pair_labels_under,
    what_happened,
)

__all__ = [
    "AMBIGUOUS",
    "EVIDENCE_KINDS",
    "NEEDED_INCLUDED",
    "PRIVATE_LEAKED",
    "UNLABELED",
    "AttributeAudit",
    "Evidence",
    "MessageAudit",
    "Verdict",
    "evidence_grounded",
    "message_audit",
    "pair_labels_under",
    "what_happened",
]
