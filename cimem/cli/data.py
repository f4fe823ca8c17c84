"""Commands over the database's runs: ``ingest``, ``runs``, ``export``, ``demo``."""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from cimem.analysis.intervals import INTERVALS_SAID
from cimem.cli.common import add_db, open_store, progress_bar, table
from cimem.errors import CimemError

if TYPE_CHECKING:
    from cimem.ingest import Told
    from cimem.store.rows import JudgeInfo, RunSummary
from cimem.analysis.labels import LabelRule
from cimem.analysis.metrics import MODES, MetricOptions, RunMetrics
from cimem.ingest import Told, ingest_or_find
from cimem.ingest.formats import SourceFormat
from cimem.text import plural


def cmd_ingest(args: argparse.Namespace) -> int:

    paths = ingest_paths(args.paths)
    if args.name and len(paths) > 1:
        raise CimemError("--name names one run: give one file with it")
    told = told_of(args)
    with open_store(args) as store:
        for path in paths:
            update, close = progress_bar(f"ingest {path}")
            try:
                res = ingest_or_find(
                    store, path, model=args.model, fmt=args.format, progress=update, told=told
                )
            finally:
                close()
            if res.created:
                print(
                    f"run {res.run_id} ({res.name}): {res.source_format},"
                    f" {plural(res.profiles, 'profile')}, {plural(res.messages, 'message')},"
                    f" {plural(res.verdicts, 'verdict')}"
                )
            elif res.judges_added:
                print(
                    f"run {res.run_id} ({res.name}): {path} adds"
                    f" {plural(res.judges_added, 'judge')} (its new REVEAL scores),"
                    f" {plural(res.verdicts, 'verdict')}"
                )
            else:
                print(
                    f"run {res.run_id} ({res.name}): {path} was already imported "
                    "(same content hash, or an Inspect log of a run with all its scores);"
                    " nothing added" + _not_applied(args, res.run_id)
                )
    return 0


TOLD_OPTIONS = ("name", "model", "level", "memory_format", "judge_model", "judge_prompts")


def _not_applied(args: argparse.Namespace, run_id: int) -> str:
    """What a re-import was told that the run already imported does not take, and where it can
    be changed (empty when nothing was told)."""
    given = [o for o in TOLD_OPTIONS if getattr(args, o, None) not in (None, "")]
    if not given:
        return ""
    said = ", ".join("--" + o.replace("_", "-") for o in given)
    return (
        f"; {said} not applied: the run keeps what it was imported with. Change it on the Data"
        f' page (run {run_id}: rename, and "What made run {run_id}")'
    )


def told_of(args: argparse.Namespace) -> Told:
    """What the person importing says made the run: --name, --level, --memory-format, and the
    judge's --judge-model and --judge-prompts (its prompt hashed as `judge` hashes it)."""
    from cimem.llm.prompts import load_judge_prompt

    prompt_hash = load_judge_prompt(args.judge_prompts).hash if args.judge_prompts else None
    return Told(
        name=args.name,
        level=args.level,
        memory_format=args.memory_format,
        judge_model=args.judge_model,
        judge_prompt_hash=prompt_hash,
    )


def run_document(run: RunSummary, judges: list[JudgeInfo]) -> dict[str, object]:
    """One run as `runs --json` prints it: its summary, its creation time as ISO text and its
    judges (id, kind, name, model), for scripts that pick a run or a judge by name."""
    return asdict(run) | {
        "created_at": run.created_at.isoformat(),
        "judge_list": [
            {"judge_id": j.judge_id, "kind": str(j.kind), "name": j.name, "model": j.model}
            for j in judges
        ],
    }


def cmd_runs(args: argparse.Namespace) -> int:
    if args.leaderboard:
        return cmd_leaderboard(args)
    if args.sort is not None:
        raise CimemError("--sort orders the leaderboard: give --leaderboard with it")
    with open_store(args, read_only=True) as store:
        runs = store.list_runs()
        judges = {r.run_id: store.judges(r.run_id) for r in runs} if args.json else {}
    if args.json:
        docs = [run_document(r, judges[r.run_id]) for r in runs]
        print(json.dumps(docs, indent=2))
        return 0
    if not runs:
        print("no runs yet: import one with `python -m cimem ingest FILE`")
        return 0
    header = (
        "id",
        "name",
        "kind",
        "model",
        "source",
        "profiles",
        "contexts",
        "trials",
        "messages",
        "verdicts",
        "judges",
    )
    rows = [
        (
            str(r.run_id),
            r.name + (" [simulated]" if r.simulated else ""),
            r.kind,
            r.model or "-",
            r.source_format,
            str(r.profiles),
            str(r.contexts),
            "-" if r.n_trials is None else str(r.n_trials),
            str(r.messages),
            str(r.verdicts),
            str(r.judges),
        )
        for r in runs
    ]
    print(table(header, rows))
    return 0


