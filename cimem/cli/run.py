"""The ``run`` command: evaluate a model end to end (generate, judge, store; resumable). It also
registers ``label`` (:mod:`cimem.cli.run_label`); what both share is in
:mod:`cimem.cli.run_options`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from cimem.cli.common import add_db, open_store, positive_int, progress_bar
from cimem.cli.run_label import add_label_command
from cimem.cli.run_options import (
    EXIT_INTERRUPTED,
    add_calls_and_cost_args,
    add_endpoint_args,
    add_selection_args,
    generation_bar,
    new_settings,
    prices,
    report_interrupted,
)
from cimem.errors import CimemError

if TYPE_CHECKING:
    from cimem.generate.runner import RunSummary
    from cimem.store import Store


def settings_from(args: argparse.Namespace) -> Any:
    """The settings of a new `run`: the shared ones, the prompt and the judge."""
    if args.offline_judge and args.judge_model:
        raise CimemError("choose --judge-model or --offline-judge, not both")
    judge_in, judge_out = prices(args, args.judge_model, args.judge_price_in, args.judge_price_out)
    return new_settings(
        args,
        "run",
        "--trials",
        args.trials,
        level=args.level,
        prompts=args.prompts,
        memory_format=args.memory_format,
        composition_step=args.composition,
        judge_model=args.judge_model,
        judge_base_url=args.judge_base_url or args.base_url,
        judge_api_key_env=args.judge_api_key_env or args.api_key_env,
        judge_prompts=args.judge_prompts,
        judge_price_in=judge_in,
        judge_price_out=judge_out,
    )


def describe(summary: Any, kept: bool = True) -> str:
    head = "would send" if summary.estimated else "made"
    name = f"run {summary.run_id}" if kept else "dry run (nothing stored)"
    lines = [
        f"{name}: {summary.slots} slots (profile x context x trial)",
        f"  generation: {head} {summary.calls} calls, {summary.cached} from the cache"
        + ("" if summary.estimated else f", {summary.failed} failed after retries"),
    ]
    if summary.estimated:
        lines.append(f"  judge: {summary.judge_calls} calls")
        lines.append(
            f"  estimated tokens: {summary.prompt_tokens:,} prompt,"
            f" {summary.completion_tokens:,} completion (about 4 characters per token;"
            " each reply assumed max-tokens long)"
        )
        lines.append(
            f"  estimated cost: ${summary.cost:.4f} (from the prices in the run's settings)"
        )
        return "\n".join(lines)
    lines.append(
        f"  judge: {summary.judged} messages judged, {summary.judge_calls} calls made,"
        f" {summary.parse_failures} parse failures, {summary.judge_errors} errors"
    )
    lines.append(
        f"  tokens: {summary.prompt_tokens:,} prompt, {summary.completion_tokens:,}"
        f" completion; cost ${summary.cost:.4f}; {summary.seconds:.1f} s"
    )
    if summary.failed or summary.judge_errors:
        lines.append(
            f"  failures are recorded with their error: try them again with"
            f" `python -m cimem run --resume {summary.run_id} --retry-failed`"
        )
    return "\n".join(lines)


def cmd_run(args: argparse.Namespace) -> int:
    """Exit 1 while failures remain (so scripts notice), 130 on Ctrl-C (the run stays)."""
    import cimem.generate.runner as runner

    _check_run_args(args)
    rehearsal = args.dry_run and args.resume is None
    with open_store(args) as store:
        if args.resume is not None:
            run_id = store.resolve_run(args.resume)
            settings = runner.settings_of(store, run_id)
            if not args.dry_run:
                _announce_resume(store, run_id, args.retry_failed)
            summary = _run_with_progress(store, run_id, settings, args)
        elif rehearsal:
            with store.rolled_back():  # a dry run leaves nothing behind, not even a run id
                run_id, settings = _new_run(store, args)
                summary = _run_with_progress(store, run_id, settings, args)
        else:
            run_id, settings = _new_run(store, args)
            summary = _run_with_progress(store, run_id, settings, args)
        if summary is None:
            return EXIT_INTERRUPTED
    print(describe(summary, kept=not rehearsal))
    # failures left over make a non-zero exit, so scripts notice them
    return 1 if summary.failed or summary.judge_errors else 0


def _check_run_args(args: argparse.Namespace) -> None:
    """A run is either new (--profiles) or resumed (--resume, with its stored settings)."""
    if args.resume is None and not args.profiles:
        raise CimemError("give --profiles PATH for a new run, or --resume RUN")
    if args.resume is not None and args.profiles:
        raise CimemError("--resume continues a run with its stored settings: leave out --profiles")
    if args.retry_failed and args.resume is None:
        raise CimemError("--retry-failed needs --resume RUN")


def _new_run(store: Store, args: argparse.Namespace) -> tuple[int, Any]:
    """A new run from the options, with a warning when it will have no labels and (unless a dry
    run) how to resume it if it stops."""
    import cimem.generate.runner as runner

    settings = settings_from(args)
    labels_from = store.resolve_run(args.labels_from) if args.labels_from else None
    run_id = runner.create_run(
        store, args.profiles, settings, name=args.name, labels_from=labels_from
    )
    if not store.labels_of_run(run_id):
        print(
            f"note: {args.profiles} carries no labels, so this run will have none:"
            " its messages and verdicts are stored, but Violation and Completeness"
            " need labels of which memories each task needs or must withhold. Give"
            " --labels-from RUN (an imported labelled run, e.g. the Hugging Face"
            " release) or make a `cimem label` run first.",
            file=sys.stderr,
            flush=True,
        )
    if not args.dry_run:
        print(
            f"run {run_id} created; if it stops, continue it with"
            f" `python -m cimem run --resume {run_id}`",
            file=sys.stderr,
            flush=True,
        )
    return run_id, settings


def _announce_resume(store: Store, run_id: int, retry_failed: bool) -> None:
    """Before a resume spends anything: how many calls are left and what they will cost."""
    import cimem.generate.runner as runner

    ahead = runner.run(store, run_id, retry_failed=retry_failed, dry_run=True)
    print(
        f"resuming run {run_id}: {ahead.calls} generation calls to make again"
        f" ({ahead.cached} answered from the call cache), estimated cost"
        f" ${ahead.cost:.4f}",
        file=sys.stderr,
        flush=True,
    )


def _run_with_progress(
    store: Store, run_id: int, settings: Any, args: argparse.Namespace
) -> RunSummary | None:
    """Generate and judge with a bar for each; None when Ctrl-C stopped it (the hint is printed)."""
    import cimem.generate.runner as runner

    update, close = generation_bar(settings)
    judge_update, judge_close = progress_bar("judge", unit="msg")
    try:
        return runner.run(
            store,
            run_id,
            retry_failed=args.retry_failed,
            dry_run=args.dry_run,
            on_progress=update,
            on_judge_progress=judge_update,
            chunk=args.chunk,
        )
    except KeyboardInterrupt:
        report_interrupted("run", run_id)
        return None
    finally:
        close()
        judge_close()


def add_run_commands(sub: argparse._SubParsersAction) -> None:
    """Register the two commands that call a model, in the order `--help` lists them."""
    _add_run_command(sub)
    add_label_command(sub)


def _add_run_command(sub: argparse._SubParsersAction) -> None:
    """`run`: its options in the order of the help groups."""
    p = sub.add_parser(
        "run",
        help="evaluate a model end to end: generate, judge, store (resumable)",
        description="Build each task prompt from a profile's memory and a context, call the model"
        " under test (any OpenAI-compatible endpoint), judge every message, and store it all as a"
        " new run. Every completed call is written to the database's call cache as it arrives:"
        " a run stopped at any point continues with --resume RUN and makes only the missing"
        " calls. Calls that still fail after their retries are recorded as failures, never as"
        " empty messages; --retry-failed tries them again. API keys are read from the named"
        " environment variables and never stored.",
    )
    add_db(p)
    _add_run_target_args(p)
    _add_model_under_test_args(p.add_argument_group("model under test"))
    _add_run_selection_args(p.add_argument_group("selection"))
    _add_judge_args(p.add_argument_group("judge (default: the offline judge)"))
    add_calls_and_cost_args(p)
    c = p.add_argument_group("judge prices")
    c.add_argument(
        "--judge-price-in", type=float, default=None, help="judge: USD per M prompt tokens"
    )
    c.add_argument(
        "--judge-price-out", type=float, default=None, help="judge: USD per M completion tokens"
    )
    p.set_defaults(func=cmd_run)


def _add_run_target_args(p: argparse.ArgumentParser) -> None:
    """Which run: a new one from a profiles file, or one to resume; and whether to only estimate."""
    p.add_argument(
        "--profiles",
        metavar="PATH",
        help="official profiles.json, or a results file whose profiles and labels to use",
    )
    p.add_argument("--resume", metavar="RUN", help="continue a run with its stored settings")
    p.add_argument(
        "--retry-failed",
        action="store_true",
        help="with --resume: call the failed generations and judge calls again",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the calls, estimated tokens and cost; send nothing, store nothing",
    )
    p.add_argument("--name", help="name of the new run (default: MODEL level N)")
    p.add_argument(
        "--chunk",
        type=positive_int,
        metavar="N",
        help="messages generated, judged and stored together (default: 16 per concurrent call,"
        " at least 16): the app shows the run growing by this many, and a stop loses at most"
        " this many messages' storing (their calls are cached)",
    )


def _add_model_under_test_args(g: argparse._ArgumentGroup) -> None:
    """The endpoint, and how each task prompt is built and answered."""
    add_endpoint_args(g)
    g.add_argument("--max-tokens", type=int, default=1024, help="reply limit (default 1024)")
    g.add_argument("--trials", type=int, default=5, help="samples per task (default 5)")
    g.add_argument(
        "--level",
        type=int,
        choices=(1, 2, 3, 4),
        default=1,
        help="prompt level: 1 plain task (default), 2 share only what is needed,"
        " 3 privacy first, 4 complete and private",
    )
    g.add_argument(
        "--prompts",
        metavar="PATH",
        help="official-format prompts.yaml: its task_solving text (the paper's wording)",
    )
    g.add_argument(
        "--memory-format",
        choices=("official", "bullets", "json"),
        default="official",
        help="how the memory is written into the prompt (default official)",
    )


def _add_run_selection_args(s: argparse._ArgumentGroup) -> None:
    """The selection `label` has too, plus the composition experiment and borrowed labels."""
    add_selection_args(s)
    s.add_argument(
        "--composition",
        type=int,
        metavar="STEP",
        help="composition experiment: keep each context's needed attributes and add"
        " withheld ones in steps of STEP (the paper used 10); needs labels",
    )
    s.add_argument(
        "--labels-from",
        metavar="RUN",
        help="copy labels from another run (matched by name, recipient, task, key)",
    )


def _add_judge_args(j: argparse._ArgumentGroup) -> None:
    """The judge of the run's messages: an LLM judge when --judge-model is given, else offline."""
    j.add_argument("--judge-model", help="LLM judge model name (temperature 0)")
    j.add_argument("--judge-base-url", help="judge endpoint (default: --base-url)")
    j.add_argument("--judge-api-key-env", help="judge key variable (default: --api-key-env)")
    j.add_argument(
        "--judge-prompts",
        metavar="PATH",
        help="official-format prompts.yaml whose adversary_reveal prompt to use",
    )
    j.add_argument(
        "--offline-judge",
        action="store_true",
        help="use the deterministic offline judge (the default without --judge-model)",
    )
