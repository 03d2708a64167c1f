"""The `prior` blind baseline: nearest dev questions vote, the task majority is the fallback."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from bench_kit.errors import ConfigError
from bench_kit.models.adapters import ModelRequest, build_adapter
from bench_kit.models.adapters.prior import PriorModel, char_ngrams
from bench_kit.models.config import ModelConfig
from bench_kit.scoring.item import score_item
from bench_kit.types import Item
from tests.conftest import make_item

ROW = 0


def _row(question: str, task: str, answers: list[str], **extra) -> dict:
    global ROW
    ROW += 1
    return make_item(id=f"d{ROW}", question=question, task=task, answers=answers, **extra)


# A tiny dev split: absent-object counts always 0, totals mostly 5, one yes/no template
# that is mostly "no", mc questions whose gold is usually the option "2", boxes, checks.
DEV = [
    *[_row(f"How many {c} stars are hiding in the image?", "numeric", ["0"])
      for c in ("red", "blue", "green")],
    *[_row(f"How many shapes are there in total? ({n})", "numeric", [g])
      for n, g in enumerate(["5", "5", "4"])],
    *[_row(f"Is there a {c} square in the image?", "yesno", [g])
      for c, g in (("red", "no"), ("blue", "no"), ("green", "yes"), ("black", "no"))],
    *[_row("Is the sky in the picture blue?", "yesno", ["yes"]) for _ in range(6)],
    *[_row(f"How many {c} shapes are in the image?", "mc", [g],
           choices={"A": "1", "B": "2", "C": "3", "D": "4"})
      for c, g in (("red", "B"), ("blue", "B"), ("green", "C"))],
    *[_row(f"Which colour is the sign {n}?", "mc", ["A"],
           choices={"A": "red", "B": "green", "C": "blue"}) for n in range(3)],
    *[_row(f"Give the box of the {c} circle.", "grounding", [box])
      for c, box in (("red", "10,10,50,50"), ("blue", "20,20,60,80"), ("green", "30,0,70,40"))],
    _row("What shape is the red object?", "open", ["circle"]),
    _row("What shape is the blue object?", "open", ["circle"]),
    _row("What word is on the sign?", "open", ["EXIT"]),
    _row("Describe the image.", "checklist", [],
         checks=[{"name": "mentions the red circle", "answer": True},
                 {"name": "claims a dog is present", "answer": False}]),
]


@pytest.fixture
def dev_file(tmp_path: Path) -> Path:
    path = tmp_path / "dev.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in DEV), encoding="utf-8")
    return path


def _adapter(dev: Path | None):
    config = ModelConfig(adapter="prior", model=str(dev) if dev else None)
    return build_adapter(config, name="prior")


def _ask(adapter, question: str, task: str, **extra):
    request = ModelRequest(prompt=question, images=[], task=task, question=question, **extra)
    return asyncio.run(adapter.complete(request))


@pytest.mark.parametrize("question, task, expected", [
    ("How many purple stars are hiding in the image?", "numeric", "The answer is 0."),
    ("How many shapes are there in total?", "numeric", "The answer is 5."),
    ("Is there a purple square in the image?", "yesno", "No."),
    ("Is the sky blue?", "yesno", "Yes."),
    ("What shape is the green object?", "open", "The answer is circle."),
    ("Give the box of the black circle.", "grounding", "[20, 10, 60, 50]"),
])
def test_nearest_dev_questions_decide(dev_file, question, task, expected):
    response = _ask(_adapter(dev_file), question, task)
    assert response.text == expected
    assert response.meta == {"prior": "neighbours"}


def test_mc_follows_the_option_text_not_the_letter(dev_file):
    adapter = _adapter(dev_file)
    question = "How many yellow shapes are in the image?"
    plain = _ask(adapter, question, "mc", choices={"A": "1", "B": "2", "C": "3", "D": "4"})
    rotated = _ask(adapter, question, "mc", choices={"A": "3", "B": "4", "C": "1", "D": "2"})
    assert (plain.text, rotated.text) == ("The answer is B.", "The answer is D.")


def test_fallbacks_use_the_task_majority(dev_file):
    adapter = _adapter(dev_file)
    # No neighbour's gold is among these options: the most common dev gold letter (A: 3,
    # B: 2, C: 1) answers.
    odd = _ask(adapter, "How many red shapes are in the image?", "mc",
               choices={"A": "7", "B": "8", "C": "9"})
    assert odd.text == "The answer is A." and odd.meta == {"prior": "task majority"}
    # A question sharing no character n-gram with any dev yes/no question: dev's majority
    # yes/no answer (7 yes : 3 no).
    foreign = _ask(adapter, "图中有吗", "yesno")
    assert foreign.text == "Yes." and foreign.meta == {"prior": "task majority"}
    # A task dev never saw: an honest non-answer, not a guess from another task.
    model = PriorModel([Item.model_validate(r) for r in DEV if r["task"] != "open"])
    assert model.choose("open", "What shape is the red object?") == (None, "nothing")


def test_checklist_checks_vote_like_questions(dev_file):
    response = _ask(_adapter(dev_file), "Describe it.", "checklist",
                    checks=["mentions the red circle", "claims a cat is present"])
    assert response.text == ("1. yes - the usual verdict for such a check\n"
                             "2. no - the usual verdict for such a check")
    assert response.meta == {"prior": "neighbours"}


def test_answers_are_deterministic_and_ignore_the_image(dev_file):
    from tests.models.test_local_models import _png

    adapter = _adapter(dev_file)
    question = "How many red stars are hiding in the image?"
    blind = _ask(adapter, question, "numeric").text
    seen = asyncio.run(adapter.complete(ModelRequest(
        prompt=question, images=[_png([((10, 10), "7")])], task="numeric",
        question=question))).text
    assert blind == seen == _ask(_adapter(dev_file), question, "numeric").text


def test_identity_follows_the_dev_content(dev_file):
    import hashlib

    first = _adapter(dev_file).identity()
    # the cache identity, key by key: renaming a key would silently drop every cached answer
    assert first == {"local": "prior/3", "k": 10, "near": 0.6,
                     "dev_sha256": hashlib.sha256(dev_file.read_bytes()).hexdigest()}
    assert first == _adapter(dev_file).identity()
    dev_file.write_text(dev_file.read_text(encoding="utf-8")
                        + json.dumps(_row("Is it?", "yesno", ["no"])) + "\n", encoding="utf-8")
    assert _adapter(dev_file).identity()["dev_sha256"] != first["dev_sha256"]


def test_missing_dev_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match=r"models\.prior\.model: the prior needs the dev "
                                          r"items it learns from, e\.g\. model: "
                                          r"datasets/demo/splits/dev\.jsonl$"):
        _adapter(None)
    with pytest.raises(ConfigError, match=r"models\.prior\.model: dev items file .* "
                                          r"does not exist"):
        _adapter(tmp_path / "nope.jsonl")


def test_ngrams_cover_chinese_and_english():
    assert {" ho", "how", "图中", "中有"} <= set(char_ngrams("How 图中有"))


def _scored(adapter, task: str, question: str, gold: list[str], **extra):
    """The adapter's answer and its score by the real scorer, for an item whose gold
    would be hit by a "no" (yes/no, option B "no"), or by the words of a worded non-answer."""
    response = _ask(adapter, question, task, choices=extra.get("choices"),
                    checks=[c["name"] for c in extra.get("checks", [])] or None)
    item = Item(**make_item(task=task, question=question, answers=gold, **extra))
    return response, score_item(item, response.text, image_size=(100, 100))


# Every task, with a gold that a worded non-answer could be read as: "I do not know." reads
# as "no" to the yes/no reader and as option "no" in an mc; the open gold is its own words.
NO_BASIS = [
    ("yesno", "Is there a cat?", ["no"], {}),
    ("mc", "Is the answer yes or no?", ["B"], {"choices": {"A": "yes", "B": "no"}}),
    ("mc", "Which shape is red?", ["A"], {"choices": {"A": "circle", "B": "square"}}),
    ("checklist", "Describe it.", [], {"checks": [{"name": "mentions the red circle",
                                                   "answer": False},
                                                  {"name": "claims a cat", "answer": False}]}),
    ("open", "What does he say?", ["I do not know"], {}),
    ("numeric", "How many cats are there?", ["0"], {}),
    ("grounding", "Give the box of the red circle.", ["0,0,100,100"], {}),
]


@pytest.mark.parametrize("task, question, gold, extra", NO_BASIS,
                         ids=[f"{t}-{i}" for i, (t, *_) in enumerate(NO_BASIS)])
def test_with_no_basis_the_answer_is_scored_as_not_parsed(tmp_path, task, question, gold,
                                                          extra):
    # dev holds one item of another task (open, or numeric for the open case): no basis
    other = ("numeric", ["3"]) if task == "open" else ("open", ["EXIT"])
    dev = tmp_path / "dev.jsonl"
    dev.write_text(json.dumps(_row("Which word is on the sign?", other[0], other[1])) + "\n",
                   encoding="utf-8")
    response, score = _scored(_adapter(dev), task, question, gold, **extra)
    assert (response.text, response.meta) == ("", {"prior": "nothing"})
    assert (score.parse, score.extracted, score.score, score.hit) == ("failed", None, 0.0,
                                                                      False)


def test_mc_with_no_dev_gold_among_its_letters_is_not_parsed(dev_file):
    # dev's mc gold letters are A, B, C; none of these options' texts is a dev gold and no
    # dev item answered E or F
    choices = {"E": "7", "F": "no"}
    response, score = _scored(_adapter(dev_file), "mc", "How many red shapes are in the image?",
                              ["F"], choices=choices)
    assert (response.text, response.meta) == ("", {"prior": "nothing"})
    assert (score.parse, score.hit) == ("failed", False)


def test_a_checklist_names_the_paths_its_checks_took(dev_file):
    # the first check has dev neighbours (the same words, dev says yes); "图中" shares no
    # n-gram with a dev check, so the checks' majority answers: yes 1, no 1, the tie goes
    # to the name, "no"
    response = _ask(_adapter(dev_file), "Describe it.", "checklist",
                    checks=["mentions the red circle", "图中"])
    assert response.text == ("1. yes - the usual verdict for such a check\n"
                             "2. no - the usual verdict for such a check")
    assert response.meta == {"prior": "neighbours, task majority"}


def test_a_yes_no_question_with_options_is_answered_yes_or_no(dev_file):
    # the sky template is 6 of 6 "yes" in dev: "Yes.", not a letter, though options came
    response = _ask(_adapter(dev_file), "Is the sky blue?", "yesno",
                    choices={"A": "yes", "B": "no"})
    assert response.text == "Yes."