def cmd_leaderboard(args: argparse.Namespace) -> int:
    """Every run with how it was made and its Violation@n and Completeness (original
    verdicts), grouped by model and level or sorted as asked."""
    from cimem.analysis import leaderboard as lb

    rule = LabelRule.parse(args.label_rule).name
    opts = MetricOptions(mode=args.mode, label_rule=rule)
    with open_store(args, read_only=True) as store:
        board = lb.entries(store.leaderboard_facts())
        metrics: dict[int, RunMetrics] = {}
        for run_id in (e.run_id for e in board if e.messages > 0):
            metrics |= lb.run_metrics(store, [run_id], opts)
            store.release_cache()  # one run's blocks in memory at a time, however many runs
    shown = lb.sort_table(lb.table(board, metrics), lb.SortKey(args.sort or lb.SortKey.GROUPED))
    how = {"mode": opts.mode, "label_rule": opts.label_rule, "verdicts": "original"}
    if args.json:
        print(json.dumps({**how, "runs": lb.as_records(shown)}, indent=2, default=str))
        return 0
    if shown.empty:
        print("no runs yet: import one with `python -m cimem ingest FILE`")
        return 0
    cells = shown.drop(columns=["run_id"]).astype(object).where(shown.notna(), "-")
    print(table(tuple(cells.columns), [tuple(map(str, r)) for r in cells.itertuples(index=False)]))
    print(
        f"{lb.summary(board)}; mode {opts.mode}, label rule {opts.label_rule}, each run's"
        f" original verdicts; {INTERVALS_SAID}"
    )
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from cimem.ingest.export import export_official

    if args.format == "inspect":
        return _export_inspect(args)
    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        update, close = progress_bar("export", unit="profile")
        try:
            counts = export_official(store, run_id, args.out, judge_id=args.judge, progress=update)
        finally:
            close()
    note = (
        f" ({counts['skipped_failed']} failed generations left out)"
        if counts["skipped_failed"]
        else ""
    )
    print(
        f"wrote {args.out}: {plural(counts['profiles'], 'profile')},"
        f" {plural(counts['messages'], 'message')}, {plural(counts['verdicts'], 'verdict')}{note}"
    )
    return 0


def _export_inspect(args: argparse.Namespace) -> int:
    """`export --format inspect`: the run as an Inspect log that `inspect view` opens."""
    from cimem.inspect_eval.export_log import export_inspect

    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        counts = export_inspect(store, run_id, args.out, judge_id=args.judge)
    note = (
        f" ({counts['skipped_failed']} failed generations left out)"
        if counts["skipped_failed"]
        else ""
    )
    print(f"wrote {args.out}: an Inspect log, {plural(counts['samples'], 'sample')}{note}")
    return 0


def ingest_paths(paths: list[str]) -> list[str]:
    """The files to import: each file as given, each folder's Inspect logs (``*.eval``) in name
    order; a folder without logs is an error."""
    out = []
    for path in paths:
        folder = Path(path)
        if not folder.is_dir():
            out.append(path)
            continue
        logs = sorted(str(p) for p in folder.glob("*.eval") if p.is_file())
        if not logs:
            raise CimemError(f"{folder}: a folder is read for its Inspect logs (*.eval): none here")
        out += logs
    return out


def cmd_demo(args: argparse.Namespace) -> int:
    import cimem.demo.simulate as demo

    if not args.out and not args.db:
        raise CimemError("give --out DIR (write the bundle) and/or --db PATH (import it)")
    if args.out:
        manifest = demo.build_bundle(
            args.out, seed=args.seed if args.seed is not None else demo.DEMO_SEED
        )
        print(f"wrote the simulated demo bundle to {args.out}: {len(manifest['files'])} files")
    if args.db:
        bundle = args.bundle or args.out
        runs = demo.build_demo_database(args.db, bundle)
        print(f"demo runs in {args.db}: {', '.join(map(str, runs))} (simulated)")
    return 0


def add_data_commands(sub: argparse._SubParsersAction) -> None:
    """Register the commands over the database's runs, in the order `--help` lists them."""
    _add_ingest_command(sub)
    _add_runs_command(sub)
    _add_export_command(sub)
    _add_demo_command(sub)


