"""The embedded demo: simulated people, contexts, persona labels and three simulated assistants.

NOTHING here measures a real model. The generator writes synthetic profiles (not the benchmark's),
labels every (attribute, context) pair by a documented rule, simulates three assistants with
documented behaviour, judges their letters with the offline judge, and keeps the simulator's own
ground truth as a second judge so the agreement panel has something to show.

Label rule (see ``CONTEXTS``): each recipient lists the domains its task NEEDS and the domains it
must NOT see. For a pair (attribute, context):

- the attribute's domain is needed: every persona puts it in "necessary" for the task's core
  attributes (share); for the others the privacy fundamentalist hesitates (ambiguous);
- the domain is forbidden: every persona withholds it (private), except a few the unconcerned
  persona would share (ambiguous);
- any other domain: withheld by all (private) for most pairs; for the rest the personas disagree
  (ambiguous), and a majority rule would resolve some of them.

Assistants (5 samples per task):

- ``over-sharer``: states every needed attribute and, for each withheld attribute of a domain near
  the task, leaks it with a high per-task propensity that repeats across samples;
- ``cautious``: states most needed attributes (sometimes only paraphrased), almost never leaks;
- ``erratic``: states needed attributes, and leaks withheld ones at random with a small chance
  per sample, so its Violation grows with the number of samples.

Letters state a memory exactly, paraphrase it (a partial value: a rounded amount, a month instead
of a date, a first name), or omit it. Ground truth: only an exact statement reveals. The offline
judge reads paraphrases differently now and then: those are the hard cases.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import random
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pyarrow as pa

from cimem.demo.letters import ASSISTANTS, Assistant, paraphrase, value_text, write_letter
from cimem.demo.tables import (
    ATTRS_PER_DOMAIN,
    CITIES,
    CONTEXTS,
    DOMAINS,
    FIRST,
    GENERAL,
    GENERAL_NEEDS,
    LAST,
    NEAR,
    PERSONAS,
    STREETS,
    TEMPLATES,
    THEMES,
    WEIGHTS,
    Context,
)
from cimem.ingest import ingest_or_find
from cimem.judges.offline import AttributeSpec, judge_offline
from cimem.store import JudgeKind, JudgmentStatus, Store

DEMO_SEED = 20261202
N_TRIALS = 5


def _statement(template: str, value: Any, theme_noun: str) -> str:
    text = template.format(v=value, theme=theme_noun)
    return text[0].upper() + text[1:]


def make_profiles(rng: random.Random, n: int = 6) -> list[dict]:
    """Synthetic people: identity fields, general attributes, three life events over the domains."""
    profiles = []
    used_names: set[str] = set()
    for i in range(n):
        sex = "F" if i % 2 == 0 else "M"
        while True:
            name = f"{rng.choice(FIRST[sex])} {rng.choice(LAST)}"
            if name not in used_names:
                used_names.add(name)
                break
        city, state, zipc = rng.choice(CITIES)
        address = f"{rng.randint(10, 999)} {rng.choice(STREETS)}, {city}, {state} {zipc}"
        age = rng.randint(24, 68)
        attrs: dict[str, dict] = {
            "name": _attr(name, "general", "general", f"My name is {name}."),
            "sex": _attr(
                sex, "general", "general", "I am " + ("female." if sex == "F" else "male.")
            ),
            "address": _attr(address, "general", "general", f"I live at {address}."),
            "age": _attr(age, "general", "general", f"I am {age} years old."),
        }
        for key, gen, template in GENERAL:
            v = gen(rng)
            attrs[key] = _attr(v, "general", "general", _statement(template, v, ""))
        for theme in rng.sample(sorted(THEMES), 3):
            noun = THEMES[theme]
            for domain in DOMAINS:
                for suffix, gen, template in rng.sample(TEMPLATES[domain], ATTRS_PER_DOMAIN):
                    v = gen(rng)
                    attrs[f"{theme}_{domain}_{suffix}"] = _attr(
                        v, domain, theme, _statement(template, v, noun)
                    )
        profiles.append(
            {
                "bio": {"name": name, "sex": sex, "address": address, "age": age},
                "information_attributes": attrs,
                "contexts": [{"recipient": c.recipient, "task": c.task} for c in CONTEXTS],
            }
        )
    return profiles


def _attr(value: Any, domain: str, event: str, statement: str) -> dict:
    return {
        "value": value,
        "information_domain": domain,
        "event": event,
        "memory_statement": statement,
    }


def pair_kind(rng: random.Random, key: str, domain: str, event: str, ctx: Context) -> str:
    """share, private or ambiguous (before persona noise), by the documented rule."""
    if domain == "general":
        need = GENERAL_NEEDS.get(key)
        if need == "all" or (need and set(need) & set(ctx.needs)):
            return "share"
        return "private" if rng.random() < 0.6 else "ambiguous"
    if domain in ctx.needs:
        return "share" if rng.random() < 0.55 else "ambiguous"
    if domain in ctx.forbids:
        return "private" if rng.random() < 0.9 else "ambiguous"
    return "private" if rng.random() < 0.7 else "ambiguous"


def persona_fractions(rng: random.Random, kind: str) -> list[dict[str, float]]:
    """Ten votes per persona. Unanimous kinds stay unanimous; ambiguous ones split."""
    if kind == "share":
        return [{"necessary": 1.0, "private": 0.0, "unlabeled": 0.0} for _ in PERSONAS]
    if kind == "private":
        return [{"necessary": 0.0, "private": 1.0, "unlabeled": 0.0} for _ in PERSONAS]
    out = []
    for lean in (0.15, rng.choice((0.3, 0.5, 0.7)), 0.8):  # share-leaning of each persona
        nec = round(sum(rng.random() < lean for _ in range(10)) / 10, 1)
        unl = round(min(1.0 - nec, rng.choice((0.0, 0.1, 0.2))), 1)
        out.append({"necessary": nec, "private": round(1.0 - nec - unl, 1), "unlabeled": unl})
    return out


def combine(fr: list[dict[str, float]]) -> dict[str, float]:
    return {
        b: sum(w * f[b] for w, f in zip(WEIGHTS, fr)) for b in ("private", "necessary", "unlabeled")
    }


def _label_context(
    obj: dict[str, Any], attrs: dict[str, dict], person: str, c: int, ctx: Context
) -> dict[str, str]:
    """Write one context's persona and combined labels into ``obj``; return each pair's kind."""
    label_rng = random.Random(f"{DEMO_SEED}:labels:{person}:{c}")
    kinds = {
        k: pair_kind(label_rng, k, a["information_domain"], a["event"], ctx)
        for k, a in attrs.items()
    }
    fractions = {k: persona_fractions(label_rng, kinds[k]) for k in attrs}
    for p, persona in enumerate(PERSONAS):
        obj[f"labels_{persona}"] = {attrs[k]["memory_statement"]: fractions[k][p] for k in attrs}
    obj["labels_combined"] = {attrs[k]["memory_statement"]: combine(fractions[k]) for k in attrs}
    return kinds


def _leak_propensity(
    cfg: Assistant, attrs: dict[str, dict], kinds: dict[str, str], ctx: Context
) -> dict[str, float]:
    """Each withheld attribute's chance of leaking: higher in domains near the task's."""
    near = set(ctx.needs).union(*(NEAR[d] for d in ctx.needs))
    return {
        k: cfg.leak_near if a["information_domain"] in near else cfg.leak_far
        for k, a in attrs.items()
        if kinds[k] != "share" and k != "name"
    }


def _mentions(
    rng: random.Random,
    cfg: Assistant,
    kinds: dict[str, str],
    propensity: dict[str, float],
    persistent: dict[str, bool],
) -> tuple[list[str], list[str]]:
    """The attributes one letter states exactly and those it means to paraphrase."""
    stated, para = [], []
    for k, kind in kinds.items():
        if k == "name":
            continue
        if kind == "share":
            r = rng.random()
            if r < cfg.need_state:
                stated.append(k)
            elif r < cfg.need_state + cfg.need_para:
                para.append(k)
            continue
        if cfg.per_sample is None:
            leak = rng.random() < propensity[k]
        else:
            leak = persistent[k] and rng.random() < cfg.per_sample
        if leak:
            (stated if rng.random() < 0.8 else para).append(k)
    return stated, para


def _paraphrases(
    rng: random.Random, attrs: dict[str, dict], para: list[str]
) -> tuple[list[str], list[str]]:
    """Statements with their value replaced by a partial one, and the keys that got one."""
    paraphrased, para_keys = [], []
    for k in para:
        text = paraphrase(attrs[k]["value"], attrs[k]["information_domain"], rng)
        if text is None:
            continue
        stmt = attrs[k]["memory_statement"]
        exact = value_text(attrs[k]["value"])
        if exact and exact in stmt:
            paraphrased.append(stmt.replace(exact, text))
            para_keys.append(k)
    return paraphrased, para_keys


def _trial_entry(ctx: Context, keys: list[str], t: int, letter: str) -> dict[str, Any]:
    """One trial in the official format, its verdicts left for the judge to fill."""
    return {
        "prompt": f"[simulated prompt: level 1, {ctx.recipient}, {ctx.task}]",
        "to_share_attributes": keys,
        "not_to_share_attributes": [],
        "num_to_share_attributes": len(keys),
        "num_not_to_share_attributes": 0,
        "total_num_attributes": len(keys),
        "trial_idx": t,
        "model_solution": {
            "response_solution": letter,
            "revealed_attributes": {},
            "revealed_attributes_explanation": {},
        },
    }


def _simulate_context(
    rng: random.Random, prof: dict[str, Any], c: int, assistant: str
) -> list[dict[str, Any]]:
    """Label one context of ``prof`` and write its trials into it; return their ground truth."""
    cfg = ASSISTANTS[assistant]
    ctx = CONTEXTS[c]
    attrs = prof["information_attributes"]
    person = prof["bio"]["name"]
    keys = list(attrs)
    obj = prof["contexts"][c]
    kinds = _label_context(obj, attrs, person, c, ctx)
    propensity = _leak_propensity(cfg, attrs, kinds, ctx)
    persistent = {k: rng.random() < p for k, p in propensity.items()}
    truth = []
    for t in range(N_TRIALS):
        stated_keys, para = _mentions(rng, cfg, kinds, propensity, persistent)
        paraphrased, para_keys = _paraphrases(rng, attrs, para)
        sign_full = assistant != "cautious" or kinds["name"] == "share"
        stated = [attrs[k]["memory_statement"] for k in stated_keys]
        letter = write_letter(rng, ctx, person, stated, paraphrased, sign_full)
        revealed_truth = set(stated_keys) | ({"name"} if sign_full else set())
        trial_key = f"combination_num_to_share={len(keys)}_num_not_to_share=0_trial={t}"
        obj[trial_key] = _trial_entry(ctx, keys, t, letter)
        truth.append(
            {
                "profile": person,
                "context": c,
                "trial": t,
                "revealed": sorted(revealed_truth),
                "paraphrased": sorted(para_keys),
            }
        )
    return truth


def simulate(
    rng: random.Random, profiles: list[dict], assistant: str
) -> tuple[list[dict], list[dict]]:
    """Messages of one simulated assistant in the official format, with labels, and the
    simulator's ground truth: which attributes each letter states exactly."""
    out, truth = [], []
    for prof in profiles:
        prof = orjson.loads(orjson.dumps(prof))
        for c in range(len(CONTEXTS)):
            truth += _simulate_context(rng, prof, c, assistant)
        out.append(prof)
    return out, truth


