"""The ``judge`` command: re-judge a run's messages as a new judge, offline or over an endpoint."""

from __future__ import annotations

import argparse

from cimem.cli.common import add_call_args, add_db, open_store, parse_where, progress_bar
from cimem.text import plural


def cmd_judge(args: argparse.Namespace) -> int:
    from cimem.judges.base import Judge, OfflineJudge, rejudge

    with open_store(args) as store:
        run_id = store.resolve_run(args.run)
        values_from = store.resolve_run(args.values_from) if args.values_from else None
        judge: Judge
        if args.offline or not args.model:
            judge = OfflineJudge(name=args.name or "offline judge")
        else:
            from cimem.judges.llm import JudgeSpec, make_llm_judge
            from cimem.llm.client import ClientSettings

            client = ClientSettings(
                model=args.model,
                base_url=args.base_url,
                api_key_env=args.api_key_env,
                timeout=args.timeout,
                max_retries=args.retries,
            )
            spec = JudgeSpec(
                client,
                args.prompts,
                args.variant,
                temperature=args.temperature,
                concurrency=args.concurrency,
                rpm=args.rpm,
                name=args.name,
            )
            judge = make_llm_judge(spec, store)
        update, close = progress_bar("judge", unit="msg")
        try:
            res = rejudge(
                store,
                run_id,
                judge,
                limit=args.limit,
                values_from=values_from,
                progress=update,
                **parse_where(args.where).one(),
            )
        finally:
            close()
        named = store.judge_info(res.judge_id).name
    if named != judge.name:
        print(
            f"note: run {run_id} already has a judge {judge.name!r} with these settings; this one"
            f" is {named!r} (give --name to name it yourself)"
        )
    print(
        f"judge {res.judge_id}: {plural(res.messages, 'message')},"
        f" {plural(res.verdicts, 'verdict')},"
        f" {plural(res.parse_failures, 'parse failure')}, {plural(res.errors, 'error')};"
        f" calls made {res.messages - res.cached}, cached {res.cached}; {res.seconds:.1f} s"
    )
    return 0


def add_judge_command(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "judge",
        help="re-judge a run's messages as a new judge (offline or any LLM endpoint)",
        description="Judge the messages of a run (all, or a --where selection) and store the"
        " verdicts as a NEW judge: nothing is overwritten. Without --model the deterministic"
        " offline judge is used. The API key is read from the environment variable named by"
        " --api-key-env and is never stored.",
    )
    add_db(p)
    p.add_argument("--run", required=True, help="run id or name")
    p.add_argument(
        "--offline",
        action="store_true",
        help="use the offline judge (the default when no --model is given)",
    )
    p.add_argument("--model", help="judge model name at the endpoint")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://localhost:8000/v1")
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable holding the API key (default OPENAI_API_KEY)",
    )
    p.add_argument("--prompts", help="official-format prompts.yaml (adversary_reveal) to use")
    p.add_argument(
        "--variant",
        choices=("strict", "lenient"),
        default="strict",
        help="built-in prompt: strict REVEAL (default) or lenient (implied counts)",
    )
    p.add_argument("--temperature", type=float, default=0.0)
    add_call_args(p)
    p.add_argument("--where", help="profile=NAME,context=N,trial=N")
    p.add_argument("--limit", type=int, help="judge at most N messages")
    p.add_argument(
        "--values-from",
        metavar="RUN",
        help="fill missing attribute values from another run (e.g. an imported"
        " profiles.json), matched by profile name and key",
    )
    p.add_argument("--name", help="name of the new judge")
    p.set_defaults(func=cmd_judge)
