"""The local models: seeded chance, the blind text-only baseline and the OCR pipeline."""

from __future__ import annotations

import asyncio
import hashlib
import io
import re

import pytest

from bench_kit.errors import ModelCallError
from bench_kit.models.adapters import ImageInput, ModelRequest, build_adapter
from bench_kit.models.adapters.ocr import (
    NO_IMAGE,
    OcrLine,
    answer_choice,
    answer_numeric,
    answer_yesno,
)
from bench_kit.models.cache import CallCache
from bench_kit.models.config import ModelConfig

CHOICES = {"A": "STOP", "B": "EXIT", "C": "OPEN"}


def _ask(adapter, question: str, task: str = "open", images=(), **extra) -> str:
    request = ModelRequest(prompt=question, images=list(images), task=task, question=question,
                           **extra)
    return asyncio.run(adapter.complete(request)).text


def _png(text_lines: list[tuple[tuple[int, int], str]], size=(420, 200)) -> ImageInput:
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype("DejaVuSans-Bold.ttf", 72)
    for position, text in text_lines:
        draw.text(position, text, fill="black", font=font)
    buffer = io.BytesIO()
    img.save(buffer, format="PNG")
    data = buffer.getvalue()
    return ImageInput(data, "image/png", size[0], size[1], hashlib.sha256(data).hexdigest())


def _local(adapter: str, cache=None, **settings):
    return build_adapter(ModelConfig(adapter=adapter, **settings), name=adapter, cache=cache)


def test_random_is_seeded_by_config_item_and_rotation() -> None:
    def answers(seed: int, rotation: int = 0) -> list[str]:
        adapter = _local("random", seed=seed)
        return [_ask(adapter, "Which?", "mc", choices=CHOICES, item_id=f"q{n}",
                     rotation=rotation) for n in range(30)]

    first = answers(1)
    assert first == answers(1)
    assert set(first) == {f"The answer is {k}." for k in CHOICES}
    assert first != answers(2) and first != answers(1, rotation=1)


@pytest.mark.parametrize(("task", "pattern"), [
    ("yesno", r"(Yes|No)\."),
    ("numeric", r"The answer is (10|[0-9])\."),
    ("open", r"The answer is \w+\."),
])
def test_random_answers_in_the_task_form(task, pattern) -> None:
    adapter = _local("random")
    for n in range(10):
        assert re.fullmatch(pattern, _ask(adapter, "q", task, item_id=f"i{n}"))


def test_random_box_lies_inside_the_image() -> None:
    adapter = _local("random")
    for n in range(50):
        text = _ask(adapter, "Where?", "grounding", image_size=(40, 30), item_id=f"i{n}")
        x1, y1, x2, y2 = map(int, re.findall(r"\d+", text))
        assert 0 <= x1 < x2 <= 40 and 0 <= y1 < y2 <= 30


def test_text_only_picks_the_option_closest_to_the_question_and_ignores_images() -> None:
    adapter = _local("text-only")
    choices = {"A": "a teapot on a stove", "B": "a barking dog", "C": "a cloud in the sky"}
    question = "Which animal is barking at the postman?"
    assert _ask(adapter, question, "mc", choices=choices) == "The answer is B."
    noise = ImageInput(b"not even an image", "image/png", 4, 4, "f" * 64)
    assert _ask(adapter, question, "mc", images=[noise], choices=choices) == "The answer is B."
    assert _ask(adapter, "Is the sky blue?", "yesno") in ("Yes.", "No.")
    word = re.fullmatch(r"The answer is (\w+)\.", _ask(adapter, "What colour is the car?"))
    assert word and word.group(1) not in ("colour", "car")


def test_ocr_reads_the_image_once_and_answers_from_the_text(tmp_path, monkeypatch) -> None:
    from bench_kit.models.adapters import ocr

    sign = _png([((40, 50), "EXIT")])
    with CallCache(tmp_path / "cache.sqlite") as cache:
        adapter = _local("ocr", cache=cache)
        request = ModelRequest(prompt="p", images=[sign], task="open",
                               question="What does the sign say?")
        response = asyncio.run(adapter.complete(request))
        assert response.text == "EXIT" and response.meta == {"ocr_text": "EXIT"}
        assert len(cache) == 1  # the reading, stored under the image's content hash

        def no_engine():
            raise AssertionError("the image was read twice")

        monkeypatch.setattr(ocr, "load_engine", no_engine)
        again = _local("ocr", cache=cache)
        assert _ask(again, "Which word?", "mc", [sign], choices=CHOICES) == "The answer is B."
        assert _ask(again, 'Does the sign say "EXIT"?', "yesno", [sign]) == "Yes."
        assert _ask(again, 'Does the sign say "STOP"?', "yesno", [sign]) == "No."
        assert _ask(again, "What does it say?", "open") == NO_IMAGE


def test_ocr_on_an_undecodable_image_is_a_call_error_not_an_answer() -> None:
    garbage = ImageInput(b"\x89PNG truncated", "image/png", 10, 10, "e" * 64)
    with pytest.raises(ModelCallError, match="OCR engine failed"):
        _ask(_local("ocr"), "What does it say?", "open", [garbage])


@pytest.mark.parametrize(("question", "expected"), [
    ("How many pears are there?", "7"),
    ("How many apples are there?", "12"),
    ("What is the total?", "12"),
    ("How many bananas are in the bar for kiwis?", "12"),
])
def test_ocr_numbers_come_from_the_line_the_question_names(question, expected) -> None:
    # A table: labels with their values beside them or on the next line.
    lines = [OcrLine("Apples 12", (0, 0, 100, 20)), OcrLine("Pears", (0, 80, 60, 100)),
             OcrLine("7", (70, 80, 90, 100))]
    assert answer_numeric(lines, question) == expected


def test_ocr_chart_values_come_from_the_bar_above_the_label() -> None:
    # Bar chart: values above bars of different heights, labels along the bottom.
    lines = [OcrLine("27", (10, 20, 30, 35)), OcrLine("11", (110, 150, 130, 165)),
             OcrLine("19", (60, 90, 80, 105)),
             OcrLine("Wolves", (0, 300, 40, 315)), OcrLine("Eagles", (50, 300, 90, 315)),
             OcrLine("Tigers", (100, 300, 140, 315))]
    assert answer_numeric(lines, "What is the value of the Eagles bar?") == "19"


@pytest.mark.parametrize(("read", "lines", "expected"), [
    ("exit", ["EXIT"], "B"),
    ("please stop here", ["please stop here"], "A"),
    ("nothing useful", ["nothing useful"], None),
    ("exit now", ["exit now"], "B"),
    ("stop and exit", ["stop and exit"], None),
    ("fire exit", ["fire exit"], "D"),
])
def test_ocr_choice_from_text_read(read, lines, expected) -> None:
    ocr_lines = [OcrLine(t, (0, 0, 1, 1)) for t in lines]
    assert answer_choice(read, ocr_lines, {**CHOICES, "D": "FIRE EXIT"}) == expected


@pytest.mark.parametrize(("read", "question", "expected"), [
    ("exit", 'Does the sign say "EXIT"?', True),
    ("exit", "Is the word STOP written on the sign?", False),
    ("fire exit", "Is there a fire exit sign?", True),
    ("", "Is there a circle?", False),
])
def test_ocr_yesno_from_key_words(read, question, expected) -> None:
    assert answer_yesno(read, question) is expected
