"""Real public files (tests/exchange/fixtures/real/*/README.md) imported through the CLI
exactly as their READMEs say, and the quirks they carry."""

from __future__ import annotations

import base64
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from bench_kit.authoring.caption_checks import FUNCTION_WORDS
from bench_kit.cli import cli
from bench_kit.io import read_jsonl
from bench_kit.items import read_items

REAL = Path(__file__).parent / "fixtures" / "real"


def _run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture()
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml: documented defaults
    return tmp_path


def test_dsg_1k_prompt_only_checklists(here):
    src = REAL / "dsg_1k_prompts" / "dsg-1k-anns.csv"
    result = _run("import", "checklist-csv", str(src), "--out", "items.jsonl",
                  "--capability", "alignment.t2i")
    assert result.exit_code == 0, result.output
    items = read_items(here / "items.jsonl")
    assert [(i.id, len(i.checks)) for i in items] == [
        ("whoops_5", 3), ("localized_narratives_95", 5), ("posescript_93", 8)]
    assert all(c.answer for i in items for c in i.checks)          # prompt-only: all "yes"
    assert all(i.image is None and i.task == "checklist" for i in items)
    # the decisions, and the per-check DSG columns kept (values from the file's line 2)
    assert ("columns: id<-item_id, check<-question_natural_language, prompt (meta.prompt)"
            "<-text, check id<-proposition_id, dependency<-dependency; no answer column: "
            "every check expects yes") in result.output
    assert ("kept per check in meta.check_source: keywords, category_broad, "
            "category_detailed, tuple") in result.output
    assert items[0].meta["check_source"]["1"] == {
        "keywords": "rubix cube", "category_broad": "entity",
        "category_detailed": "whole", "tuple": "entity - whole (rubix cube)"}
    first = items[0]
    assert first.meta["prompt"] == "A rubix cube with ten squares of purple"
    assert first.checks[1].name == "Is the rubix cube purple?"
    assert first.meta["dependencies"] == {"2": ["1"], "3": ["1"]}
    assert items[1].meta["dependencies"]["5"] == ["1", "4"]
    assert first.group == "prompt:whoops_5" and first.layer == "alignment"


def test_dsg_answers_with_non_answers_are_listed_then_skipped(here):
    src = REAL / "dsg_pali17b_answers" / "pali17b_dsg.csv"
    args = ("import", "checklist-csv", str(src), "--out", "items.jsonl",
            "--capability", "alignment.t2i")
    failed = _run(*args)
    assert failed.exit_code == 1 and not (here / "items.jsonl").exists()
    problems = failed.stderr.splitlines()
    assert len(problems) == 7 and problems[-1].endswith("6 problem(s) found")
    assert problems[0] == (f"{src}:7: id=tifa160_23 field=answer: 'stat stat' repeats one "
                           "token; not an answer")
    assert sum("'unsuitable' is not an answer" in p for p in problems) == 3
    assert any(p.startswith(f"{src}:20: ") and p.endswith("empty answer") for p in problems)
    assert any("'unanswerable' is not an answer" in p for p in problems)

    skipped = _run(*args, "--on-error", "skip")
    assert skipped.exit_code == 0, skipped.output
    assert "rejected 6 rows" in skipped.stderr
    items = {i.id: i for i in read_items(here / "items.jsonl")}
    assert sorted(items) == ["countbench_32:sd2dot1", "tifa160_0:sd1dot1", "tifa160_108:sd1dot1",
                             "tifa160_23:sd1dot1", "tifa160_77:sd1dot1"]
    woman = items["tifa160_77:sd1dot1"]       # golds come from the file, "no" kept as False
    assert [c.answer for c in woman.checks] == [False, False]
    assert woman.meta["t2i_model"] == "sd1dot1" and woman.group == "prompt:tifa160_77"
    rejects = read_jsonl(here / "items.rejects.jsonl")
    assert [r["line"] for r in rejects] == [7, 13, 15, 16, 20, 25]
    assert rejects[1]["row"]["question"] == "Is the woman bent over?"
    # no rejected value became a gold
    golds = {c.name for i in items.values() for c in i.checks}
    assert "Is the woman bent over?" not in golds


