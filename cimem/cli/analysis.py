"""Analysis commands: ``metrics``, ``growth``, ``agreement``, ``composition``."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cimem.analysis.coverage import check_coverage
from cimem.analysis.cube import LeakCube, cube_from_official
from cimem.analysis.discards import DiscardReport
from cimem.analysis.metrics import (
    MODES,
    NO_LABELS,
    NO_LABELS_HELP,
    MetricOptions,
    Mode,
    RunMetrics,
    compare,
    compute,
)
from cimem.cli.common import add_db, int_list, jsonable, pct
from cimem.errors import CimemError
from cimem.paths import default_db_path


def add_source_args(p: argparse.ArgumentParser, many_runs: bool) -> None:
    src = p.add_mutually_exclusive_group()
    add_db(src)
    src.add_argument(
        "--results",
        metavar="PATH",
        help="read an official run-output file directly, without a database",
    )
    if many_runs:
        p.add_argument(
            "--run",
            action="append",
            metavar="RUN",
            help="run id or name; repeat for several (default: every run with messages)",
        )
    else:
        p.add_argument(
            "--run", metavar="RUN", help="run id or name (default: the only run with messages)"
        )
    p.add_argument(
        "--judge",
        type=int,
        default=None,
        help="judge id whose verdicts to use (default: the run's original verdicts)",
    )
    p.add_argument(
        "--allow-partial",
        action="store_true",
        help="use a judge that judged part of the run; every number is then over the judged"
        " messages only and says so (default: refuse such a judge)",
    )


def add_metric_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mode",
        choices=(*MODES, "both"),
        default="official",
        help="official: the official script's numbers, quirks included; definition: the "
        "paper's Definitions 3.1 and 3.2 literally; both: side by side (default:"
        " official)",
    )
    p.add_argument(
        "--label-rule",
        default="unanimous",
        help="unanimous (official, default), majority or threshold:X with 0.5 < X <= 1",
    )
    p.add_argument(
        "--exclude",
        default="",
        help="definition mode: comma-separated attribute keys to leave out of the"
        " private set (e.g. name,sex,address,age)",
    )
    p.add_argument(
        "--parse-failures",
        choices=("exclude", "zero"),
        default="exclude",
        help="definition mode: leave trials whose judge reply failed to parse out"
        " (default) or count them as nothing revealed",
    )


def load_cubes(args: argparse.Namespace, many: bool) -> list[LeakCube]:
    """The cubes the user named: from --results, or runs of the database."""
    if args.results:
        return [cube_from_official(args.results)]
    from cimem.analysis.cube import cube_from_store
    from cimem.store import Store

    with Store.open(args.db or default_db_path(), read_only=True) as store:
        refs = args.run if many else ([args.run] if args.run else None)
        if refs:
            ids = [store.resolve_run(r) for r in refs]
        else:
            ids = [r.run_id for r in store.list_runs() if r.messages > 0]
            if not ids:
                raise CimemError(
                    f"{store.path} has no run with messages; import one with"
                    " `python -m cimem ingest`"
                )
            if not many and len(ids) > 1:
                raise CimemError(
                    f"{store.path} has {len(ids)} runs with messages; choose one with --run"
                )
        judge = getattr(args, "judge", None)
        if judge is not None and len(ids) > 1:
            raise CimemError("--judge applies to one run: give one --run with it")
        cubes = [cube_from_store(store, i, judge) for i in ids]
    check_coverage(cubes, args.allow_partial, "give --allow-partial")  # PartialJudge: exit 2
    return cubes


def options_from(args: argparse.Namespace, mode: Mode, k: int | None = None) -> MetricOptions:
    exclude = tuple(x.strip() for x in args.exclude.split(",") if x.strip())
    return MetricOptions(
        mode=mode,
        label_rule=args.label_rule,
        exclude=exclude,
        parse_failures=args.parse_failures,
        k=k,
    )


def metric_cell(s, labelled: bool = True) -> str:
    if not labelled:
        return NO_LABELS
    return (
        f"{pct(s.mean)} ± {pct(s.std).strip()}  [{pct(s.ci95[0]).strip()}, "
        f"{pct(s.ci95[1]).strip()}]"
    )


def describe_run(m: RunMetrics) -> str:
    o = m.options
    how = f"mode {o.mode}, label rule {o.label_rule}, judge {m.judge}, n = {m.n_trials}, k = {m.k}"
    if o.mode == "definition":
        how += (
            f", parse failures {o.parse_failures}d"
            if o.parse_failures == "exclude"
            else ", parse failures counted as nothing revealed"
        )
        if o.exclude:
            how += f", excluded keys {','.join(o.exclude)}"
    if m.info.simulated:
        how += " [SIMULATED run, not a measurement of a real model]"
    return how


def text_report(results: list[RunMetrics]) -> str:
    lines = []
    for m in results:
        ok = m.discarded.note != NO_LABELS_HELP
        lines.append(f"run {m.run}  ({describe_run(m)})")
        if m.info.coverage is not None and m.info.coverage.partial:
            lines.append(f"  every number below is over {m.info.coverage.describe()} of the run")
        lines.append(
            f"  Violation@{m.k:<2} (first {m.k} trials)    {metric_cell(m.violation, ok)}"
            + (f"   %, mean ± std [95% CI], {m.violation.n_profiles} profiles" if ok else "")
        )
        lines.append(
            f"  Violation@{m.k:<2} (unbiased estimator) {metric_cell(m.violation_unbiased, ok)}"
        )
        lines.append(f"  Completeness                    {metric_cell(m.completeness, ok)}")
        lines.append(f"  per-message leak rate (naive)   {metric_cell(m.leak_rate, ok)}")
        lines.append(f"  intervals: bootstrap over profiles, {m.bootstrap}")
        lines.extend("  " + x for x in discard_lines(m.discarded))
        lines.append("")
    return "\n".join(lines).rstrip()


def discard_lines(d: DiscardReport) -> list[str]:
    p = d.pairs
    out = [
        f"pairs: {p.share} share, {p.private} private, {p.ambiguous} ambiguous"
        f" (ambiguous are out of both metrics; rule {d.label_rule})"
    ]
    if (f := d.identity_filter) is not None:
        out.append(
            f"identity filter: {f.attributes} attributes, {f.private_pairs_removed}"
            f" private pairs removed ({f.rule})"
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
        f"trials: {t.messages} messages, {t.parse_failures} judge replies failed to"
        f" parse ({t.parse_failures_treated}), {t.failed_generations} failed"
        f" generations, {t.judge_errors} judge errors, {t.not_judged} not judged"
    )
    for metric, names in d.profiles_without_eligible_set.items():
        out.append(f"profiles without any eligible {metric} item: {', '.join(names)}")
    if d.note is not None:
        out.append(d.note)
    return out


def corrected_lines(m: RunMetrics, c) -> list[str]:
    """Raw against corrected, side by side, with the method and the audit behind it."""
    r = c.result
    out = [
        f"  corrected for the judge's errors from people's verdicts (judge {c.human_judge},"
        f" {r.violation.audited_pairs} audited cells; {r.violation.method},"
        f" {r.violation.resamples} resamples):",
        f"    {'':<16} {'raw':>8}  {'corrected':>9}  95% interval",
    ]
    for name, v in ((f"Violation@{m.k}", r.violation), ("Completeness", r.completeness)):
        if v.not_estimated:
            out.append(f"    {name:<16} {pct(v.raw):>8}  not corrected: {v.not_estimated}")
            continue
        out.append(
            f"    {name:<16} {pct(v.raw):>8}  {pct(v.mean):>9}  [{pct(v.ci95[0]).strip()},"
            f" {pct(v.ci95[1]).strip()}]"
        )
    for e in r.error_rates:
        out.append(
            f"    judge on {e.stratum} pairs: sensitivity {pct(e.sensitivity).strip()}%, false"
            f" positives {pct(e.false_positive_rate).strip()}% ({e.audited} audited:"
            f" {e.audited_judge_yes} judge yes, {e.audited_judge_no} judge no)"
        )
    if c.verdicts_outside:
        out.append(f"    {c.verdicts_outside} people's verdicts fall outside the labelled pairs")
    return out


def add_corrected(doc: dict, c) -> None:
    """JSON: ``corrected`` inside violation and completeness, the error rates beside them."""
    for name, v in (("violation", c.result.violation), ("completeness", c.result.completeness)):
        doc[name]["corrected"] = v.as_dict()
    doc["judge_error"] = c.as_dict()


def cmd_metrics(args: argparse.Namespace) -> int:
    cubes = load_cubes(args, many=True)
    if args.corrected_by is not None and (args.results or len(cubes) != 1):
        raise CimemError("--corrected-by applies to one run of a database: give one --run")
    modes: list[Mode] = list(MODES) if args.mode == "both" else [args.mode]
    docs: list[dict[str, Any]] = []
    text: list[str] = []
    for mode in modes:
        results = [compute(c, options_from(args, mode, args.k)) for c in cubes]
        docs.append(
            {
                "mode": mode,
                "label_rule": results[0].options.label_rule,
                "runs": [r.as_dict() for r in results],
            }
        )
        text.append(text_report(results))
        if args.corrected_by is not None:
            from cimem.analysis.audit.correction import corrected
            from cimem.store import Store

            with Store.open(args.db or default_db_path(), read_only=True) as store:
                c = corrected(
                    store,
                    cubes[0],
                    options_from(args, mode, args.k),
                    args.corrected_by,
                    resamples=args.resamples,
                    seed=args.seed,
                )
            add_corrected(docs[-1]["runs"][0], c)
            text.append("\n".join(corrected_lines(results[0], c)))
        if args.compare and len(results) >= 2:
            for r in results[1:]:
                for metric in ("violation", "completeness"):
                    pc = compare(results[0], r, metric)
                    docs[-1].setdefault("comparisons", []).append(
                        jsonable(pc.__dict__) | {"a": results[0].run, "b": r.run}
                    )
                    text.append(
                        f"paired {metric}: {r.run} - {results[0].run} = "
                        f"{100 * pc.difference:+.2f} points [{100 * pc.ci95[0]:+.2f},"
                        f" {100 * pc.ci95[1]:+.2f}] over {len(pc.profiles)} common profiles"
                    )
    if args.json:
        print(json.dumps(jsonable(docs[0] if len(docs) == 1 else docs), indent=1))
    else:
        print("\n\n".join(text))
    return 0


def growth_method(text: str) -> str:
    """--method: the new names, the old 'montecarlo', a clear error for the old 'exact'."""
    from cimem.analysis.growth import method_name

    try:
        return method_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def cmd_growth(args: argparse.Namespace) -> int:
    from cimem.analysis.growth import growth

    cube = load_cubes(args, many=False)[0]
    mode: Mode = "official" if args.mode == "both" else args.mode
    curve = growth(
        cube,
        options_from(args, mode),
        order=args.order,
        tasks=int_list(args.tasks, "--tasks"),
        trials=int_list(args.trials, "--trials"),
        samples=args.samples,
        method=args.method,
        draws=args.draws,
        seed=args.seed,
        fixed_order=int_list(args.fixed_order, "--fixed-order"),
    )
    if args.json:
        doc = {
            "mode": curve.mode,
            "label_rule": curve.label_rule,
            "order": curve.order,
            "samples": curve.samples,
            "tasks": curve.tasks,
            "trials": curve.trials,
            "violation": curve.violation,
            "theory": curve.theory,
            "union_bound": curve.union_bound,
            "stderr": curve.stderr,
            "method": curve.method,
            "run": curve.run,
            "judge": curve.judge,
            "n_tasks": curve.n_tasks,
            "n_trials": curve.n_trials,
        }
        print(json.dumps(jsonable(doc), indent=1))
        return 0
    print(
        f"run {curve.run}: Violation by task count T and samples k  (mode {curve.mode}, label"
        f" rule {curve.label_rule}, judge {curve.judge}, order {curve.order}, method"
        f" {curve.method}, samples {curve.samples}; {curve.n_tasks} tasks, n = {curve.n_trials})"
    )
    head = "     T " + "".join(f"   k={k:<2} obs / 1-(1-p)^k" for k in curve.trials)
    print(head)
    for i, t in enumerate(curve.tasks):
        cells = "".join(
            f"   {pct(curve.violation[i][j])} / {pct(curve.theory[i][j])}      "
            for j in range(len(curve.trials))
        )
        print(f"  {t:4d} {cells}")
    if curve.stderr:
        worst = max((x for row in curve.stderr for x in row if x == x), default=0.0)
        print(f"Monte Carlo standard error: at most {100 * worst:.3f} points")
    if curve.order == "random":
        print(
            "union bound V(T) <= T x V(1) at k = "
            f"{curve.trials[-1]}: "
            + ", ".join(f"T={t}: {pct(b[-1])}" for t, b in zip(curve.tasks, curve.union_bound))
        )
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    from cimem.analysis.agreement import agreement, format_kappa
    from cimem.store import Store

    with Store.open(args.db or default_db_path(), read_only=True) as store:
        run_id = store.resolve_run(args.run)
        judges = store.judges(run_id)
        if args.judges:
            try:
                a, b = (int(x) for x in args.judges.split(","))
            except ValueError:
                raise CimemError("--judges expects two judge ids, e.g. --judges 1,2") from None
        elif len(judges) >= 2:
            a, b = judges[0].judge_id, judges[-1].judge_id
        else:
            raise CimemError(
                f"run {run_id} has {len(judges)} judge(s); agreement needs two"
                " (make one with `python -m cimem judge`)"
            )
        known = {j.judge_id for j in judges}
        for j in (a, b):
            if j not in known:
                raise CimemError(
                    f"judge {j} is not a judge of run {run_id}; its judges are "
                    + ", ".join(f"{x.judge_id} ({x.name})" for x in judges)
                )
        ag = agreement(store, a, b, args.label_rule, max_disagreements=args.show)
    if args.json:
        print(json.dumps(jsonable(ag.as_dict()), indent=1))
        return 0
    o = ag.overall
    print(
        f"judges {a} vs {b}: {o.n} (message, attribute) pairs both decided;"
        f" agreement {100 * o.agreement:.1f}% [{100 * o.agreement_ci95[0]:.1f},"
        f" {100 * o.agreement_ci95[1]:.1f}], Cohen's kappa {format_kappa(o.kappa)}"
    )
    c = o.confusion
    print(
        f"  both revealed {c['both_yes']}, only {a} {c['a_only']}, only {b} {c['b_only']},"
        f" neither {c['both_no']}"
    )
    for title, group in (
        ("by label (rule " + ag.label_rule + ")", ag.by_label),
        ("by domain", ag.by_domain),
        ("by stratum (label / domain)", ag.by_stratum),
    ):
        print(f"  {title}:")
        for k, v in group.items():
            lo, hi = v.agreement_ci95
            print(
                f"    {k:<28} n={v.n:<7} agreement {100 * v.agreement:5.1f}%"
                f" [{100 * lo:5.1f}, {100 * hi:5.1f}]  kappa {format_kappa(v.kappa):>9}"
            )
    print(
        "  (agreement: 95% Wilson interval; kappa is undefined where a judge says the same"
        " on every pair)"
    )
    print(f"  disagreements (first {len(ag.disagreements)}):")
    for d in ag.disagreements:
        print(
            f"    message {d['message_id']} {d['key']} [{d['label']}]: {a}="
            f"{'yes' if d['a_revealed'] else 'no'} {d['a_evidence']!r} | {b}="
            f"{'yes' if d['b_revealed'] else 'no'} {d['b_evidence']!r}"
        )
    return 0


def cmd_composition(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from cimem.analysis.composition import composition_curve
    from cimem.store import Store

    with Store.open(args.db or default_db_path(), read_only=True) as store:
        curve = composition_curve(store, store.resolve_run(args.run), args.judge)
    if args.json:
        print(json.dumps(asdict(curve), indent=1))
        return 0
    print(f"run {curve.run}: memory composition (judge {curve.judge}, parsed judgments only)")
    print("  withheld  messages  leak rate  any leak  completeness")
    for b, n, lr, al, co in zip(
        curve.steps, curve.messages, curve.leak_rate, curve.any_leak, curve.completeness
    ):
        cells = [pct(v) if v is not None else "   -" for v in (lr, al, co)]
        print(f"  {b:8d}  {n:8d}  {cells[0]:>9}  {cells[1]:>8}  {cells[2]:>12}")
    return 0


def add_analysis_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "metrics",
        help="Violation@n and Completeness with the discard report",
        description="Violation@n (worst case over tasks and samples) and Completeness (average)"
        " per run, mean ± std over profiles with a bootstrap 95%% interval, the unbiased"
        " Violation@k, the per-message leak rate, and the discard report that explains the"
        " difference between official and definition mode.",
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
        help="paired difference of every run against the first, over common profiles",
    )
    p.add_argument(
        "--corrected-by",
        type=int,
        metavar="HUMAN_JUDGE",
        default=None,
        help="also give Violation and Completeness corrected for the judge's errors, estimated"
        " from this human judge's verdicts on the run (see audit-sample and human import)",
    )
    p.add_argument(
        "--resamples",
        type=int,
        default=400,
        help="--corrected-by: bootstrap replicates (default 400)",
    )
    p.add_argument("--seed", type=int, default=0, help="--corrected-by: seed (default 0)")
    p.add_argument("--json", action="store_true", help="print the JSON contract instead of text")
    p.set_defaults(func=cmd_metrics)

    p = sub.add_parser(
        "growth",
        help="Violation as tasks and samples accumulate, against 1-(1-p)^k",
        description="Violation as a function of the number of tasks T and samples per task k,"
        " averaged over profiles, with the independence prediction 1-(1-p)^k from each"
        " attribute's per-task leak frequency, and the union bound. Orders: random (the"
        " expectation of Violation over random task subsets, what the paper's Figure 2 samples,"
        " or the ratio of expected counts), fixed (listed order), worst (greedy upper envelope).",
    )
    add_source_args(p, many_runs=False)
    add_metric_args(p)
    p.add_argument("--order", choices=("random", "fixed", "worst"), default="random")
    p.add_argument(
        "--method",
        type=growth_method,
        default="expected-ratio",
        help="random order: expected-ratio (default; the expectation of Violation over random"
        " task subsets, enumerated when there are at most --draws of them, else sampled from"
        " --draws random task orders with its standard error; 'montecarlo' is an old name for"
        " it) or ratio-of-expectations (expected leaked over expected eligible counts, exact)",
    )
    p.add_argument(
        "--draws", type=int, default=400, help="random task orders per profile (expected-ratio)"
    )
    p.add_argument("--seed", type=int, default=0, help="Monte Carlo seed")
    p.add_argument(
        "--samples",
        choices=("first", "unbiased"),
        default="first",
        help="samples per task: the first k trials, or the unbiased estimator",
    )
    p.add_argument("--tasks", help="task counts, e.g. 1,5,10,20,40 (default: every count)")
    p.add_argument("--trials", help="samples per task, e.g. 1,2,3,4,5 (default: 1..n)")
    p.add_argument("--fixed-order", help="fixed order: context positions, e.g. 3,0,1")
    p.add_argument("--json", action="store_true", help="print the JSON contract")
    p.set_defaults(func=cmd_growth)

    p = sub.add_parser(
        "agreement",
        help="agreement and Cohen's kappa of two judges of a run",
        description="Agreement, Cohen's kappa and the confusion matrix of two judges over the"
        " (message, attribute) pairs both decided (messages either judge failed to parse are"
        " left out), split by label and domain, with the disagreements and both evidences.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument("--judges", help="A,B judge ids (default: the first and the last judge)")
    p.add_argument("--label-rule", default="unanimous")
    p.add_argument("--show", type=int, default=20, help="disagreements to list (default 20)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_agreement)

    p = sub.add_parser(
        "composition",
        help="leakage against memory size (runs made with run --composition)",
        description="Per step of the memory-composition experiment (withheld memories added to"
        " each task's needed ones): the leak rate of the withheld memories, the share of messages"
        " leaking any, and completeness. These messages are not part of Violation@n.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument("--judge", type=int, default=None, help="judge id (default: the run's first)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_composition)