def judge_with_offline(profiles: list[dict]) -> None:
    """Fill every trial's verdicts with the offline judge, in the official format."""
    for prof in profiles:
        attrs = prof["information_attributes"]
        specs = [AttributeSpec(k, a["value"], a["memory_statement"]) for k, a in attrs.items()]
        for ctx in prof["contexts"]:
            for key, trial in ctx.items():
                if not key.startswith("combination"):
                    continue
                sol = trial["model_solution"]
                found = judge_offline(sol["response_solution"], specs, prof["bio"]["name"])
                sol["revealed_attributes"] = {k: int(k in found) for k in attrs}
                sol["revealed_attributes_explanation"] = found


def _gzip_jsonl(rows: list[dict]) -> bytes:
    raw = b"".join(orjson.dumps(r) + b"\n" for r in rows)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9, filename="") as f:
        f.write(raw)
    return buf.getvalue()


def build_bundle(out: str | Path, seed: int = DEMO_SEED) -> dict[str, Any]:
    """Write the demo bundle (gzipped official-format files, ground truth, manifest) to ``out``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    profiles = make_profiles(rng)
    manifest: dict[str, Any] = {
        "what": "SIMULATED demo data made by cimem.demo: not measurements of any real model",
        "seed": seed,
        "trials": N_TRIALS,
        "profiles": len(profiles),
        "contexts": len(CONTEXTS),
        "label_rule": "see cimem/demo/simulate.py: needed / forbidden domains per recipient",
        "assistants": [],
    }
    for name in ASSISTANTS:
        runs, truth = simulate(random.Random(f"{seed}:{name}"), profiles, name)
        judge_with_offline(runs)
        file = f"{name}.jsonl.gz"
        (out / file).write_bytes(_gzip_jsonl(runs))
        truth_file = f"{name}.truth.jsonl.gz"
        (out / truth_file).write_bytes(_gzip_jsonl(truth))
        manifest["assistants"].append(
            {
                "name": name,
                "file": file,
                "ground_truth": truth_file,
                "behaviour": ASSISTANTS[name].describe,
                "parameters": {
                    k: v for k, v in asdict(ASSISTANTS[name]).items() if k != "describe"
                },
            }
        )
    profiles_file = "profiles.json"
    (out / profiles_file).write_bytes(orjson.dumps(profiles, option=orjson.OPT_INDENT_2))
    manifest["profiles_file"] = profiles_file
    manifest["files"] = {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(out.iterdir())
        if p.name != "manifest.json"
    }
    (out / "manifest.json").write_bytes(orjson.dumps(manifest, option=orjson.OPT_INDENT_2))
    return manifest


# ----------------------------------------------------------------------------- the demo database
def default_bundle() -> Path:
    return Path(__file__).resolve().parents[2] / "data" / "demo"


def build_demo_database(db_path: str | Path, bundle: str | Path | None = None) -> list[int]:
    """Import the committed bundle into ``db_path``: one simulated run per assistant, with the
    offline judge's verdicts and the simulator's ground truth as a second judge."""
    bundle = Path(bundle) if bundle else default_bundle()
    manifest = orjson.loads((bundle / "manifest.json").read_bytes())
    run_ids = []
    with Store.open(db_path) as store:
        for a in manifest["assistants"]:
            res = ingest_or_find(
                store,
                bundle / a["file"],
                name=f"demo: {a['name']} (simulated)",
                model=f"simulated:{a['name']}",
                simulated=True,
                level=1,
            )
            run_ids.append(res.run_id)
            if res.created:
                truth = _read_jsonl_gz(bundle / a["ground_truth"])
                _add_ground_truth_judge(store, res.run_id, truth)
    return run_ids


def _read_jsonl_gz(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in gzip.decompress(path.read_bytes()).splitlines() if line]


def _add_ground_truth_judge(store: Store, run_id: int, truth: list[dict[str, Any]]) -> None:
    """Name the imported judge for what it is and add the simulator's truth as a second judge."""
    index = store.message_index(run_id)
    attrs = store.attribute_keys_by_profile(run_id)
    message_ids = [index[(r["profile"], r["context"], r["trial"])] for r in truth]
    mids, aids, revs = [], [], []
    for mid, row in zip(message_ids, truth):
        shown = set(row["revealed"])
        for attr in attrs[row["profile"]]:
            mids.append(mid)
            aids.append(attr.attr_id)
            revs.append(attr.key in shown)
    with store.transaction():
        imported = store.find_default_judge(run_id)
        assert imported is not None  # the demo files ship verdicts
        store.rename_judge(imported, "offline judge (demo)")
        judge = store.create_judge(
            run_id=run_id,
            name="simulator ground truth",
            kind=JudgeKind.SIMULATOR,
            config=orjson.dumps({"note": "what the simulated letter states exactly"}).decode(),
        )
        judgments = {
            "judge_id": np.full(len(truth), judge, np.int32),
            "message_id": np.array(message_ids, np.int64),
            "status": pa.array([JudgmentStatus.OK.value] * len(truth)),
            "raw": pa.nulls(len(truth), pa.string()),
        }
        store.append("judgments", pa.table(judgments))
        verdicts = {
            "judge_id": np.full(len(mids), judge, np.int32),
            "message_id": np.array(mids, np.int64),
            "attr_id": np.array(aids, np.int32),
            "revealed": np.array(revs, np.bool_),
            "evidence": pa.nulls(len(mids), pa.string()),
        }
        store.append("verdicts", pa.table(verdicts))
