"""``metrics``: Violation@n and Completeness per run with the discard report, the paired
comparison and the correction for the judge's errors."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from cimem.analysis.cube import LeakCube
from cimem.analysis.discards import DiscardReport
from cimem.analysis.joint import JointOutcomes, joint_outcomes
from cimem.analysis.label_diff import Fingerprints, context_fingerprints, pairs_of
from cimem.analysis.level_curves import cohort_note_of, profile_set
from cimem.analysis.metrics import (
    MODES,
    NO_LABELS,
    NO_LABELS_HELP,
    Mode,
    PairedComparison,
    RunMetrics,
    Summary,
    compare,
    compute,
)
from cimem.analysis.power import ALPHA, detectable_difference, holm
from cimem.cli.common import jsonable, open_store, pct
from cimem.cli.sources import add_metric_args, add_source_args, map_runs, options_from
from cimem.errors import CimemError
from cimem.text import plural

if TYPE_CHECKING:
    from cimem.analysis.audit.correction import Corrected


def metric_cell(s: Summary, labelled: bool = True) -> str:
    """Mean ± std [95% interval], in points; the interval as the page says it
    (:meth:`Summary.interval_text`: none with one profile)."""
    if not labelled:
        return NO_LABELS
    return f"{pct(s.mean)} ± {pct(s.std).strip()}  {s.interval_text(missing='[n/a, n/a]')}"


def describe_run(m: RunMetrics) -> str:
    options = [f"{what} {value}" for what, value in m.options.described()]
    run = [f"judge {m.judge}", f"n = {m.n_said()}", f"k = {m.k}"]
    how = ", ".join(options[:2] + run + options[2:])
    if m.info.simulated:
        how += " [SIMULATED run, not a measurement of a real model]"
    return how


def _beside(m: RunMetrics) -> str:
    """What Violation@k counts beside the first k full-memory trials (official mode)."""
    counted = m.discarded.trials.partial_memory and m.options.mode == Mode.OFFICIAL
    return " + the partial-memory ones" if counted else ""


def text_report(results: list[RunMetrics], joints: list[JointOutcomes] | None = None) -> str:
    lines = []
    for i, m in enumerate(results):
        ok = m.discarded.note != NO_LABELS_HELP
        lines.append(f"run {m.run}  ({describe_run(m)})")
        if m.info.coverage is not None and m.info.coverage.partial:
            lines.append(f"  every number below is over {m.info.coverage.describe()} of the run")
        lines.append(
            f"  Violation@{m.k:<2} (first {plural(m.k, 'trial')}{_beside(m)})    {metric_cell(m.violation, ok)}"
            + (
                f"   %, mean ± std [95% CI], {plural(m.violation.n_profiles, 'profile')}"
                if ok
                else ""
            )
        )
        lines.append(
            f"  Violation@{m.k:<2} (unbiased estimator) {metric_cell(m.violation_unbiased, ok)}"
        )
        lines.append(f"  Completeness                    {metric_cell(m.completeness, ok)}")
        lines.append(f"  per-message leak rate (naive)   {metric_cell(m.leak_rate, ok)}")
        lines.append(f"  intervals: {m.intervals} (docs/statistics.md)")
        if ok:
            lines.append("  " + these_people_line(m))
        if joints is not None and ok:
            lines.append("  " + joint_line(joints[i]))
        lines.extend("  " + x for x in discard_lines(m.discarded))
        lines.append("")
    return "\n".join(lines).rstrip()


def these_people_line(m: RunMetrics) -> str:
    """The intervals over these people (only the samples varying), where a metric has one."""
    parts = []
    for title, s in (("Completeness", m.completeness), ("leak rate", m.leak_rate)):
        bounds = s.these_people_bounds()
        said = f"[{100 * bounds[0]:.2f}, {100 * bounds[1]:.2f}]" if bounds else "-"
        parts.append(f"{title} {said}" + (f" ({s.these_people_reason()})" if not bounds else ""))
    return (
        "over these people (samples resampled within each profile): "
        + ", ".join(parts)
        + f"; Violation@n none ({m.violation.these_people_reason()})"
    )


def joint_line(j: JointOutcomes) -> str:
    """The joint outcomes in one line (pooled over messages with a needed and a withheld
    attribute)."""
    if not j.messages:
        return "joint: no message has both a needed and a withheld attribute"
    return (
        f"joint, over {plural(j.messages, 'message')}: complete and clean {pct(j.complete_clean).strip()}%,"
        f" complete and leaky {pct(j.complete_leaky).strip()}%, incomplete and clean"
        f" {pct(j.incomplete_clean).strip()}%, incomplete and leaky {pct(j.incomplete_leaky).strip()}%;"
        f" a complete message leaks in {pct(j.leak_among_complete).strip()}%, a clean one's"
        f" Completeness {pct(j.completeness_among_clean).strip()}%"
    )


def discard_lines(d: DiscardReport) -> list[str]:
    p = d.pairs
    out = [
        f"pairs: {p.share:,} share, {p.private:,} private, {p.ambiguous:,} ambiguous"
        f" (ambiguous are out of both metrics; rule {d.label_rule})"
    ]
    if (f := d.identity_filter) is not None:
        out.append(
            f"identity filter: {plural(f.attributes, 'attribute')},"
            f" {plural(f.private_pairs_removed, 'private pair')} removed ({f.rule})"
        )
    if (e := d.excluded_keys) is not None:
        out.append(
            f"excluded keys {', '.join(e.keys)}: {e.private_pairs_removed} private pairs removed"
        )
    cd = d.contexts_dropped
    if cd.count:
        reasons: dict[str, int] = {}
        for c in cd.contexts:
            reasons[c.reason] = reasons.get(c.reason, 0) + 1
        out.append(
            f"contexts dropped from both metrics: {cd.count} ("
            + "; ".join(f"{n} {r}" for r, n in reasons.items())
            + ")"
        )
    t = d.trials
    out.append(
        f"trials: {plural(t.messages, 'message')},"
        f" {plural(t.parse_failures, 'judge reply', 'judge replies')} failed to"
        f" parse ({t.parse_failures_treated}), {plural(t.failed_generations, 'failed generation')},"
        f" {plural(t.judge_errors, 'judge error')}, {t.not_judged:,} not judged"
        + (f"; {partial}" if (partial := t.partial_sentence()) else "")
    )
    for metric, names in d.profiles_without_eligible_set.items():
        out.append(f"profiles without any eligible {metric} item: {', '.join(names)}")
    if d.note is not None:
        out.append(d.note)
    return out


def corrected_lines(m: RunMetrics, c: Corrected, mode: str) -> list[str]:
    """Raw against corrected, side by side, with the method and the audit behind it."""
    r = c.result
    out = [
        f"  {c.method_sentence(mode)}:",
        f"    {'':<16} {'raw':>8}  {'corrected':>9}  95% interval  draws decided (judge yes / no)",
    ]
    for name, v in ((f"Violation@{m.k}", r.violation), ("Completeness", r.completeness)):
        if v.not_estimated:
            out.append(f"    {name:<16} {pct(v.raw):>8}  not corrected: {v.not_estimated}")
            continue
        draws = " / ".join(s.decided for s in v.strata)
        out.append(
            f"    {name:<16} {pct(v.raw):>8}  {pct(v.mean):>9}  [{pct(v.ci95[0]).strip()},"
            f" {pct(v.ci95[1]).strip()}]  {draws}"
        )
    if r.violation.miss_rate is not None:
        out.append(f"    {r.violation.miss_rate.sentence()}, for the leaks it missed in every cell")
    if c.verdicts_outside:
        out.append(f"    {c.verdicts_outside} people's verdicts fall outside the labelled pairs")
    return out


def add_corrected(doc: dict[str, Any], c: Corrected) -> None:
    """JSON: ``corrected`` inside violation and completeness, the error rates beside them."""
    for name, v in (("violation", c.result.violation), ("completeness", c.result.completeness)):
        doc[name]["corrected"] = v.as_dict()
    doc["judge_error"] = c.as_dict()


PEOPLE = "people"  # --corrected-by people: the run's human judge, whatever its id


def human_judge_arg(text: str) -> int | str:
    """--corrected-by takes a judge id or ``people`` (the run's human judge)."""
    if text.strip().lower() in (PEOPLE, "human"):
        return PEOPLE
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(
            f"expected the human judge's id or 'people' (the run's human judge), got {text!r}"
        )
    return int(text)


def corrected_for(args: argparse.Namespace, cube: LeakCube, mode: Mode) -> Corrected:
    """--corrected-by: the run's metrics corrected from the human judge's verdicts."""
    from cimem.analysis.audit.correction import corrected

    with open_store(args, read_only=True) as store:
        human = args.corrected_by
        if human == PEOPLE:
            assert cube.info.run_id is not None
            human = store.find_human_judge(cube.info.run_id)
            if human is None:
                raise CimemError(
                    f"run {cube.info.run_id} has no people's verdicts yet (`human import` or"
                    " the Review page records them)"
                )
        return corrected(store, cube, options_from(args, mode, args.k), human, seed=args.seed)


def paired_line(pc: PairedComparison, a: str, b: str, holm_p: float) -> str:
    """The difference, its interval, its p-value (and Holm's over the runs compared with the
    first), and the smallest difference this many profiles find with 80% power."""
    seen = detectable_difference(pc.sd, len(pc.profiles))
    verdict = "distinguishable" if holm_p < ALPHA else "not distinguishable"
    return (
        f"paired {pc.metric}: {b} - {a} = "
        f"{100 * pc.difference:+.2f} points [{100 * pc.ci95[0]:+.2f},"
        f" {100 * pc.ci95[1]:+.2f}] over {len(pc.profiles)} common profiles; p = {p_text(pc.p_value)}"
        f" (Holm {p_text(holm_p)}): {verdict}; 80% power to see ±{100 * seen:.2f} points"
        f" ({pc.method})"
    )


def p_text(p: float) -> str:
    """A p-value as said: "<0.001" when smaller, "-" when there is none.

    >>> p_text(0.0004), p_text(0.0312), p_text(float("nan"))
    ('<0.001', '0.031', '-')
    """
    return "-" if p != p else "<0.001" if p < 0.001 else f"{p:.3f}"


@dataclass
class RunDigest:
    """What ``metrics`` keeps of a run once its cube is dropped: its numbers in each mode and what
    comparing runs needs, so every run of a lab's database is read one at a time."""

    run: str
    profile_set: str
    fingerprints: Fingerprints
    results: dict[Mode, RunMetrics]
    joints: dict[Mode, JointOutcomes]
    cube: LeakCube | None  # kept for --corrected-by only, which names one run


def digest_run(args: argparse.Namespace, cube: LeakCube, modes: list[Mode]) -> RunDigest:
    """One run's numbers in every mode asked for, computed while its cube is in memory."""
    options = {mode: options_from(args, mode, args.k) for mode in modes}
    return RunDigest(
        run=cube.run,
        profile_set=profile_set(cube),
        fingerprints=context_fingerprints(cube, options[modes[0]].rule),
        results={mode: compute(cube, opts) for mode, opts in options.items()},
        joints={mode: joint_outcomes(cube, opts) for mode, opts in options.items()},
        cube=cube if args.corrected_by is not None else None,
    )


def one_mode(
    args: argparse.Namespace, runs: list[RunDigest], mode: Mode
) -> tuple[dict[str, Any], list[str]]:
    """One mode's JSON document and text parts."""
    results = [r.results[mode] for r in runs]
    joints = [r.joints[mode] for r in runs]
    doc: dict[str, Any] = {
        "mode": mode,
        "label_rule": results[0].options.label_rule,
        "runs": [r.as_dict() | {"joint": j.as_dict()} for r, j in zip(results, joints)],
    }
    text = [text_report(results, joints)]
    apart = cohort_note_of([(r.run, r.profile_set) for r in runs])
    if apart is not None:
        text.append(f"note: {apart}")
        doc["cohort_note"] = apart
    if len(runs) > 1:
        pairs = pairs_of([(r.run, r.fingerprints) for r in runs])
        doc["run_pairs"] = [p.as_dict() for p in pairs]
        text += [
            f"note: {p.run_a} and {p.run_b}: {p.describe()} (`cimem labels diff`)"
            for p in pairs
            if not p.labels_agree
        ]
    if args.corrected_by is not None:
        assert runs[0].cube is not None
        c = corrected_for(args, runs[0].cube, mode)
        add_corrected(doc["runs"][0], c)
        text.append("\n".join(corrected_lines(results[0], c, mode)))
    if args.compare and len(results) >= 2:
        for metric in ("violation", "completeness"):
            pcs = [compare(results[0], r, metric) for r in results[1:]]
            adjusted = holm([pc.p_value for pc in pcs])
            for r, pc, holm_p in zip(results[1:], pcs, adjusted):
                doc.setdefault("comparisons", []).append(
                    jsonable(pc.__dict__)
                    | {"a": results[0].run, "b": r.run, "p_holm": holm_p}
                    | {"detectable_80": detectable_difference(pc.sd, len(pc.profiles))}
                )
                text.append(paired_line(pc, results[0].run, r.run, holm_p))
    return doc, text


ONE_RUN_ONLY = "--corrected-by applies to one run of a database: give one --run"


def cmd_metrics(args: argparse.Namespace) -> int:
    if args.corrected_by is not None and args.results:
        raise CimemError(ONE_RUN_ONLY)
    modes: list[Mode] = list(MODES) if args.mode == "both" else [args.mode]
    only = ONE_RUN_ONLY if args.corrected_by is not None else None
    runs = map_runs(args, True, lambda cube: digest_run(args, cube, modes), only)
    docs: list[dict[str, Any]] = []
    text: list[str] = []
    for mode in modes:
        doc, said = one_mode(args, runs, mode)
        docs.append(doc)
        text.extend(said)
    if args.json:
        print(json.dumps(jsonable(docs[0] if len(docs) == 1 else docs), indent=1))
    else:
        print("\n\n".join(text))
    return 0


def add_metrics_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "metrics",
        help="Violation@n and Completeness with the discard report",
        description="Violation@n (worst case over tasks and samples) and Completeness (average)"
        " per run, mean ± std over profiles with a 95%% interval over people like these (Korn-Graubard), the unbiased"
        " Violation@k, the per-message leak rate, and the discard report that explains the"
        " difference between official and definition mode. Runs are read one at a time: over"
        " every run of a lab's database, memory does not grow with the number of runs.",
    )
    add_source_args(p, many_runs=True)
    add_metric_args(p)
    p.add_argument(
        "--k",
        type=int,
        default=None,
        help="samples per task: Violation@k from the first k trials and the unbiased"
        " estimator at k (default: all n)",
    )
    p.add_argument(
        "--compare",
        action="store_true",
        help="paired difference of every run against the first, over common profiles: paired t"
        " interval and p-value, Holm's correction over the runs compared, and the difference"
        " the comparison sees with 80%% power (docs/statistics.md)",
    )
    p.add_argument(
        "--corrected-by",
        type=human_judge_arg,
        metavar="HUMAN_JUDGE",
        default=None,
        help="also give Violation and Completeness corrected for the judge's errors, estimated"
        " from people's verdicts on the run: `people` (the run's human judge) or its id (see"
        " audit-sample and human import)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="--corrected-by: the audit sample to follow when people decided several (default:"
        " the sample noted with their verdicts)",
    )
    p.add_argument("--json", action="store_true", help="print the JSON contract instead of text")
    p.set_defaults(func=cmd_metrics)
