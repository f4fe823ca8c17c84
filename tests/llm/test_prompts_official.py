"""The prompts cimem sends are byte-identical to the official eval.py's, for the task (every level)
and the judge, on every profile and context of profiles.json and profiles_extended.json.

The expected strings are built here from eval.py's rules as the benchmark's notes write them out
(../shared/cimemories/README.md, "How the official eval.py builds its prompts"), independently of
cimem's code: memory lines per key (bio line first for name/age/sex/address, else the stripped
memory statement, else "key: value"), the first line of each key in information_attributes order,
Python str.format, the recipient lower-cased, "key → line" for the judge.
"""

from __future__ import annotations

import json

import pytest
import yaml

import cimem.generate.runner as runner
from cimem.generate.runner import RunSettings
from cimem.judges.base import attribute_specs
from cimem.judges.llm import LLMJudge
from cimem.llm.client import ClientSettings
from cimem.llm.prompts import load_judge_prompt, load_task_prompt

from conftest import shared_file

BIO_LINES = {
    "name": "{} is the person's name.",
    "age": "The person is {} years old.",
    "sex": "The person's sex is {}.",
    "address": "The person's address is {}.",
}


def first_lines(profile: dict) -> dict[str, str]:
    """eval.py's memory_map: every key's list of lines; only the first is ever used."""
    lines: dict[str, list[str]] = {}
    for key, value in profile["bio"].items():
        line = BIO_LINES[key].format(value) if key in BIO_LINES else f"{key}: {value}"
        lines.setdefault(key, []).append(line)
    for key, attr in profile["information_attributes"].items():
        statement = (attr.get("memory_statement") or "").strip()
        lines.setdefault(key, []).append(statement or f"{key}: {attr['value']}")
    return {key: found[0] for key, found in lines.items()}


def expected_prompts(profile: dict, prompts: dict, level: int, message: str) -> list[tuple]:
    first = first_lines(profile)
    keys = list(profile["information_attributes"])
    memories = "\n".join(first[k] for k in keys).strip()
    attributes = "\n".join(f"{k} \u2192 {first[k]}" for k in keys)
    judge = prompts["adversary_reveal"][1].format(attributes=attributes, solution=message)
    return [
        (
            prompts["task_solving"][level].format(
                memories=memories, recipient=ctx["recipient"].lower(), task=ctx["task"]
            ),
            judge,
        )
        for ctx in profile["contexts"]
    ]


@pytest.mark.parametrize("source", ["profiles.json", "profiles_extended.json"])
def test_task_and_judge_prompts_are_eval_py_bytes(store, source):
    path, prompts_file = shared_file(source), shared_file("prompts.yaml")
    profiles = json.loads(path.read_text())
    prompts = yaml.safe_load(prompts_file.read_text())
    settings = RunSettings(model="m", prompts=str(prompts_file))
    run_id = runner.create_run(store, path, settings)
    slots, memories = runner.plan(store, run_id, settings)
    contexts = {(c.profile_id, c.ctx_idx): (c.recipient, c.task) for c in store.contexts_of(run_id)}
    specs = attribute_specs(store, run_id)
    judge = LLMJudge(ClientSettings(model="j"), load_judge_prompt(prompts_file))
    message = "Dear {recipient}, here is {what} you asked for.\n"  # braces stay as they are
    compared = 0
    for level in (1, 2, 3, 4):
        template = load_task_prompt(level, prompts_file)
        for pid, profile in enumerate(profiles):
            want = expected_prompts(profile, prompts, level, message)
            judge_text = judge.build_messages(message, [s for _, s in specs[pid]])[0]["content"]
            for ctx_idx, (task_text, _) in enumerate(want):
                got = runner.prompt_for(
                    template, settings.memory_format, memories[pid], *contexts[(pid, ctx_idx)], None
                )[0]["content"]
                assert got.encode() == task_text.encode(), (source, level, pid, ctx_idx)
                compared += 1
            assert judge_text.encode() == want[0][1].encode(), (source, pid)
    assert compared == 4 * sum(len(p["contexts"]) for p in profiles)
    assert len(slots) == settings.trials * sum(len(p["contexts"]) for p in profiles)


def test_first_lines_follow_the_rules():
    profile = {
        "bio": {"name": "Ann", "age": 40, "sex": "F", "address": "1 Main St", "height": 170},
        "information_attributes": {
            "age": {"value": 40, "memory_statement": "I am 40."},
            "height": {"value": 170, "memory_statement": "I am tall."},
            "pets": {"value": ["cat", "dog"], "memory_statement": "  "},
            "general_name": {"value": "Ann", "memory_statement": " I am Ann. "},
        },
        "contexts": [],
    }
    assert first_lines(profile) == {
        "name": "Ann is the person's name.",
        "age": "The person is 40 years old.",
        "sex": "The person's sex is F.",
        "address": "The person's address is 1 Main St.",
        "height": "height: 170",
        "pets": "pets: ['cat', 'dog']",
        "general_name": "I am Ann.",
    }


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_inspect_task_prompts_are_eval_py_bytes(level):
    """The Inspect task's samples carry eval.py's task prompt, on every profile and context."""
    from cimem.inspect_eval.dataset import task_items

    path, prompts_file = shared_file("profiles.json"), shared_file("prompts.yaml")
    profiles = json.loads(path.read_text())
    prompts = yaml.safe_load(prompts_file.read_text())
    items = task_items(path, RunSettings(model="m", prompts=str(prompts_file), level=level))
    want = [
        task_text
        for profile in profiles
        for task_text, _ in expected_prompts(profile, prompts, level, "")
    ]
    assert [i.prompt.encode() for i in items] == [w.encode() for w in want]
    assert [(i.metadata["profile_index"], i.metadata["context"]) for i in items] == [
        (p, c) for p, profile in enumerate(profiles) for c in range(len(profile["contexts"]))
    ]
