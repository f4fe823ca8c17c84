"""Commands that call a model: ``run`` (generate, judge, store; resumable) and ``label``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cimem.cli.common import add_call_args, add_db, int_list, parse_where, progress_bar
from cimem.errors import CimemError
from cimem.paths import default_db_path

if TYPE_CHECKING:
    from cimem.llm.calls import CallProgress


def price_table(path: str | None) -> dict[str, tuple[float, float]]:
    """A price table the user keeps: YAML or JSON ``{model: {input: USD, output: USD}}`` per
    million tokens. Models not in it cost what the --price flags say (default 0)."""
    if not path:
        return {}
    from cimem.llm.prompts import load_yaml_mapping

    data = load_yaml_mapping(path, "price table", "a mapping {model: {input: X, output: Y}}")
    table = {}
    for model, entry in data.items():
        try:
            table[str(model)] = (float(entry["input"]), float(entry["output"]))
        except (TypeError, KeyError, ValueError):
            raise CimemError(
                f"{path}: model {model!r}: expected {{input: USD per million"
                f" tokens, output: USD per million tokens}}, got {entry!r}"
            ) from None
    return table


def _prices(
    args: argparse.Namespace, model: str | None, flag_in: float | None, flag_out: float | None
) -> tuple[float, float]:
    """Flags first, then the price table, then 0."""
    table_in, table_out = price_table(args.prices).get(model or "", (0.0, 0.0))
    return (
        flag_in if flag_in is not None else table_in,
        flag_out if flag_out is not None else table_out,
    )


def new_settings(
    args: argparse.Namespace, what: str, trials_flag: str, trials: int, **only: Any
) -> Any:
    """The settings of a new run from the options `run` and `label` share (endpoint, selection,
    calls, prices). `trials` is the number of samples per task, given by the option named
    `trials_flag` (`--trials` or `--samples`); `only` holds the fields one command alone sets.
    Raises CimemError naming the bad option."""
    from cimem.generate.runner import RunSettings

    if not args.model:
        raise CimemError(
            f"a new {what} needs --model (and --base-url for anything but OpenAI), or --resume RUN"
        )
    if trials < 1:
        raise CimemError(f"{trials_flag} {trials}: at least 1")
    where = parse_where(args.where, keys=("profile", "context"))
    profiles, contexts = where.profiles or None, where.contexts or None
    listed = int_list(args.contexts, "--contexts")
    if listed is not None:
        contexts = sorted(set(contexts or []) | set(listed))
    price_in, price_out = _prices(args, args.model, args.price_in, args.price_out)
    return RunSettings(
        model=args.model,
        base_url=args.base_url,
        api_key_env=args.api_key_env,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        trials=trials,
        profiles_limit=args.profiles_limit,
        profiles=profiles,
        contexts=contexts,
        concurrency=args.concurrency,
        rpm=args.rpm,
        timeout=args.timeout,
        retries=args.retries,
        price_in=price_in,
        price_out=price_out,
        **only,
    )


def settings_from(args: argparse.Namespace) -> Any:
    """The settings of a new `run`: the shared ones, the prompt and the judge."""
    if args.offline_judge and args.judge_model:
        raise CimemError("choose --judge-model or --offline-judge, not both")
    judge_in, judge_out = _prices(args, args.judge_model, args.judge_price_in, args.judge_price_out)
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


def _generation_bar(
    settings: Any,
) -> tuple[Callable[[CallProgress], None], Callable[[], None]]:
    """A tqdm bar with calls done, failed, cached, tokens, cost and ETA."""
    from tqdm import tqdm

    state: dict[str, Any] = {}

    def update(prog: CallProgress) -> None:
        bar = state.get("bar")
        if bar is None:
            # cached answers arrive at once: start the bar past them so the ETA uses real calls
            bar = state["bar"] = tqdm(
                total=prog.total,
                initial=prog.done,
                desc="generate",
                unit="call",
                file=sys.stderr,
                disable=None,
                leave=False,
            )
        bar.n = prog.done
        bar.set_postfix_str(
            f"failed {prog.failed}, cached {prog.cached}, tokens "
            f"{prog.prompt_tokens + prog.completion_tokens:,}, "
            f"${settings.cost(prog):.4f}",
            refresh=False,
        )
        bar.refresh()

    def close() -> None:
        if "bar" in state:
            state["bar"].close()

    return update, close


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
    import cimem.generate.runner as runner
    from cimem.store import Store

    if args.resume is None and not args.profiles:
        raise CimemError("give --profiles PATH for a new run, or --resume RUN")
    if args.resume is not None and args.profiles:
        raise CimemError("--resume continues a run with its stored settings: leave out --profiles")
    if args.retry_failed and args.resume is None:
        raise CimemError("--retry-failed needs --resume RUN")
    with Store.open(args.db or default_db_path()) as store:
        if args.resume is not None:
            run_id = store.resolve_run(args.resume)
            settings = runner.settings_of(store, run_id)
        else:
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
        if args.resume is not None and not args.dry_run:
            ahead = runner.run(store, run_id, retry_failed=args.retry_failed, dry_run=True)
            print(
                f"resuming run {run_id}: {ahead.calls} generation calls to make again"
                f" ({ahead.cached} answered from the call cache), estimated cost"
                f" ${ahead.cost:.4f}",
                file=sys.stderr,
                flush=True,
            )
        update, close = _generation_bar(settings)
        judge_update, judge_close = progress_bar("judge", unit="msg")
        try:
            summary = runner.run(
                store,
                run_id,
                retry_failed=args.retry_failed,
                dry_run=args.dry_run,
                on_progress=update,
                on_judge_progress=judge_update,
            )
        except KeyboardInterrupt:
            print(
                f"\ninterrupted: every completed call is cached; continue with"
                f" `python -m cimem run --resume {run_id}`",
                file=sys.stderr,
            )
            return 130
        finally:
            close()
            judge_close()
        if args.dry_run and args.resume is None:
            store.delete_run(run_id)  # a dry run leaves nothing behind
    print(describe(summary, kept=not (args.dry_run and args.resume is None)))
    # failures left over make a non-zero exit, so scripts notice them
    return 1 if summary.failed or summary.judge_errors else 0


def cmd_label(args: argparse.Namespace) -> int:
    import cimem.generate.labelling as labelling
    import cimem.generate.runner as runner
    from cimem.store import Store

    if (args.resume is None) == (args.profiles is None):
        raise CimemError("give --profiles PATH for a new labelling run, or --resume RUN")
    with Store.open(args.db or default_db_path()) as store:
        if args.resume is not None:
            run_id = store.resolve_run(args.resume)
            if store.run_config(run_id)["kind"] != "labels":
                raise CimemError(f"run {run_id} is not a labelling run (made by `cimem label`)")
            settings = runner.settings_of(store, run_id)
        else:
            settings = new_settings(args, "labelling run", "--samples", args.samples)
            run_id = labelling.create_label_run(store, args.profiles, settings, name=args.name)
            if not args.dry_run:
                print(
                    f"labelling run {run_id} created; if it stops, continue it with"
                    f" `python -m cimem label --resume {run_id}`",
                    file=sys.stderr,
                    flush=True,
                )
        update, close = _generation_bar(settings)
        try:
            summary = labelling.label_run(store, run_id, dry_run=args.dry_run, on_progress=update)
        except KeyboardInterrupt:
            print(
                f"\ninterrupted: every completed call is cached; continue with"
                f" `python -m cimem label --resume {run_id}`",
                file=sys.stderr,
            )
            return 130
        finally:
            close()
        if args.dry_run and args.resume is None:
            store.delete_run(run_id)
    kept = not (args.dry_run and args.resume is None)
    name = f"labelling run {run_id}" if kept else "dry run (nothing stored)"
    what = "would send" if summary.estimated else "made"
    print(
        f"{name}: {summary.pairs} (profile, context) pairs x 3 personas x {settings.trials}"
        f" samples: {what} {summary.calls} calls, {summary.cached} from the cache"
    )
    if summary.estimated:
        print(
            f"  estimated tokens: {summary.prompt_tokens:,} prompt, {summary.completion_tokens:,}"
            f" completion; estimated cost ${summary.cost:.4f}"
        )
        return 0
    print(
        f"  {summary.failed} calls failed after retries (a resume makes them again),"
        f" {summary.unparsed} replies without the JSON answer, {summary.conflicts} memories"
        f" in both lists (counted as unlabeled)"
    )
    print(
        f"  {summary.unmatched} returned memories matched none of the profile's"
        + (": " + "; ".join(repr(e) for e in summary.examples) if summary.examples else "")
    )
    print(
        f"  pairs without a combined label: {summary.unlabeled_pairs}; tokens"
        f" {summary.prompt_tokens + summary.completion_tokens:,}; cost ${summary.cost:.4f};"
        f" {summary.seconds:.1f} s"
    )
    print(f"  use the labels in a model run with `python -m cimem run ... --labels-from {run_id}`")
    return 1 if summary.failed else 0


def _add_call_args(p: argparse.ArgumentParser, concurrency: int = 8) -> None:
    c = add_call_args(p, concurrency)
    c.title = "calls and cost"
    c.add_argument(
        "--prices",
        metavar="PATH",
        help="price table, YAML or JSON: {model: {input: X, output: Y}} in USD per"
        " million tokens (the --price flags take precedence)",
    )
    c.add_argument(
        "--price-in",
        type=float,
        default=None,
        help="USD per million prompt tokens of the model (default: the table, else 0)",
    )
    c.add_argument(
        "--price-out",
        type=float,
        default=None,
        help="USD per million completion tokens of the model",
    )


def _add_endpoint_args(g: argparse._ArgumentGroup) -> None:
    g.add_argument("--model", help="model name at the endpoint")
    g.add_argument(
        "--base-url",
        help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1 (default: OpenAI)",
    )
    g.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )
    g.add_argument(
        "--temperature",
        type=float,
        default=None,
        help="sampling temperature (default: the provider's)",
    )


def _add_selection_args(s: argparse._ArgumentGroup) -> None:
    s.add_argument("--profiles-limit", type=int, help="use the first N profiles")
    s.add_argument("--contexts", help="context positions, e.g. 0,1,2 (default: all)")
    s.add_argument("--where", help="profile=NAME[,profile=NAME2][,context=N]")


def add_run_commands(sub: argparse._SubParsersAction) -> None:
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
    g = p.add_argument_group("model under test")
    _add_endpoint_args(g)
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
    s = p.add_argument_group("selection")
    _add_selection_args(s)
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
    j = p.add_argument_group("judge (default: the offline judge)")
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
    _add_call_args(p)
    c = p.add_argument_group("judge prices")
    c.add_argument(
        "--judge-price-in", type=float, default=None, help="judge: USD per M prompt tokens"
    )
    c.add_argument(
        "--judge-price-out", type=float, default=None, help="judge: USD per M completion tokens"
    )
    p.set_defaults(func=cmd_run)

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
    g = p.add_argument_group("labelling model")
    _add_endpoint_args(g)
    s = p.add_argument_group("selection")
    _add_selection_args(s)
    _add_call_args(p)
    p.set_defaults(func=cmd_label)
