"""Prompt templates per task, overrides from params, rotations."""

from __future__ import annotations

import pytest
from conftest import make_item

from bench_kit.errors import ConfigError
from bench_kit.eval.prompts import (
    PROMPT_VERSION,
    PromptSet,
    prompt_sha,
    rotate_choices,
    rotated_gold,
)
from bench_kit.models.config import prompt_params
from bench_kit.types import Item

DEFAULTS = PromptSet.from_params(prompt_params({}))


def _item(**row) -> Item:
    return Item.model_validate(make_item(**row))


@pytest.mark.parametrize(("row", "size", "expected"), [
    ({"task": "mc", "question": "Which shape?", "choices": {"A": "circle", "B": "square"},
      "answers": ["A"]}, None,
     "Which shape?\nA. circle\nB. square\nAnswer with the option's letter from the given "
     "choices directly."),
    ({"task": "yesno", "question": "Is it red?", "answers": ["yes"]}, None,
     "Is it red?\nAnswer the question using a single word: yes or no."),
    ({"task": "numeric", "question": "How many?"}, None, "How many?\nAnswer with a single number."),
    ({"task": "open", "question": "What colour?", "answers": ["red"]}, None,
     "What colour?\nAnswer the question using a single word or phrase."),
    ({"task": "grounding", "question": "Where is the star?", "answers": ["1,2,3,4"]}, (640, 480),
     "Where is the star?\nThe image is 640x480 pixels. Give the bounding box as [x1, y1, x2, "
     "y2] in pixels, where (x1, y1) is the top-left corner and (x2, y2) the bottom-right "
     "corner."),
    ({"task": "checklist", "question": "Check the chart.", "answers": [],
      "checks": [{"name": "has a title", "answer": True},
                 {"name": "axes labelled", "answer": False, "criteria": "both axes"}]}, None,
     "Check the chart.\nCheck each statement against the image:\n1. has a title\n2. axes "
     "labelled (both axes)\nAnswer each check on its own line as: <number>. yes|no - "
     "<one-line reason>."),
])
def test_default_template_per_task(row, size, expected) -> None:
    rendered = DEFAULTS.render(_item(**row), image_size=size)
    assert rendered.text == expected
    assert rendered.sha == prompt_sha(expected) and len(rendered.sha) == 16
    assert DEFAULTS.version == PROMPT_VERSION


def test_grounding_without_an_image_size_is_refused() -> None:
    with pytest.raises(ValueError, match="needs an image"):
        DEFAULTS.render(_item(task="grounding", answers=["1,2,3,4"]))


def test_override_from_params_changes_text_and_version() -> None:
    params = {"eval": {"prompts": {"yesno": 'Q: {question} {"format": "yes|no"}'}}}
    prompts = PromptSet.from_params(prompt_params(params))
    text = prompts.render(_item(task="yesno", question="Is it red?", answers=["no"])).text
    assert text == 'Q: Is it red? {"format": "yes|no"}'
    assert prompts.version.startswith("custom/")
    named = PromptSet.from_params(prompt_params({"eval": {"prompts": {
        "version": "team/3", "open": "{question}"}}}))
    assert named.version == "team/3"


@pytest.mark.parametrize(("prompts", "message"), [
    ({"mc": "{question}"}, r"eval\.prompts\.mc: the template must contain \{options\}"),
    ({"open": "{question} {colour}"}, r"eval\.prompts\.open: unknown placeholder \{colour\}"),
    ({"essay": "{question}"}, r"eval\.prompts\.essay: unknown task"),
])
def test_bad_overrides_name_the_key(prompts, message) -> None:
    with pytest.raises(ConfigError, match=message):
        PromptSet.from_params(prompt_params({"eval": {"prompts": prompts}}))


def test_rotation_moves_every_option_and_the_gold_follows() -> None:
    choices = {"A": "cat", "B": "dog", "C": "fox", "D": "owl"}
    for rotation in range(4):
        shown = rotate_choices(choices, rotation)
        assert sorted(shown.values()) == sorted(choices.values())
        assert shown[rotated_gold("B", choices, rotation)] == "dog"
    assert {rotated_gold("A", choices, r) for r in range(4)} == set(choices)
