"""Public benchmark files in the shapes they ship (tests/exchange/fixtures/real/*/README.md),
each imported with the one command its README gives. Expected values are written by hand
from the source files, never copied from importer output."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.items import read_items

REAL = Path(__file__).parent / "fixtures" / "real"


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture()
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _by_id(path: Path) -> dict:
    return {i.id: i for i in read_items(path)}


def _image_bytes(here: Path, item, source: Path) -> None:
    assert (here / item.image).read_bytes() == source.read_bytes()


def test_pope_json_lines_in_a_json_file(here):
    folder = REAL / "pope_coco"
    result = _run("import", "json", str(folder / "coco_pope_adversarial.json"), "--out",
                  "items.jsonl", "--capability", "perception.hallucination",
                  "--image-root", str(folder / "val2014"))
    assert result.exit_code == 0, result.output
    assert "shape: JSON Lines, 12 records" in result.stderr
    assert "question<-text, answer<-label, id<-question_id" in result.stderr
    items = _by_id(here / "items.jsonl")
    expected = {"1": ("Is there a snowboard in the image?", "yes", "000000310196"),
                "2": ("Is there a backpack in the image?", "no", "000000310196"),
                "3": ("Is there a person in the image?", "yes", "000000310196"),
                "7": ("Is there a truck in the image?", "yes", "000000210789"),
                "12": ("Is there a handbag in the image?", "no", "000000210789")}
    for qid, (question, gold, image) in expected.items():
        item = items[qid]
        assert (item.question, item.answers, item.task, item.choices) == \
            (question, [gold], "yesno", None)
        name = f"COCO_val2014_{image}.jpg"
        assert item.meta["source"]["image"] == name
        _image_bytes(here, item, folder / "val2014" / name)
    assert len(items) == 12


def test_hallusionbench_one_zero_golds_and_filename_column(here):
    folder = REAL / "hallusionbench"
    args = ("import", "json", str(folder / "HallusionBench.json"), "--out", "items.jsonl",
            "--capability", "perception.hallucination",
            "--map", "id=category,subcategory,set_id,figure_id,question_id")
    no_root = _run(*args)
    assert no_root.exit_code == 1 and not (here / "items.jsonl").exists()
    assert "column 'filename' names image files ('./VS/chart/0_1.png'" in no_root.stderr
    assert "--image-root" in no_root.stderr

    result = _run(*args, "--image-root", str(folder / "hallusion_bench"))
    assert result.exit_code == 0, result.output
    out = result.stderr
    assert "warning: image column: 'filename'" in out
    assert "warning: 8 yesno: golds 1/0, no options, yes/no questions or statements — " \
           "pass --task numeric if these are counts" in out
    items = _by_id(here / "items.jsonl")
    china = "Is China, Hongkong SAR, the leading importing country of gold, silverware, " \
            "and jewelry with the highest import value in 2018?"
    swiss = "Is Switzerland, the leading importing country of gold, silverware, and jewelry " \
            "with the highest import value in 2018?"
    expected = {"VS_chart_0_0_0": (china, "no", None), "VS_chart_0_0_1": (swiss, "yes", None),
                "VS_chart_0_1_0": (china, "no", "VS/chart/0_1.png"),
                "VS_chart_0_1_1": (swiss, "yes", "VS/chart/0_1.png"),
                "VS_chart_0_1_3": (None, "no", "VS/chart/0_1.png")}
    for item_id, (question, gold, image) in expected.items():
        item = items[item_id]
        assert item.task == "yesno" and item.answers == [gold]
        if question:
            assert item.question == question
        assert item.meta["category"] == "VS"
        assert item.meta["source"]["subcategory"] == "chart"
        assert item.meta["source"]["gt_answer_details"].startswith("Switzerland is the leading")
        if image:
            _image_bytes(here, item, folder / "hallusion_bench" / image)
        else:
            assert item.image is None
    again = _run(*args, "--image-root", str(folder / "hallusion_bench"), "--task", "numeric",
                 "--out", "numeric.jsonl")
    assert again.exit_code == 0, again.output
    assert {i.task for i in read_items(here / "numeric.jsonl")} == {"numeric"}


def test_scienceqa_problems_keyed_by_id_with_zero_based_golds(here):
    folder = REAL / "scienceqa_problems"
    result = _run("import", "json", str(folder / "problems.json"), "--out", "items.jsonl",
                  "--capability", "reasoning.science", "--image-root", str(folder / "images"))
    assert result.exit_code == 0, result.output
    assert "shape: one object keyed by id, 8 records" in result.stderr
    assert "8 mc golds are option indexes, read 0-based (some gold is 0) — pass " \
           "--gold-index 1" in result.stderr
    items = _by_id(here / "items.jsonl")
    first = items["1"]
    assert first.question == "Which of these states is farthest north?"
    assert first.choices == {"A": "West Virginia", "B": "Louisiana", "C": "Arizona",
                             "D": "Oklahoma"}
    assert first.answers == ["A"] and first.task == "mc"
    assert first.meta["source"]["skill"] == "Read a map: cardinal directions"
    assert first.meta["source"]["task"] == "closed choice"      # not a bench_kit task
    assert first.meta["split"] == "train" and first.meta["category"] == "Geography"
    _image_bytes(here, first, folder / "images" / "1" / "image.png")
    assert items["4"].choices == {"A": "chiasmus", "B": "apostrophe"}
    assert items["4"].answers == ["B"] and items["4"].image is None
    assert items["4"].meta["split"] == "test"
    assert items["5"].answers == ["B"] and items["5"].choices["B"] == \
        "how steady a parachute with a 1 m vent was at 200 km per hour"
    assert items["6"].answers == ["A"] and items["6"].meta["split"] == "val"
    assert items["8"].choices == {"A": "no", "B": "yes"} and items["8"].answers == ["B"]
    assert items["8"].meta["source"]["task"] == "yes or no"
    one_based = _run("import", "json", str(folder / "problems.json"), "--out", "one.jsonl",
                     "--capability", "reasoning.science", "--image-root",
                     str(folder / "images"), "--gold-index", "1")
    assert one_based.exit_code == 1    # gold 0 has no option when counting from 1


def test_mathvista_testmini_option_text_golds_and_nested_metadata(here):
    folder = REAL / "mathvista_testmini"
    result = _run("import", "json", str(folder / "testmini.json"), "--out", "items.jsonl",
                  "--capability", "reasoning.math")
    assert result.exit_code == 0, result.output
    # pids 3, 5, 6, 7, 8, 9 give the option text as the gold; 10's "E" is also its letter
    assert "6 mc golds are option text, mapped to their letters" in result.stderr
    items = _by_id(here / "items.jsonl")
    assert items["1"].task == "numeric" and items["1"].answers == ["1.2"]
    assert items["2"].answers == ["1000"] and items["2"].meta["source"]["unit"] == "g"
    assert items["3"].task == "mc" and items["3"].answers == ["C"]          # "145°"
    assert items["3"].choices == {"A": "135°", "B": "140°", "C": "145°", "D": "150°"}
    assert items["5"].question == "Find $m\\angle H$" and items["5"].answers == ["A"]
    assert items["7"].answers == ["B"] and items["7"].choices["E"] == "quarter past"
    assert items["9"].answers == ["D"]                                       # "8"
    assert items["10"].answers == ["E"]
    meta = items["4"].meta["source"]["metadata"]
    assert meta["source"] == "CLEVR-Math" and meta["skills"] == ["geometry reasoning",
                                                                 "arithmetic reasoning"]
    assert items["4"].question == "Subtract all large rubber spheres. Subtract all big shiny " \
                                  "cylinders. How many objects are left?"
    _image_bytes(here, items["6"], folder / "images" / "6.jpg")


def test_llava_conversations_with_options_in_the_prompt(here):
    folder = REAL / "llava_scienceqa_conversations"
    result = _run("import", "json", str(folder / "llava_test_CQM-A.json"), "--out",
                  "items.jsonl", "--capability", "reasoning.science", "--image-root",
                  str(folder / "images"))
    assert result.exit_code == 0, result.output
    assert "warning: 8 mc: letter golds with options written in the question" in result.stderr
    assert "pass --task open to keep the prompt whole" in result.stderr
    items = _by_id(here / "items.jsonl")
    assert items["4"].question == ("Which figure of speech is used in this text?\nSing, O "
                                   "goddess, the anger of Achilles son of Peleus, that brought "
                                   "countless ills upon the Achaeans.\n\u2014Homer, The Iliad")
    assert items["4"].choices == {"A": "chiasmus", "B": "apostrophe"}
    assert items["4"].answers == ["B"] and items["4"].image is None
    assert items["11"].question == "What is the name of the colony shown?"
    assert items["11"].choices == {"A": "Maryland", "B": "New Hampshire", "C": "Rhode Island",
                                   "D": "Vermont"}
    assert items["11"].answers == ["B"] and items["11"].meta["source"]["image"] == "11/image.png"
    _image_bytes(here, items["11"], folder / "images" / "11" / "image.png")
    assert items["15"].choices == {"A": "no", "B": "yes"} and items["15"].answers == ["A"]
    assert items["26"].question == "Context: Select the better estimate.\nHow long does it " \
                                   "take to bake lasagna in the oven?"
    assert items["26"].answers == ["A"] and items["26"].choices["B"] == "33 hours"
    assert items["23"].answers == ["B"] and items["23"].choices == {"A": "bilberry",
                                                                    "B": "mushroom"}
    whole = _run("import", "json", str(folder / "llava_test_CQM-A.json"), "--out",
                 "open.jsonl", "--capability", "reasoning.science", "--image-root",
                 str(folder / "images"), "--task", "open")
    assert whole.exit_code == 0, whole.output
    kept = _by_id(here / "open.jsonl")["4"]
    assert kept.task == "open" and kept.question.endswith("A. chiasmus\nB. apostrophe")


def test_llava_bench_questions_joined_to_answers(here):
    folder = REAL / "llava_bench_coco"
    rubric = "Rate helpfulness, relevance, accuracy and detail against the reference answer"
    result = _run("import", "json", str(folder / "qa90_questions.jsonl"), "--answers",
                  str(folder / "qa90_gpt4_answer.jsonl"), "--join-on", "question_id",
                  "--out", "items.jsonl", "--capability", "understanding.conversation",
                  "--image-root", str(folder / "val2014"), "--metric", "rouge_l",
                  "--rubric", rubric)
    assert result.exit_code == 0, result.output
    assert "answers: from qa90_gpt4_answer.jsonl, joined on question_id" in result.stderr
    items = _by_id(here / "items.jsonl")
    first = items["0"]
    assert first.question == "What is the color of the two suitcases in the image?"
    assert first.answers == ["The colors of the two suitcases in the image are black and "
                             "brown with yellow details."]
    assert (first.task, first.metric, first.rubric) == ("open", "rouge_l", rubric)
    assert first.meta["category"] == "conv"
    _image_bytes(here, first, folder / "val2014" / "000000441147.jpg")
    assert items["1"].question == "Analyze the image in a comprehensive and detailed manner."
    assert items["1"].meta["category"] == "detail"
    assert items["3"].question == "What are the main objects on the table in the image?"
    assert items["4"].question == "Describe the following image."
    _image_bytes(here, items["5"], folder / "val2014" / "000000353536.jpg")
    assert len(items) == 6