def _add_ingest_command(sub: argparse._SubParsersAction) -> None:
    """`ingest`: files in, runs out (one transaction per file)."""
    p = sub.add_parser(
        "ingest",
        help="import result, profile or label files as runs",
        description="Import files as runs: the official run-output (results.jsonl),"
        " the official profiles.json, Hugging Face rows (Parquet/CSV/JSONL) or a"
        " PersistBench CIM file, or an Inspect log of the cimemories task (.eval;"
        " a folder: its logs). The format is detected; the same file twice is"
        " imported once. Each file is one transaction.",
    )
    p.add_argument(
        "paths", nargs="+", metavar="PATH", help="files to import (a folder: its *.eval logs)"
    )
    add_db(p)
    p.add_argument("--name", help="name of the new run (default: the file name)")
    p.add_argument(
        "--model",
        help="model that wrote the messages (for PersistBench files with"
        " several models: which one to import)",
    )
    p.add_argument(
        "--format",
        choices=[str(f) for f in SourceFormat],
        help="skip detection and read the file as this format",
    )
    made = p.add_argument_group(
        "what made the run (the official format does not say; shown on the leaderboard, in"
        " reports and `runs --json`)"
    )
    made.add_argument("--level", type=int, choices=(1, 2, 3, 4), help="prompt level of the run")
    made.add_argument(
        "--memory-format",
        choices=("official", "bullets", "json"),
        help="how the memory was written into the prompt",
    )
    made.add_argument("--judge-model", help="the model that judged the file's verdicts")
    made.add_argument(
        "--judge-prompts",
        metavar="PATH",
        help="the prompts.yaml whose adversary_reveal prompt that judge used (its hash is kept)",
    )
    p.set_defaults(func=cmd_ingest)


def _add_runs_command(sub: argparse._SubParsersAction) -> None:
    """`runs`: the list of runs in a database."""
    from cimem.analysis.choices import SortKey

    p = sub.add_parser(
        "runs",
        help="list the runs in a database, or their leaderboard",
        description="One row per run: id, name, kind, model, source format, profiles,"
        " contexts, trials, messages, verdicts, judges. With --leaderboard: every run's"
        " model, prompt level and set, memory format, judges, profiles and their cohort"
        " (runs over the same profiles share one), n, Violation@n and Completeness with"
        " 95% intervals (each run's original verdicts), messages and date, grouped"
        " by model and level. A field the run does not record is 'unknown'.",
    )
    add_db(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument(
        "--leaderboard", action="store_true", help="every run with its numbers (reads every run)"
    )
    p.add_argument(
        "--sort",
        choices=[str(k) for k in SortKey],
        default=None,
        help="leaderboard order: grouped by model and level (default), lowest violation,"
        " highest completeness, newest, or run id",
    )
    p.add_argument(
        "--mode",
        choices=MODES,
        default="official",
        help="leaderboard: official (default) or definition mode",
    )
    p.add_argument(
        "--label-rule",
        default="unanimous",
        help="leaderboard: unanimous (default), majority or threshold:X",
    )
    p.set_defaults(func=cmd_runs)


def _add_export_command(sub: argparse._SubParsersAction) -> None:
    """`export`: a run back in the official format."""
    p = sub.add_parser(
        "export",
        help="write a run in the official run-output format",
        description="Write a run as official results.jsonl so the official"
        " scripts read it. Label fractions, messages and verdicts round-trip.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument(
        "--format",
        choices=("official", "inspect"),
        default="official",
        help="official results.jsonl, or an Inspect log (.eval) that `inspect view` opens",
    )
    p.add_argument(
        "--judge",
        type=int,
        default=None,
        help="judge id whose verdicts to write (default: the run's original verdicts)",
    )
    p.add_argument("--out", required=True, help="output file (written atomically)")
    p.set_defaults(func=cmd_export)


def _add_demo_command(sub: argparse._SubParsersAction) -> None:
    """`demo`: the simulated demo bundle and its database."""
    p = sub.add_parser(
        "demo",
        help="build the embedded demo bundle or a demo database",
        description="Regenerate the SIMULATED demo bundle (deterministic: the same"
        " seed gives the same bytes) with --out, and/or import it into a database"
        " with --db. None of it measures a real model.",
    )
    p.add_argument("--out", help="write the bundle here (the repository keeps it in data/demo)")
    p.add_argument("--seed", type=int, default=None, help="generator seed (default: the demo's)")
    p.add_argument("--db", default=None, help="import the bundle into this database")
    p.add_argument("--bundle", default=None, help="bundle to import (default: data/demo)")
    p.set_defaults(func=cmd_demo)
