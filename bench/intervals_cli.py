"""The intervals through the command line, on runs with a known truth: the benchmark's own
fabricator (``../shared/tools/fabricate_results.py``) draws every needed pair's reveal with chance
0.55 and every withheld pair's with chance 0.004, per message. So Completeness's truth is 0.55,
the leak rate's 0.004, and Violation@n's, for the profiles and labels of a file, the mean over
profiles of the mean over eligible attributes of 1 - 0.996^(n x its withheld tasks).

For each seed: fabricate a run (10 profiles x 5 trials, as the benchmark), run
``python -m cimem metrics --results FILE --json`` as a user would, and check whether each interval
holds its truth. Prints the coverage per interval over the seeds (goal: about 0.95; with 40 seeds
the simulation error is about ±0.07).

    python bench/intervals_cli.py [--seeds 40] [--first-seed 0] [--profiles 10] [--trials 5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cimem.analysis.cube_file import cube_from_official  # noqa: E402
from cimem.analysis.metrics import MetricOptions, attribute_groups, prepare  # noqa: E402

from common import REPO, SHARED  # noqa: E402

NEEDED_CHANCE = 0.55  # the fabricator's per-message reveal chance of a needed ("share") pair
WITHHELD_CHANCE = 0.004  # and of a withheld ("private") one


def violation_truth(path: Path, trials: int) -> float:
    """The expected Violation@n of the file's profiles under its own labels (official mode)."""
    prep = prepare(cube_from_official(path), MetricOptions())
    groups, group_profile, n_groups = attribute_groups(prep)
    tasks = np.bincount(groups, minlength=n_groups)
    eligible = tasks > 0
    per_attr = 1 - (1 - WITHHELD_CHANCE) ** (trials * tasks)
    m = len(prep.group_names)
    num = np.bincount(group_profile[eligible], weights=per_attr[eligible], minlength=m)
    den = np.bincount(group_profile[eligible], minlength=m)
    return float(np.mean(num[den > 0] / den[den > 0]))


def holds(interval: list[float] | None, truth: float) -> bool | None:
    return None if interval is None else interval[0] <= truth <= interval[1]


def one_seed(seed: int, profiles: int, trials: int, folder: Path) -> dict[str, bool | None]:
    path = folder / f"run_{seed}.jsonl"
    source = (
        SHARED / "cimemories" / ("profiles.json" if profiles <= 10 else "profiles_extended.json")
    )
    tool = SHARED / "tools" / "fabricate_results.py"
    subprocess.run(
        [sys.executable, str(tool), str(source), str(path), "--profiles", str(profiles)]
        + ["--trials", str(trials), "--seed", str(seed)],
        check=True,
    )
    done = subprocess.run(
        [sys.executable, "-m", "cimem", "metrics", "--results", str(path), "--json"],
        capture_output=True,
        text=True,
        cwd=REPO,
        check=True,
    )
    run = json.loads(done.stdout)["runs"][0]
    truth_v = violation_truth(path, trials)
    return {
        "Violation@n (people like these)": holds(run["violation"]["ci95"], truth_v),
        "Completeness (people like these)": holds(run["completeness"]["ci95"], NEEDED_CHANCE),
        "Completeness (these people)": holds(
            run["completeness"]["ci95_these_people"], NEEDED_CHANCE
        ),
        "leak rate (people like these)": holds(run["leak_rate"]["ci95"], WITHHELD_CHANCE),
        "leak rate (these people)": holds(run["leak_rate"]["ci95_these_people"], WITHHELD_CHANCE),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--first-seed", type=int, default=0, help="seeds run from here (default 0)")
    ap.add_argument("--profiles", type=int, default=10)
    ap.add_argument("--trials", type=int, default=5)
    args = ap.parse_args()
    held: dict[str, list[bool]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in range(args.first_seed, args.first_seed + args.seeds):
            for name, ok in one_seed(seed, args.profiles, args.trials, Path(tmp)).items():
                if ok is not None:
                    held.setdefault(name, []).append(ok)
            print(f"seed {seed} done", file=sys.stderr, flush=True)
    print(
        f"coverage through `cimem metrics` over {args.seeds} fabricated runs of "
        f"{args.profiles} profiles x {args.trials} trials:"
    )
    for name, oks in held.items():
        print(f"  {name:36} {np.mean(oks):.3f}  ({sum(oks)} of {len(oks)})")


if __name__ == "__main__":
    main()
