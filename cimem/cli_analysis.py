"""Analysis commands of the CLI: ``metrics`` (and the helpers other analysis commands share)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from .cube import LeakCube, cube_from_official
from .errors import CimemError
from .metrics import MODES, MetricOptions, RunMetrics, compare, compute
from .paths import DEFAULT_DB_ENV, default_db_path


def add_source_args(p: argparse.ArgumentParser, many_runs: bool) -> None:
    src = p.add_mutually_exclusive_group()
    src.add_argument("--db", default=None,
                     help=f"database file (default: ${DEFAULT_DB_ENV} or ./cimem.duckdb)")
    src.add_argument("--results", metavar="PATH",
                     help="read an official run-output file directly, without a database")
    if many_runs:
        p.add_argument("--run", action="append", metavar="RUN",
                       help="run id or name; repeat for several (default: every run with messages)")
    else:
        p.add_argument("--run", metavar="RUN", help="run id or name (default: the only run with"
                       " messages)")
    p.add_argument("--judge", type=int, default=None,
                   help="judge id whose verdicts to use (default: the run's original verdicts)")


def add_metric_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", choices=(*MODES, "both"), default="official",
                   help="official: the official script's numbers, quirks included; definition: the "
                        "paper's Definitions 3.1 and 3.2 literally; both: side by side (default:"
                        " official)")
    p.add_argument("--label-rule", default="unanimous",
                   help="unanimous (official, default), majority or threshold:X with 0.5 < X <= 1")
    p.add_argument("--exclude", default="",
                   help="definition mode: comma-separated attribute keys to leave out of the"
                        " private set (e.g. name,sex,address,age)")
    p.add_argument("--parse-failures", choices=("exclude", "zero"), default="exclude",
                   help="definition mode: leave trials whose judge reply failed to parse out"
                        " (default) or count them as nothing revealed")


def load_cubes(args: argparse.Namespace, many: bool) -> list[LeakCube]:
    """The cubes the user named: from --results, or runs of the database."""
    if args.results:
        return [cube_from_official(args.results)]
    from .cube import cube_from_store
    from .store import Store

    with Store.open(args.db or default_db_path(), read_only=True) as store:
        refs = args.run if many else ([args.run] if args.run else None)
        if refs:
            ids = [store.resolve_run(r) for r in refs]
        else:
            ids = [r.run_id for r in store.list_runs() if r.messages > 0]
            if not ids:
                raise CimemError(f"{store.path} has no run with messages; import one with"
                                 " `python -m cimem ingest`")
            if not many and len(ids) > 1:
                raise CimemError(f"{store.path} has {len(ids)} runs with messages; choose one"
                                 " with --run")
        judge = getattr(args, "judge", None)
        if judge is not None and len(ids) > 1:
            raise CimemError("--judge applies to one run: give one --run with it")
        return [cube_from_store(store, i, judge) for i in ids]


def options_from(args: argparse.Namespace, mode: str, k: int | None = None) -> MetricOptions:
    exclude = tuple(x.strip() for x in args.exclude.split(",") if x.strip())
    return MetricOptions(mode=mode, label_rule=args.label_rule, exclude=exclude,
                         parse_failures=args.parse_failures, k=k)


def jsonable(obj: Any) -> Any:
    """NaN and infinities become null: the JSON output must parse everywhere."""
    if isinstance(obj, float):
        return None if math.isnan(obj) or math.isinf(obj) else obj
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj


def pct(x: float) -> str:
    return "  n/a" if x is None or math.isnan(x) else f"{100 * x:5.2f}"


def metric_cell(s) -> str:
    return (f"{pct(s.mean)} ± {pct(s.std).strip()}  [{pct(s.ci95[0]).strip()}, "
            f"{pct(s.ci95[1]).strip()}]")


def describe_run(m: RunMetrics) -> str:
    o = m.options
    how = f"mode {o.mode}, label rule {o.label_rule}, judge {m.judge}, n = {m.n_trials}, k = {m.k}"
    if o.mode == "definition":
        how += f", parse failures {o.parse_failures}d" if o.parse_failures == "exclude" else \
            ", parse failures counted as nothing revealed"
        if o.exclude:
            how += f", excluded keys {','.join(o.exclude)}"
    if m.info.get("simulated"):
        how += " [SIMULATED run, not a measurement of a real model]"
    return how


def text_report(results: list[RunMetrics]) -> str:
    lines = []
    for m in results:
        lines.append(f"run {m.run}  ({describe_run(m)})")
        lines.append(f"  Violation@{m.k:<2} (first {m.k} trials)    {metric_cell(m.violation)}   %,"
                     f" mean ± std [95% CI], {m.violation.n_profiles} profiles")
        lines.append(f"  Violation@{m.k:<2} (unbiased estimator) {metric_cell(m.violation_unbiased)}")
        lines.append(f"  Completeness                    {metric_cell(m.completeness)}")
        lines.append(f"  per-message leak rate (naive)   {metric_cell(m.leak_rate)}")
        lines.append(f"  intervals: bootstrap over profiles, {m.bootstrap}")
        lines.extend("  " + x for x in discard_lines(m.discarded))
        lines.append("")
    return "\n".join(lines).rstrip()


def discard_lines(d: dict[str, Any]) -> list[str]:
    p = d["pairs"]
    out = [f"pairs: {p['share']} share, {p['private']} private, {p['ambiguous']} ambiguous"
           f" (ambiguous are out of both metrics; rule {d['label_rule']})"]
    if "identity_filter" in d:
        f = d["identity_filter"]
        out.append(f"identity filter: {f['attributes']} attributes, {f['private_pairs_removed']}"
                   f" private pairs removed ({f['rule']})")
    if "excluded_keys" in d:
        e = d["excluded_keys"]
        out.append(f"excluded keys {', '.join(e['keys'])}: {e['private_pairs_removed']} private"
                   " pairs removed")
    cd = d["contexts_dropped"]
    if cd["count"]:
        reasons: dict[str, int] = {}
        for c in cd["list"]:
            reasons[c["reason"]] = reasons.get(c["reason"], 0) + 1
        out.append(f"contexts dropped from both metrics: {cd['count']} ("
                   + "; ".join(f"{n} {r}" for r, n in reasons.items()) + ")")
    t = d["trials"]
    out.append(f"trials: {t['messages']} messages, {t['parse_failures']} judge replies failed to"
               f" parse ({t['parse_failures_treated']}), {t['failed_generations']} failed"
               f" generations, {t['judge_errors']} judge errors, {t['not_judged']} not judged")
    if "profiles_without_eligible_set" in d:
        for metric, names in d["profiles_without_eligible_set"].items():
            out.append(f"profiles without any eligible {metric} item: {', '.join(names)}")
    if "note" in d:
        out.append(d["note"])
    return out


def cmd_metrics(args: argparse.Namespace) -> int:
    cubes = load_cubes(args, many=True)
    modes = list(MODES) if args.mode == "both" else [args.mode]
    docs = []
    text = []
    for mode in modes:
        results = [compute(c, options_from(args, mode, args.k)) for c in cubes]
        docs.append({"mode": mode, "label_rule": results[0].options.label_rule,
                     "runs": [r.as_dict() for r in results]})
        text.append(text_report(results))
        if args.compare and len(results) >= 2:
            for r in results[1:]:
                for metric in ("violation", "completeness"):
                    c = compare(results[0], r, metric)
                    docs[-1].setdefault("comparisons", []).append(jsonable(c.__dict__) | {
                        "a": results[0].run, "b": r.run})
                    text.append(f"paired {metric}: {r.run} - {results[0].run} = "
                                f"{100 * c.difference:+.2f} points [{100 * c.ci95[0]:+.2f},"
                                f" {100 * c.ci95[1]:+.2f}] over {len(c.profiles)} common profiles")
    if args.json:
        print(json.dumps(jsonable(docs[0] if len(docs) == 1 else docs), indent=1))
    else:
        print("\n\n".join(text))
    return 0


def add_analysis_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "metrics", help="Violation@n and Completeness with the discard report",
        description="Violation@n (worst case over tasks and samples) and Completeness (average)"
        " per run, mean ± std over profiles with a bootstrap 95%% interval, the unbiased"
        " Violation@k, the per-message leak rate, and the discard report that explains the"
        " difference between official and definition mode.")
    add_source_args(p, many_runs=True)
    add_metric_args(p)
    p.add_argument("--k", type=int, default=None,
                   help="samples per task: Violation@k from the first k trials and the unbiased"
                        " estimator at k (default: all n)")
    p.add_argument("--compare", action="store_true",
                   help="paired difference of every run against the first, over common profiles")
    p.add_argument("--json", action="store_true", help="print the JSON contract instead of text")
    p.set_defaults(func=cmd_metrics)
