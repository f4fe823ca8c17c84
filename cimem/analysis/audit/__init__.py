"""The audit workflow: people check a judge's decisions and the numbers are corrected for its
errors.

- :mod:`.message`: one message under audit (labels, every judge's verdict, grounded evidence);
- :mod:`.queue`: which messages need a look, narrowed by what a reviewer typed;
- :mod:`.sample`: the stratified audit sample; :mod:`.cells`: messages as cells of a prepared run;
- :mod:`.human`: people's verdicts as cells and per message; :mod:`.verdict_csv`: as CSV;
- :mod:`.error_rates`: the judge's error rates; :mod:`.correction` and :mod:`.propensity`:
  Violation@n and Completeness corrected for them.

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
]
