"""Images of chat records: carried inside content parts, taken in order from the row's
image column, counted against the placeholders, kept out of the question when they belong
to later turns, and written in the question as `<image 1>`, `<image 2>`, … when several."""

from __future__ import annotations

import base64
import hashlib
import io

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.exchange.chatturns import IMAGE_MARK, question_text
from bench_kit.io import read_jsonl
from bench_kit.items import read_items
from tests.conftest import import_json_rows, write_png

RED, BLUE = (200, 0, 0), (0, 0, 200)


@pytest.fixture(autouse=True)
def _no_params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml: any capability is taken


@pytest.fixture()
def pngs(tmp_path):
    """a.png red, b.png blue, next to the source file; their bytes."""
    return {name: write_png(tmp_path / name, colour).read_bytes()
            for name, colour in (("a.png", RED), ("b.png", BLUE))}


def _stored(out, item) -> list[bytes]:
    paths = item.image if isinstance(item.image, list) else [item.image]
    return [(out.parent / p).read_bytes() for p in paths]


def _user(*parts):
    return {"role": "user", "content": list(parts)}


REPLY = {"role": "assistant", "content": "a cat"}
TEXT = {"type": "text", "text": "What is it?"}


@pytest.mark.parametrize("part", [
    {"type": "image", "image": "a.png"},
    {"type": "image", "url": "a.png"},
    {"type": "image", "path": "a.png"},
    {"type": "image", "image": {"path": "a.png"}},
    {"type": "image_url", "image_url": {"url": "a.png"}},
])
def test_an_image_carried_in_a_part_is_stored(tmp_path, pngs, part):
    result, _, out = import_json_rows(tmp_path, [{"id": "x", "messages": [_user(part, TEXT), REPLY]}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert _stored(out, item) == [pngs["a.png"]] and item.question == "What is it?"


def test_a_data_url_part_is_decoded_and_a_web_url_is_a_row_problem(tmp_path, pngs):
    data = "data:image/png;base64," + base64.b64encode(pngs["b.png"]).decode()
    rows = [{"id": "d", "messages": [_user({"type": "image_url", "image_url": {"url": data}},
                                           TEXT), REPLY]},
            {"id": "w", "messages": [_user({"type": "image", "url": "https://x.org/a.png"},
                                           TEXT), REPLY]}]
    result, _, out = import_json_rows(tmp_path, rows, "--on-error", "skip")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert item.id == "d" and _stored(out, item) == [pngs["b.png"]]
    [reject] = read_jsonl(out.parent / "items.rejects.jsonl")
    assert (reject["line"], reject["field"]) == (2, "image")
    assert reject["reason"].startswith("image URL 'https://x.org/a.png' is not fetched")


@pytest.mark.parametrize("part", [
    lambda png, folder: {"type": "image", "image": f"file://{folder}/a.png"},
    lambda png, folder: {"type": "image", "image": "DATA:image/png;base64,"
                         + base64.b64encode(png).decode()},
    lambda png, folder: {"type": "image", "source": {  # Anthropic's base64 source
        "type": "base64", "media_type": "image/png", "data": base64.b64encode(png).decode()}},
])
def test_file_urls_upper_case_data_urls_and_anthropic_sources(tmp_path, pngs, part):
    rows = [{"id": "x", "messages": [_user(part(pngs["a.png"], tmp_path), TEXT), REPLY]}]
    result, _, out = import_json_rows(tmp_path, rows)
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert _stored(out, item) == [pngs["a.png"]]


def test_carried_images_and_the_image_column_fill_the_placeholders_in_order(tmp_path, pngs):
    """The part that carries b.png stays first; the bare placeholder takes the column's."""
    row = {"id": "x", "images": ["a.png"], "messages": [
        _user({"type": "image", "image": "b.png"}, {"type": "image"},
              {"type": "text", "text": "Which is red?"}), REPLY]}
    result, _, out = import_json_rows(tmp_path, [row])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert _stored(out, item) == [pngs["b.png"], pngs["a.png"]]
    assert item.question == "<image 1>\n<image 2>\nWhich is red?"


def test_parquet_part_structs_first_turn_stored_later_turn_kept_without_bytes(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    def png(colour):
        buf = io.BytesIO()
        from PIL import Image
        Image.new("RGB", (4, 4), colour).save(buf, format="PNG")
        return buf.getvalue()

    red, blue = png(RED), png(BLUE)

    def turn(role, image, text):
        parts = [{"type": "text", "text": text, "image": None}]
        if image is not None:
            parts.insert(0, {"type": "image", "text": None, "image": image})
        return {"role": role, "content": parts}

    rows = [{"id": "1", "messages": [
        turn("user", {"bytes": red, "path": "red.png"}, "What colour?"),
        turn("assistant", None, "red"),
        turn("user", {"bytes": blue, "path": "blue.png"}, "And this?"),
        turn("assistant", None, "blue")]}]
    src = tmp_path / "inline.parquet"
    pq.write_table(pa.Table.from_pylist(rows), src)
    out = tmp_path / "o" / "items.jsonl"
    result = CliRunner().invoke(cli, ["import", "hf", str(src), "--out", str(out),
                                      "--capability", "understanding.chat"])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert item.question == "What colour?" and _stored(out, item) == [red]
    digest = hashlib.sha256(blue).hexdigest()[:20]
    described = f"<{len(blue)} bytes, sha256 {digest}>"
    assert item.meta["source"]["later_turn_images"] == [f"blue.png {described}"]
    assert item.meta["source"]["turns"][0]["content"][0]["image"] == {
        "bytes": described, "path": "blue.png"}
    assert "1 image of later turns not attached (they belong to later questions)" in \
        result.stderr


def test_images_of_later_turns_are_not_the_questions(tmp_path, pngs):
    """LLaMA-Factory pairs `images` with the `<image>` tags of all turns, in order."""
    row = {"id": "x", "images": ["a.png", "b.png"], "messages": [
        {"role": "user", "content": "<image>What colour?"},
        {"role": "assistant", "content": "red"},
        {"role": "user", "content": "<image>And this?"},
        {"role": "assistant", "content": "blue"}]}
    result, _, out = import_json_rows(tmp_path, [row])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert _stored(out, item) == [pngs["a.png"]] and item.question == "What colour?"
    assert item.meta["source"]["later_turn_images"] == ["b.png"]


@pytest.mark.parametrize("content, images, says", [
    ([{"type": "image"}, TEXT], None,
     "the chat has 1 image placeholder for the row's images (1 in the first user turn) but "
     "the row has 0 images (no image column: --map image=COLUMN names one)"),
    ("<image>\n<image>\nWhich is bigger?", ["a.png"],
     "the chat has 2 image placeholders for the row's images (2 in the first user turn) but "
     "the row has 1 image in 'images'"),
    ("<image>What?", ["a.png", "b.png"],
     "the chat has 1 image placeholder for the row's images (1 in the first user turn) but "
     "the row has 2 images in 'images'"),
])
def test_placeholders_and_images_that_do_not_match_are_a_row_problem(tmp_path, pngs, content,
                                                                     images, says):
    row = {"id": "x", "messages": [{"role": "user", "content": content}, REPLY]}
    if images is not None:
        row["images"] = images
    result, src, _ = import_json_rows(tmp_path, [row])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == f"{src}:1: id=x field=image: {says}"


def test_map_image_names_the_column_the_placeholders_take_from(tmp_path, pngs):
    row = {"id": "x", "filename": "b.png", "messages": [
        {"role": "user", "content": "<image>\nWhat colour?"}, REPLY]}
    result, _, out = import_json_rows(tmp_path, [row], "--map", "image=filename")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert _stored(out, item) == [pngs["b.png"]] and item.question == "What colour?"


def test_a_chat_without_placeholders_gives_the_question_all_the_rows_images(tmp_path, pngs):
    row = {"id": "x", "image": "a.png", "messages": [{"role": "user", "content": "What?"},
                                                      REPLY]}
    result, _, out = import_json_rows(tmp_path, [row])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert _stored(out, item) == [pngs["a.png"]] and item.question == "What?"
    assert "images: 1 chat row with images but no image placeholder in the chat: all the " \
           "row's images are the question's" in result.stderr


def test_interleaved_placeholders_keep_their_positions(tmp_path, pngs):
    rows = [{"id": "parts", "images": ["a.png", "b.png"], "messages": [_user(
                {"type": "text", "text": "Image 1:"}, {"type": "image"},
                {"type": "text", "text": "Image 2:"}, {"type": "image"},
                {"type": "text", "text": "Which one is larger?"}), REPLY]},
            {"id": "tags", "images": ["a.png", "b.png"], "messages": [
                {"role": "user", "content": "Compare <image> and <image>: which is bigger?"},
                REPLY]}]
    result, _, out = import_json_rows(tmp_path, rows)
    assert result.exit_code == 0, result.output
    parts, tags = read_items(out)
    assert parts.question == "Image 1:\n<image 1>\nImage 2:\n<image 2>\nWhich one is larger?"
    assert tags.question == "Compare <image 1> and <image 2>: which is bigger?"
    assert _stored(out, tags) == [pngs["a.png"], pngs["b.png"]]


@pytest.mark.parametrize("text, question", [
    (f"{IMAGE_MARK}\nWhat is shown?", "What is shown?"),          # LLaVA's prefix
    (f"{IMAGE_MARK}: what is shown?", "what is shown?"),          # no dangling colon
    (f"What is shown? {IMAGE_MARK}", "What is shown?"),
    (f"Is {IMAGE_MARK} a cat?", "Is <image 1> a cat?"),           # inside a sentence: kept
    (f"{IMAGE_MARK}{IMAGE_MARK}Which?", "<image 1><image 2>Which?"),
    ("No image here.", "No image here."),
])
def test_question_text_of_one_or_several_placeholders(text, question):
    assert question_text(text) == question


@pytest.mark.parametrize("parts, images", [
    ([{"type": "image"}], ["a.png"]),
    ([{"type": "image"}, {"type": "image"}], ["a.png", "b.png"]),
    ([{"type": "text", "text": "<image> <image>\n"}], ["a.png", "b.png"]),
])
def test_an_image_only_first_turn_says_it_has_no_text(tmp_path, pngs, parts, images):
    row = {"id": "x", "images": images, "messages": [_user(*parts), REPLY]}
    result, src, _ = import_json_rows(tmp_path, [row])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"{src}:1: id=x field=question: the first user turn holds only {len(images)} image "
        "placeholder(s) and no text: an item needs a question")
