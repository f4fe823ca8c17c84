"""``labels template | import | export | agreement``: people's labels of (person, task,
attribute) pairs, by CSV, and how they agree with the personas."""

from __future__ import annotations

import argparse
import json

from cimem.analysis.cube import cube_from_store
from cimem.analysis.labels import LabelRule
from cimem.cli.common import add_db, open_store, positive_int, read_text_file, table
from cimem.paths import write_whole


def cmd_labels_template(args: argparse.Namespace) -> int:
    from cimem.analysis.people_labels import SheetChoice, template_records, to_csv

    choice = SheetChoice(args.profile, args.context, args.contexts, args.pairs, args.seed)
    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        records = template_records(store, run_id, choice)
    write_whole(args.out, to_csv(records))
    print(
        f"wrote {len(records)} pairs of run {run_id} to label to {args.out}: fill the label"
        " column (share, withhold or unsure) and reviewer, then `cimem labels import`"
    )
    return 0


def cmd_labels_import(args: argparse.Namespace) -> int:
    from cimem.analysis.people_labels import read_labels

    text = read_text_file(args.path)
    with open_store(args) as store:
        labels, empty = read_labels(store, text, args.path, args.reviewer)
        n = store.add_people_labels(labels)
    print(f"recorded {n} people's labels; {empty} rows left empty (no label)")
    return 0


def cmd_labels_export(args: argparse.Namespace) -> int:
    from cimem.analysis.people_labels import HISTORY_COLUMNS, history_records, to_csv

    with open_store(args, read_only=True) as store:
        rows = store.people_labels(history=args.history)
    write_whole(args.out, to_csv(history_records(rows), HISTORY_COLUMNS))
    what = "labels with their history" if args.history else "current labels"
    print(f"wrote {len(rows)} people's {what} to {args.out}")
    return 0


def cmd_labels_agreement(args: argparse.Namespace) -> int:
    from cimem.analysis.agreement import format_kappa
    from cimem.analysis.people_labels import persona_agreement

    rule = LabelRule.parse(args.label_rule)
    with open_store(args, read_only=True) as store:
        run_id = store.resolve_run(args.run)
        cube = cube_from_store(store, run_id)
        found = persona_agreement(
            cube, store.persona_fractions(run_id), store.people_labels_of(run_id), rule
        )
    if args.json:
        print(json.dumps(found.as_dict()))
        return 0
    settled = found.labelled - found.disputed
    print(
        f"{found.run}: people labelled {found.labelled} pairs; {found.disputed} with reviewers"
        f" who disagree (left out); settled: "
        + (", ".join(f"{k} {v}" for k, v in found.by_label.items()) or "none")
    )
    if not settled:
        print("nothing to compare yet: label pairs with `cimem labels template` and `import`")
        return 0
    rows = [
        (s.source, s.rule, str(s.pairs), f"{100 * s.share:.1f}%", format_kappa(s.kappa))
        for s in found.sources
    ]
    print(table(("labels of", "rule", "pairs", "agree", "kappa"), rows))
    print("classes: share, withhold, and unsure against ambiguous (out of both metrics)")
    return 0


def add_people_label_commands(lsub: argparse._SubParsersAction) -> None:
    t = lsub.add_parser(
        "template",
        help="a CSV sheet of a run's pairs for people to label (blind to the personas)",
        description="Write the (person, task, attribute) pairs of a run with the memory"
        " statement and an empty label column, for people to fill in any spreadsheet with"
        " share, withhold or unsure. The personas' labels are not on the sheet.",
    )
    add_db(t)
    t.add_argument("--run", required=True)
    t.add_argument("--out", required=True, help="CSV file to write")
    t.add_argument("--profile", help="only this profile's pairs (by name)")
    t.add_argument(
        "--context", type=int, help="only this context (its index within each profile, from 0)"
    )
    t.add_argument(
        "--contexts",
        type=positive_int,
        help="a random sample of this many whole contexts (metrics under people's labels need"
        " every pair of a context)",
    )
    t.add_argument(
        "--pairs",
        type=positive_int,
        help="a random sample of this many pairs (enough for agreement with the personas)",
    )
    t.add_argument("--seed", type=int, default=0, help="the samples' seed (default 0)")
    t.set_defaults(func=cmd_labels_template)
    i = lsub.add_parser(
        "import",
        help="record people's labels from a filled sheet (appended, never replacing)",
        description="Read a sheet (columns profile, recipient, task, attribute, label;"
        " optional reviewer and note) and append its labels to the history: a reviewer's"
        " latest label on a pair is current, and labels serve every run of the same person and"
        " task. Rows with an empty label are skipped; a bad row stops the import, nothing"
        " written.",
    )
    add_db(i)
    i.add_argument("path", help="the filled CSV")
    i.add_argument("--reviewer", help="reviewer of rows whose reviewer column is empty")
    i.set_defaults(func=cmd_labels_import)
    e = lsub.add_parser("export", help="write people's labels as CSV")
    add_db(e)
    e.add_argument("--out", required=True)
    e.add_argument("--history", action="store_true", help="every label ever recorded")
    e.set_defaults(func=cmd_labels_export)
    a = lsub.add_parser(
        "agreement",
        help="people's labels against each persona's and the combined label",
        description="On a run's pairs people settled (every reviewer's current label alike):"
        " raw agreement and Cohen's kappa of people with the combined label and with each"
        " persona's, under a rule, over share / withhold / unsure-or-ambiguous.",
    )
    add_db(a)
    a.add_argument("--run", required=True)
    a.add_argument("--label-rule", default="unanimous")
    a.add_argument("--json", action="store_true", help="print JSON instead of text")
    a.set_defaults(func=cmd_labels_agreement)
