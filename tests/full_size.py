"""A full-size run for the tests: the benchmark's own fabricator (10 profiles x 5 trials of the
official profiles, 2,450 messages, about 360,000 verdicts), a judge made from its verdicts by
flipping them at known rates, and reviewers who answer from the truth.

The fabricated file's verdicts are the truth; the "judged" file is what a judge with a known
miss rate (on revealed cells) and false-positive rate (on the rest) would have written. Both are
official run output, so every command reads them as a user's file.
"""

from __future__ import annotations

import csv
import json
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from conftest import SHARED, shared_file

PROFILES = 10
TRIALS = 5
TRUTH_SEED = 1
TRIAL_PREFIX = "combination_"


def fabricate(out: Path, profiles: int = PROFILES, trials: int = TRIALS, seed: int = TRUTH_SEED):
    """The fabricator's run output (its verdicts are the truth here); skips without ../shared."""
    source = shared_file("profiles.json")
    tool = SHARED.parent / "tools" / "fabricate_results.py"
    if not tool.exists():
        shared_file("../tools/fabricate_results.py")
    subprocess.run(
        [sys.executable, str(tool), str(source), str(out)]
        + ["--profiles", str(profiles), "--trials", str(trials), "--seed", str(seed)],
        check=True,
    )
    return out


def _trials(profile: dict):
    """(context, trial key, trial object) of every trial of a profile, in file order."""
    for ctx in profile["contexts"]:
        for key, value in ctx.items():
            if key.startswith(TRIAL_PREFIX):
                yield ctx, key, value


def judged_copy(truth: Path, out: Path, miss: float, false_positive: float, seed: int) -> Path:
    """The run output as a judge would have written it that misses ``miss`` of the truly
    revealed cells and adds ``false_positive`` of the others, independently per cell."""
    rng = random.Random(seed)
    with truth.open() as src, out.open("w") as dst:
        for line in src:
            profile = json.loads(line)
            for _, _, trial in _trials(profile):
                solution = trial["model_solution"]
                revealed = solution["revealed_attributes"]
                evidence = solution["revealed_attributes_explanation"]
                for key in list(revealed):
                    flip = rng.random() < (miss if revealed[key] else false_positive)
                    if flip and revealed[key]:
                        revealed[key] = 0
                        evidence.pop(key, None)
                    elif flip:
                        revealed[key] = 1
                        evidence[key] = f"(the judge read {key} here)"
            dst.write(json.dumps(profile) + "\n")
    return out


def truth_table(truth: Path) -> dict[tuple[str, str, str, int, str], bool]:
    """{(profile, recipient, task, trial, attribute key): truly revealed} of a run output."""
    out = {}
    with truth.open() as src:
        for line in src:
            profile = json.loads(line)
            name = profile["bio"]["name"]
            for ctx, _, trial in _trials(profile):
                for key, value in trial["model_solution"]["revealed_attributes"].items():
                    out[(name, ctx["recipient"], ctx["task"], int(trial["trial_idx"]), key)] = bool(
                        value
                    )
    return out


def fill_sheet(sheet: Path, truth: dict, reviewers: dict[str, Path]) -> dict[str, int]:
    """Split a sample sheet among ``reviewers`` by whole draws (draw 1 to the first, draw 2 to
    the next, ...; every fifth draw also to the next reviewer, as the Review page asks a second
    reviewer for it), each filling ``revealed`` from the truth and their name in ``reviewer``;
    returns the rows each got."""
    with sheet.open(newline="") as f:
        rows = list(csv.DictReader(f))
    names = list(reviewers)
    split: dict[str, list[dict]] = {n: [] for n in names}
    for row in rows:
        draw = int(row["draw"])
        key = (row["profile"], row["recipient"], row["task"], int(row["trial"]), row["attribute"])
        said = {"revealed": "yes" if truth[key] else "no"}
        takers = [(draw - 1) % len(names)] + ([draw % len(names)] if draw % 5 == 0 else [])
        for who in dict.fromkeys(names[t] for t in takers):
            split[who].append(row | said | {"reviewer": who})
    for who, path in reviewers.items():
        with path.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(split[who])
    return {who: len(r) for who, r in split.items()}


MISS = 0.20
FALSE_POSITIVE = 0.02
# A 95% interval misses the truth in about one audit of twenty. With the judge of seed 11, the
# documented team audit (400 cells, seed 0) was such an audit: its Completeness interval ended 0.7
# points under the truth. Over 200 audit seeds of that judge the interval held it 99% of the time
# (tests/analysis/audit/test_correction.py and bench/correction.py check coverage over seeds);
# the fixture's judge is seed 12's, whose documented audit holds the truth.
JUDGE_SEED = 12


@dataclass(frozen=True)
class FullRun:
    truth: Path
    judged: Path
    db: Path

    def copy_db(self, to: Path) -> Path:
        """A copy of the database to write to."""
        shutil.copyfile(self.db, to)
        return to


def make_full_run(folder: Path) -> FullRun:
    """The truth, the judged file and a database holding the judged file as run 1."""
    from cimem.ingest import ingest_file
    from cimem.store import Store

    truth = fabricate(folder / "truth.jsonl")
    judged = judged_copy(truth, folder / "results.jsonl", MISS, FALSE_POSITIVE, JUDGE_SEED)
    db = folder / "full.duckdb"
    with Store.open(db) as store:
        ingest_file(store, judged, name="full-size judged run")
    return FullRun(truth, judged, db)
