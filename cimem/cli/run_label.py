"""The ``label`` command: persona labels of which memories each task needs or must withhold, made
by a model as a labelling run (resumable, like ``run``)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from cimem.cli.common import add_db, open_store
from cimem.cli.run_options import (
    EXIT_INTERRUPTED,
    add_calls_and_cost_args,
    add_endpoint_args,
    add_selection_args,
    generation_bar,
    new_settings,
    report_interrupted,
)
from cimem.errors import CimemError
from cimem.store.enums import RunKind

if TYPE_CHECKING:
    from cimem.generate.labelling import LabelSummary
    from cimem.store import Store


def cmd_label(args: argparse.Namespace) -> int:
    """Exit 1 while failed calls remain (a resume makes them again), 130 on Ctrl-C."""
    if (args.resume is None) == (args.profiles is None):
        raise CimemError("give --profiles PATH for a new labelling run, or --resume RUN")
    rehearsal = args.dry_run and args.resume is None
    with open_store(args) as store:
        if args.resume is not None:
            run_id, settings = _resumed_label_run(store, args.resume)
            summary = _label_with_progress(store, run_id, settings, args.dry_run)
        elif rehearsal:
            with store.rolled_back():  # a dry run leaves nothing behind, not even a run id
                run_id, settings = _new_label_run(store, args)
                summary = _label_with_progress(store, run_id, settings, args.dry_run)
        else:
            run_id, settings = _new_label_run(store, args)
            summary = _label_with_progress(store, run_id, settings, args.dry_run)
        if summary is None:
            return EXIT_INTERRUPTED
    print(describe_labels(summary, settings.trials, not rehearsal))
    if summary.estimated:
        return 0
    return 1 if summary.failed else 0


def _resumed_label_run(store: Store, run: str) -> tuple[int, Any]:
    """The run to continue and its stored settings; only a labelling run resumes as one."""
    import cimem.generate.runner as runner

    run_id = store.resolve_run(run)
    if store.run_config(run_id)["kind"] != RunKind.LABELS:
        raise CimemError(f"run {run_id} is not a labelling run (made by `cimem label`)")
    return run_id, runner.settings_of(store, run_id)


def _new_label_run(store: Store, args: argparse.Namespace) -> tuple[int, Any]:
    """A new labelling run from the options; a real one says how to resume it if it stops."""
    import cimem.generate.labelling as labelling

    settings = new_settings(args, "labelling run", "--samples", args.samples)
    run_id = labelling.create_label_run(store, args.profiles, settings, name=args.name)
    if not args.dry_run:
        print(
            f"labelling run {run_id} created; if it stops, continue it with"
            f" `python -m cimem label --resume {run_id}`",
            file=sys.stderr,
            flush=True,
        )
    return run_id, settings


def _label_with_progress(
    store: Store, run_id: int, settings: Any, dry_run: bool
) -> LabelSummary | None:
    """Label the run with a progress bar; None when Ctrl-C stopped it (the hint is printed)."""
    import cimem.generate.labelling as labelling

    update, close = generation_bar(settings)
    try:
        return labelling.label_run(store, run_id, dry_run=dry_run, on_progress=update)
    except KeyboardInterrupt:
        report_interrupted("label", run_id)
        return None
    finally:
        close()


def describe_labels(summary: LabelSummary, samples: int, kept: bool = True) -> str:
    """What a labelling pass did (a dry run: would do), with every way a sample can fall short."""
    name = f"labelling run {summary.run_id}" if kept else "dry run (nothing stored)"
    what = "would send" if summary.estimated else "made"
    lines = [
        f"{name}: {summary.pairs} (profile, context) pairs x 3 personas x {samples}"
        f" samples: {what} {summary.calls} calls, {summary.cached} from the cache"
    ]
    if summary.estimated:
        lines.append(
            f"  estimated tokens: {summary.prompt_tokens:,} prompt, {summary.completion_tokens:,}"
            f" completion; estimated cost ${summary.cost:.4f}"
        )
        return "\n".join(lines)
    lines.append(
        f"  {summary.failed} calls failed after retries (a resume makes them again),"
        f" {summary.unparsed} replies without the JSON answer, {summary.conflicts} memories"
        f" in both lists (counted as unlabeled)"
    )
    lines.append(
        f"  {summary.unmatched} returned memories matched none of the profile's"
        + (": " + "; ".join(repr(e) for e in summary.examples) if summary.examples else "")
    )
    lines.append(
        f"  pairs without a combined label: {summary.unlabeled_pairs}; tokens"
        f" {summary.prompt_tokens + summary.completion_tokens:,}; cost ${summary.cost:.4f};"
        f" {summary.seconds:.1f} s"
    )
    lines.append(
        "  use the labels in a model run with"
        f" `python -m cimem run ... --labels-from {summary.run_id}`"
    )
    return "\n".join(lines)


def add_label_command(sub: argparse._SubParsersAction) -> None:
    """`label`: its own endpoint and selection groups, the same call options as `run`."""
    p = sub.add_parser(
        "label",
        help="label which memories each task needs or must withhold (3 personas)",
        description="Ask a model, in the voice of three personas after Westin's privacy typology"
        " (fundamentalist, pragmatic, unconcerned), which memories each (profile, context) task"
        " needs and which the persona would not share, --samples times each. Stores per-persona"
        " fractions and the combined view weighted 0.26 / 0.64 / 0.10 as a new labelling run;"
        " use it with `run --labels-from RUN`. Same call cache and resume rules as `run`.",
    )
    add_db(p)
    p.add_argument("--profiles", metavar="PATH", help="official profiles.json or a results file")
    p.add_argument(
        "--resume",
        metavar="RUN",
        help="continue a labelling run (failed calls are made again: they are never cached)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls, estimated tokens and cost; send nothing, store nothing",
    )
    p.add_argument("--name", help="name of the labelling run")
    p.add_argument("--samples", type=int, default=10, help="samples per persona (default 10)")
    p.add_argument("--max-tokens", type=int, default=1024, help="reply limit (default 1024)")
    add_endpoint_args(p.add_argument_group("labelling model"))
    add_selection_args(p.add_argument_group("selection"))
    add_calls_and_cost_args(p)
    p.set_defaults(func=cmd_label)
