"""Commands over every run of a lab's database: time and peak memory as the runs grow.

`python -m cimem metrics --json`, `python -m cimem labels sensitivity --json` and
`python -m cimem report --format md` over the first N runs of the lab database (bench/common.py: 60-profile fabricated runs, 2.16 M verdicts
each), each in a fresh process, for N = 1, 5, 10, 20, 40 (up to ``--runs``). They read one run's
cube at a time, so their peak memory should stay flat in N while their time grows with it.
The baseline is N = 1 of the same command (ratios printed). With ``--lake`` the same runs are
also copied into a lake over PostgreSQL (scripts/lake) and measured there.
Target: peak RSS at N = 40 within 1.5x of N = 1.

    python bench/many_runs.py [--runs 40] [--profiles 60] [--lake] [--commands metrics,report]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from common import CACHE, REPO, lab_database

# runs the command in a child and prints its peak RSS (KiB): a fresh measure per command
WRAP = (
    "import resource, subprocess, sys;"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True);"
    "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);"
    "sys.stderr.write(r.stderr[-2000:] if r.returncode else '')"
)

COMMANDS = {
    "metrics": ["metrics", "--json"],
    "labels sensitivity": ["labels", "sensitivity", "--json"],
    "report": ["report", "--format", "md", "--out", str(CACHE / "many_runs_report.md")],
}


def measure(db: str, command: list[str], runs: int) -> tuple[float, float]:
    """Seconds and peak RSS (MiB) of one command over runs 1..``runs``, in a fresh process."""
    picked = [x for i in range(1, runs + 1) for x in ("--run", str(i))]
    cmd = [sys.executable, "-m", "cimem", *command, "--db", db, *picked]
    t = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", WRAP, *cmd], capture_output=True, text=True, cwd=REPO
    )
    seconds = time.perf_counter() - t
    code, rss = out.stdout.split()
    if code != "0":
        sys.exit(f"{' '.join(command)} over {runs} runs failed:\n{out.stderr}")
    return seconds, int(rss) / 1024


def report(db: str, counts: list[int], where: str, names: list[str]) -> None:
    for name in names:
        command = COMMANDS[name]
        base: tuple[float, float] | None = None
        for n in counts:
            seconds, rss = measure(db, command, n)
            base = base or (seconds, rss)
            print(
                f"{where}: {name} over {n:>2} run(s): {seconds:6.2f} s ({seconds / base[0]:5.2f}x),"
                f" peak RSS {rss:6.0f} MiB ({rss / base[1]:.2f}x of one run)",
                flush=True,
            )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--profiles", type=int, default=60)
    ap.add_argument("--lake", action="store_true", help="also measure the runs copied to a lake")
    ap.add_argument(
        "--commands", default=",".join(COMMANDS), help="comma-separated, of: " + ", ".join(COMMANDS)
    )
    args = ap.parse_args()
    counts = sorted({n for n in (1, 5, 10, 20, 40) if n < args.runs} | {args.runs})
    path = lab_database(args.runs, args.profiles)
    print(f"database {path.name}: {args.runs} runs of {args.profiles} profiles x 5 trials")
    names = [n.strip() for n in args.commands.split(",") if n.strip()]
    report(str(path), counts, "file", names)
    if args.lake:
        from browser import served_from

        with served_from(path, lake=True) as lake:
            report(str(lake), counts, "lake", names)


if __name__ == "__main__":
    main()
