"""Which audit sample people's verdicts answer: the judge it audits, the seed of its draws and the
metric options they were drawn under. It is written on every row of a sample sheet
(``audit-sample --out``), and noted in the store when people's verdicts arrive (``human import``,
the Review page). The corrected metrics follow the noted sample's draws and say which; asked for
other draws (another seed, judge, mode or label rule), they name the mismatch instead of counting
verdicts that are not a prefix of those draws.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from cimem.analysis.options import MetricOptions, Mode
from cimem.errors import CimemError
from cimem.store import AuditSample


def draw_options(opts: MetricOptions, n_trials: int) -> str:
    """The options that decide a sample's draws, as canonical text: the mode and label rule,
    and what else changes the units (``k`` below the run's samples; definition mode's excluded
    keys and parse failures).

    >>> draw_options(MetricOptions(), 5)
    'official, rule unanimous'
    >>> draw_options(MetricOptions("definition", "majority", ("name",), "zero", 3), 5)
    'definition, rule majority, k 3, exclude name, parse failures zero'
    """
    parts = [opts.mode, f"rule {opts.label_rule}"]
    if opts.k is not None and opts.k < max(n_trials, 1):
        parts.append(f"k {opts.k}")
    if opts.mode == Mode.DEFINITION:
        if opts.exclude:
            parts.append("exclude " + ";".join(sorted(opts.exclude)))
        if opts.parse_failures != "exclude":
            parts.append(f"parse failures {opts.parse_failures}")
    return ", ".join(parts)


def parse_draw_options(text: str) -> MetricOptions:
    """The options :func:`draw_options` wrote (k read back as given).

    >>> parse_draw_options("definition, rule majority, k 3, exclude name, parse failures zero")
    MetricOptions(mode=<Mode.DEFINITION: 'definition'>, label_rule='majority', exclude=('name',), parse_failures='zero', k=3)
    """
    parts = [p.strip() for p in text.split(",")]
    found = {
        prefix: part[len(prefix) + 1 :]
        for part in parts[1:]
        for prefix in ("rule", "k", "exclude", "parse failures")
        if part.startswith(prefix + " ")
    }
    return MetricOptions(
        mode=Mode(parts[0]),
        label_rule=found.get("rule", "unanimous"),
        exclude=tuple(found["exclude"].split(";")) if found.get("exclude") else (),
        parse_failures=found.get("parse failures", "exclude"),  # type: ignore[arg-type]
        k=int(found["k"]) if found.get("k") else None,
    )


@dataclass(frozen=True)
class SampleSpec:
    """An audit sample: the judge whose decisions it audits, its seed, its draw options."""

    judge_id: int
    seed: int
    options: str
    cells: int | None = field(default=None, compare=False)  # the size asked for, when known

    def text(self) -> str:
        """As a sample sheet's ``sample`` column writes it.

        >>> SampleSpec(1, 3, "official, rule unanimous", 400).text()
        'judge 1, seed 3, official, rule unanimous, 400 cells'
        """
        size = f", {self.cells} cells" if self.cells else ""
        return f"judge {self.judge_id}, seed {self.seed}, {self.options}{size}"

    @classmethod
    def parse(cls, text: str) -> SampleSpec:
        """A sheet's ``sample`` cell read back; ValueError saying the expected form otherwise.

        >>> s = SampleSpec.parse("judge 1, seed 3, official, rule unanimous, 400 cells")
        >>> s.seed, s.options, s.cells
        (3, 'official, rule unanimous', 400)
        """
        head = [p.strip() for p in text.split(",", 2)]
        judge, seed = (head + ["", ""])[:2]
        options = head[2] if len(head) == 3 else ""
        cells = re.search(r",\s*(\d+) cells$", options)
        if cells:
            options = options[: cells.start()].strip()
        if not (_number_after("judge", judge) and _number_after("seed", seed) and options):
            raise ValueError("'judge N, seed S, MODE, rule RULE', as audit-sample writes it")
        size = int(cells.group(1)) if cells else None
        return cls(int(judge.split()[1]), int(seed.split()[1]), options, size)

    def noted(self, human_judge_id: int, cells: int | None = None) -> AuditSample:
        """The sample as the store notes it (its size as asked, else ``cells``)."""
        size = self.cells or cells
        return AuditSample(human_judge_id, self.judge_id, self.seed, self.options, size)


def _number_after(word: str, text: str) -> bool:
    parts = text.split()
    return len(parts) == 2 and parts[0] == word and parts[1].isdigit()


@dataclass(frozen=True)
class AuditChoice:
    """The draws the corrected metrics follow: the seed, how it was chosen (``said``), and, when
    people's verdicts answer other draws, the mismatch that keeps the metrics uncorrected."""

    seed: int
    said: str
    noted: bool  # the seed is a sample's noted with people's verdicts
    mismatch: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {"seed": self.seed, "noted": self.noted, "said": self.said}


def audit_choice(
    samples: list[AuditSample], want: SampleSpec | None, seed: int | None
) -> AuditChoice:
    """The draws to follow for the judge and options of ``want`` (its seed ignored): the noted
    sample's seed (the oldest when people decided several), ``seed`` when given and noted, seed
    0 (or ``seed``) when no sample was noted (verdicts imported without a ``sample`` column);
    else the mismatch, named."""
    if want is None:
        return AuditChoice(seed or 0, "no judge to audit", False, "the run has no judge")
    same = [s for s in samples if (s.judge_id, s.options) == (want.judge_id, want.options)]
    seeds = list(dict.fromkeys(s.seed for s in same))
    if not samples:
        chosen = 0 if seed is None else seed
        said = f"the draws of seed {chosen} (no audit sample was noted with people's verdicts)"
        return AuditChoice(chosen, said, False)
    if seed is not None and seed not in seeds:
        known = ", ".join(_describe(s) for s in samples)
        why = (
            f"people decided {known}; seed {seed} draws others (leave --seed out to follow theirs)"
        )
        return AuditChoice(seed, f"the draws of seed {seed}", False, why)
    if not seeds:
        known = ", ".join(_describe(s) for s in samples)
        why = (
            f"people decided {known}, not a sample of judge {want.judge_id} under"
            f" {want.options}: its draws are others (audit-sample --judge {want.judge_id} with"
            " these options draws this one's)"
        )
        return AuditChoice(seed or 0, "no sample of this judge and options", False, why)
    chosen = seeds[0] if seed is None else seed
    others = [s for s in seeds if s != chosen]
    said = f"the audit sample of seed {chosen}" + (
        f" (also noted: seed {', '.join(map(str, others))}; --seed picks one)" if others else ""
    )
    return AuditChoice(chosen, said, True)


def _describe(s: AuditSample) -> str:
    return f"the audit sample of judge {s.judge_id}, seed {s.seed}, {s.options}"


def specs_of_sheet(cells: list[tuple[int, str]], source: str) -> dict[SampleSpec, int]:
    """The samples a filled sheet answers, each with its rows: ``cells`` are (line, text) of its
    non-empty ``sample`` cells; a cell that does not read names its file and line."""
    out: dict[SampleSpec, int] = {}
    for line, text in cells:
        try:
            spec = SampleSpec.parse(text)
        except ValueError as exc:
            raise CimemError(f"{source}: line {line}: column sample: expected {exc}") from None
        out[spec] = out.get(spec, 0) + 1
    return out
