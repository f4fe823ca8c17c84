"""What the two commands that call a model, ``run`` and ``label``, share: the endpoint, selection,
call and price options, the settings of a new run built from them, the generation progress bar and
the hint printed on Ctrl-C. Imports neither command module, so both can import it."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from cimem.cli.common import add_call_args, int_list, parse_where
from cimem.errors import CimemError

if TYPE_CHECKING:
    from cimem.llm.calls import CallProgress

EXIT_INTERRUPTED = 130


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


def prices(
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
    from cimem.generate.runner_settings import RunSettings

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
    price_in, price_out = prices(args, args.model, args.price_in, args.price_out)
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


def generation_bar(
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


def report_interrupted(command: str, run_id: int) -> None:
    """On Ctrl-C nothing is lost: say so, and how to continue."""
    print(
        f"\ninterrupted: every completed call is cached; continue with"
        f" `python -m cimem {command} --resume {run_id}`",
        file=sys.stderr,
    )


def add_calls_and_cost_args(p: argparse.ArgumentParser, concurrency: int = 8) -> None:
    """The call options every command has, titled with the price options added to them."""
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


def add_endpoint_args(g: argparse._ArgumentGroup) -> None:
    """Which model to call and where: the model under test (`run`) or the labeller (`label`)."""
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


def add_selection_args(s: argparse._ArgumentGroup) -> None:
    """The profiles and contexts a new run covers (read back by :func:`new_settings`)."""
    s.add_argument("--profiles-limit", type=int, help="use the first N profiles")
    s.add_argument("--contexts", help="context positions, e.g. 0,1,2 (default: all)")
    s.add_argument("--where", help="profile=NAME[,profile=NAME2][,context=N]")