def test_mmbench_row_keeps_filled_options_and_round_trips_by_vlmevalkit_rules(here):
    pd = pytest.importorskip("pandas")
    src = REAL / "mmbench_dev_en" / "MMBench_DEV_EN.tsv"
    result = _run("import", "vlmevalkit", str(src), "--out", "items.jsonl",
                  "--capability", "reasoning.science")
    assert result.exit_code == 0, result.output
    [item] = read_items(here / "items.jsonl")
    assert item.id == "241" and item.task == "mc" and item.answers == ["B"]
    # the header is index, question, hint, A-D, answer, category, image
    assert ("shape: VLMEvalKit TSV, id<-index, image<-image (base64), options: A, B, C, D"
            in result.output)
    assert "columns: question, answer, category, hint" in result.output
    assert sorted(item.choices) == ["A", "B"]                      # empty C, D dropped
    assert item.meta["hint"].startswith("The passage below describes an experiment.")
    assert "\n\nMadelyn applied" in item.meta["hint"]             # quoted multi-line hint
    assert item.meta["category"] == "identity_reasoning"
    assert (here / item.image).is_file()

    exported = _run("export", "vlmevalkit", "--items", "items.jsonl", "--out", "back.tsv")
    assert exported.exit_code == 0, exported.output
    # VLMEvalKit's reading: pandas read_csv(sep="\t"); options are the A-J columns not NaN
    row = pd.read_csv(here / "back.tsv", sep="\t").iloc[0]
    options = [c for c in "ABCDEFGHIJ" if c in row and not pd.isna(row[c])]
    assert options == ["A", "B"] and row["answer"] == "B"
    assert row["question"] == item.question and row["hint"] == item.meta["hint"]
    # VLMEvalKit decodes the base64 cell into the image file: the same bytes as imported
    assert base64.b64decode(row["image"]) == (here / item.image).read_bytes()


def _caption_run(here, captions: Path, image_root: Path, *extra: str):
    return _run("author", "from-captions", "--captions", str(captions),
                "--image-root", str(image_root), "--out", str(here / "out" / "items.jsonl"),
                *extra)


def _well_formed(question: str) -> bool:
    words = question.rstrip("?").lower().split()
    return question.endswith("?") and "  " not in question and " ," not in question \
        and words[-1] not in FUNCTION_WORDS and "the and" not in question.lower()


def test_coco_captions_with_a_missing_image(here):
    folder = REAL / "coco_captions_val2017"
    failed = _caption_run(here, folder / "captions_val2017.json", folder / "val2017")
    assert failed.exit_code == 1 and not (here / "out" / "items.jsonl").exists()
    lines = failed.stderr.splitlines()
    assert "no params.yaml here" in lines[0]
    problems = [line for line in lines if "field=image" in line]
    assert len(problems) == 5 and "000000011813.jpg' not found" in problems[0]

    result = _caption_run(here, folder / "captions_val2017.json", folder / "val2017",
                          "--on-error", "skip")
    assert result.exit_code == 0, result.output
    items = read_items(here / "out" / "items.jsonl")
    assert items and all(_well_formed(i.question) for i in items)
    assert all((here / "out" / i.image).is_file() for i in items)   # copied next to the items
    assert len(items) == 7 and {i.task for i in items} == {"numeric"}
    assert "How many trains are parked on the train tracks?" in {i.question for i in items}
    rejects = read_jsonl(here / "out" / "items.rejects.jsonl")
    assert sum(r["field"] == "image" for r in rejects) == 5
    malformed = {r["row"]["question"]: r["reason"] for r in rejects if r["field"] == "question"}
    assert len(malformed) == 7 and "stop sign" in malformed["What colour is the stop?"]
    assert "does not parse" in malformed["How many riders are there guide their horses along "
                                         "a rock strewn sandy beach?"]
    assert "kept 7 of 15 generated questions" in result.stderr


def test_flickr8k_token_file(here):
    folder = REAL / "flickr8k_tokens"
    result = _caption_run(here, folder / "Flickr8k.token.txt", folder / "Flicker8k_Dataset")
    assert result.exit_code == 0, result.output
    items = read_items(here / "out" / "items.jsonl")
    assert all(_well_formed(i.question) for i in items)
    questions = {(i.question, tuple(i.answers)) for i in items}
    assert ("What colour is the dress?", ("pink",)) in questions
    assert ("What colour is the dog?", ("black",)) in questions
    rejects = read_jsonl(here / "out" / "items.rejects.jsonl")
    assert [r["row"]["question"] for r in rejects] == ["What colour is the and?"]
    assert "'and'" in rejects[0]["reason"]
    assert "kept 9 of 10 generated questions" in result.stderr


def test_fixture_readmes_cite_source_and_commit():
    for readme in REAL.glob("*/README.md"):
        text = readme.read_text(encoding="utf-8")
        assert "https://github.com/" in text and "commit " in text, readme
        assert "bench-kit " in text, readme     # how to import it


def test_real_fixtures_are_small():
    total = sum(p.stat().st_size for p in REAL.rglob("*") if p.is_file())
    assert total < 250_000     # the LLaMA-Factory parquet's three real JPEGs are 132 KB
    shutil.disk_usage(REAL)  # the folder exists


def test_table_in_docs_lists_every_real_fixture():
    doc = (Path(__file__).parents[2] / "docs" / "IMPORT_EXPORT.md").read_text(encoding="utf-8")
    for folder in REAL.iterdir():
        if folder.is_dir():
            assert f"`{folder.name}`" in doc, folder.name


def test_docvqa_donut_imagefolder_pairs_expand(here):
    result = _run("import", "hf", str(REAL / "docvqa_donut"), "--split", "test", "--out",
                  "items.jsonl", "--capability", "understanding.document", "--layer",
                  "understanding")
    assert result.exit_code == 0, result.output
    items = read_items(here / "items.jsonl")
    assert len(items) == 13 and "(7 numeric, 6 open)" in result.stderr
    by_id = {i.id: i for i in items}
    assert by_id["1-1"].question == "What time is the \u2018coffee break\u2019?"
    assert by_id["1-1"].answers == ["11:14 to 11:39 a.m.", "11.14 to 11.39 a.m."]
    assert by_id["3-1"].answers == ["A. C. Monk"] and by_id["3-3"].task == "numeric"
    for row in ("1", "2", "3"):
        same = [i for i in items if i.id.startswith(f"{row}-")]
        assert len({i.image for i in same}) == 1 and len({i.group for i in same}) == 1
    assert len({i.image for i in items}) == 3


def test_llamafactory_parquet_with_a_list_of_image_structs(here):
    """A real `datasets`-written parquet: `images` is list<struct<bytes, path>> (bytes null,
    paths relative to the repository root), `messages` a chat with text and image parts."""
    import pyarrow.parquet as pq
    from PIL import Image

    folder = REAL / "llamafactory_mllm_example"
    src = folder / "data" / "mllm_example_dataset" / "data" / "test-0.parquet"
    images = pq.read_schema(src).field("images").type
    assert str(images) == "list<element: struct<bytes: binary, path: string>>"
    args = ("import", "hf", str(src), "--out", "items.jsonl",
            "--capability", "understanding.conversation")
    lost = _run(*args)          # the paths are relative to where the dataset was built
    assert lost.exit_code == 1 and not (here / "items.jsonl").exists()
    assert lost.stderr.splitlines()[0] == (
        f"{src}:1: field=images: image file 'data/images/1.jpg' not found; give "
        "--image-root DIR to find it by its trailing path parts")

    result = _run(*args, "--image-root", str(folder))
    assert result.exit_code == 0, result.output
    assert "messages: 3 chat records, question = text of the first user turn" in result.stderr
    assert "image columns: images (image structs; several per row kept in order)" \
        in result.stderr
    assert "imported 3 items (3 open) and 3 images" in result.stderr
    items = read_items(here / "items.jsonl")
    # expected values read from the parquet's rows and the three JPEGs
    assert [(i.id, i.question, i.answers, i.task) for i in items] == [
        ("1", "Who are they?", ["They're Kane and Gretzka from Bayern Munich."], "open"),
        ("2", "Who is he?", ["He's Thomas Muller from Bayern Munich."], "open"),
        ("3", "Please describe this image",
         ["Chinese astronaut Gui Haichao is giving a speech."], "open")]
    sizes = {"1.jpg": (300, 168), "2.jpg": (599, 399), "3.jpg": (1080, 600)}
    for item, name in zip(items, sizes):
        assert isinstance(item.image, list) and len(item.image) == 1   # a list stays a list
        stored = here / item.image[0]
        assert stored.read_bytes() == (folder / "data" / "images" / name).read_bytes()
        with Image.open(stored) as im:
            assert im.size == sizes[name]
    assert len(list((here / "images").iterdir())) == 3
    later = [[part["text"] for turn in i.meta["source"]["turns"] for part in turn["content"]]
             for i in items]
    assert later[0] == ["What are they doing?", "They are celebrating on the soccer field"]
    assert later[1] == ["Why is he on the ground?",
                        "Because he's sliding on his knees to celebrate."]
    assert later[2][0] == "What has he accomplished?"
    assert later[2][1].startswith("He was appointed to be a payload specialist on Shenzhou 16")
