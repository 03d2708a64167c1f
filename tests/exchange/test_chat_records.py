"""Chat records imported as question/answer items: Hugging Face `messages` (text or
text-and-image parts) in json, jsonl and parquet sources, LLaVA `conversations`, and
malformed chats as one-line problems."""

from __future__ import annotations

import hashlib
import io
import json

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.io import read_jsonl
from bench_kit.items import read_items


@pytest.fixture(autouse=True)
def _no_params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml: any capability is taken


def _run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def _png(colour) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (5, 4), colour).save(buf, format="PNG")
    return buf.getvalue()


CHAT = {"id": "c1", "messages": [
    {"role": "system", "content": "Answer briefly."},
    {"role": "user", "content": "What animal is this?"},
    {"role": "assistant", "content": " A cat. "},
    {"role": "user", "content": "What colour is it?"},
    {"role": "assistant", "content": "Grey."}]}


@pytest.mark.parametrize("fmt, name, text", [
    ("json", "chats.json", json.dumps([CHAT])),
    ("jsonl", "chats.jsonl", json.dumps(CHAT) + "\n"),
])
def test_messages_with_text_content(tmp_path, fmt, name, text):
    src = tmp_path / name
    src.write_text(text, encoding="utf-8")
    out = tmp_path / "o" / "items.jsonl"
    result = _run("import", fmt, src, "--out", out, "--capability", "understanding.chat")
    assert result.exit_code == 0, result.output
    assert "messages: 1 chat records, question = text of the first user turn" in result.stderr
    [item] = read_items(out)
    assert (item.id, item.question, item.answers, item.task) == (
        "c1", "What animal is this?", ["A cat."], "open")
    assert item.meta["source"]["system"] == "Answer briefly."
    assert item.meta["source"]["turns"] == CHAT["messages"][3:]


def test_a_question_column_wins_over_the_chat(tmp_path):
    src = tmp_path / "q.jsonl"
    src.write_text(json.dumps({"question": "Is it a cat?", "answer": "yes",
                               "messages": CHAT["messages"]}) + "\n", encoding="utf-8")
    out = tmp_path / "items.jsonl"
    result = _run("import", "jsonl", src, "--out", out, "--capability", "understanding.chat")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert item.question == "Is it a cat?" and item.meta["source"]["messages"][0]["role"] == \
        "system"
    assert "chat records" not in result.stderr


@pytest.mark.parametrize("messages, says", [
    ("hello", "expected a list of {role, content} turns"),
    ([{"role": "user", "content": "q"}], "expected a list of {role, content} turns"),
    ([{"role": "user", "content": [{"type": "video"}, {"type": "text", "text": "q"}]},
      {"role": "assistant", "content": "a"}],
     "content part of type 'video' is neither text nor an image placeholder"),
    ([{"role": "user", "content": {"text": "q"}}, {"role": "assistant", "content": "a"}],
     "a turn's content must be text or a list of parts, got dict"),
    ([{"content": "q"}, {"role": "assistant", "content": "a"}], "a turn without role"),
    (["q", "a"], "a turn must be an object, got str"),
    ([{"role": "assistant", "content": "a"}, {"role": "user", "content": "q"}],
     "the first turn must be from the user"),
    ([{"role": "system", "content": "s"}, {"role": "user", "content": "q"}],
     "the first turn must be from the user"),
])
def test_malformed_chats_are_one_line_problems(tmp_path, messages, says):
    src = tmp_path / "bad.jsonl"
    src.write_text(json.dumps({"id": "b1", "messages": messages}) + "\n", encoding="utf-8")
    result = _run("import", "jsonl", src, "--out", tmp_path / "o.jsonl",
                  "--capability", "understanding.chat")
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    first = result.stderr.splitlines()[0]
    assert first.startswith(f"{src}:1: id=b1 field=messages: ") and says in first
    assert "Traceback" not in result.output


def test_parquet_messages_with_image_parts_and_embedded_images(tmp_path):
    """Two image parts and two embedded images stay a list, in order; a malformed chat row
    is rejected without its image bytes in the rejects file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    part = pa.struct([("index", pa.int64()), ("text", pa.string()), ("type", pa.string())])
    turn = pa.struct([("content", pa.list_(part)), ("role", pa.string())])
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    red, blue = _png((200, 0, 0)), _png((0, 0, 200))
    rows = [
        {"messages": [
            {"role": "user", "content": [
                {"index": 0, "text": None, "type": "image"},
                {"index": 1, "text": None, "type": "image"},
                {"index": None, "text": "Which picture is red?", "type": "text"}]},
            {"role": "assistant", "content": [
                {"index": None, "text": "The first.", "type": "text"}]}],
         "images": [{"bytes": red, "path": "r.png"}, {"bytes": blue, "path": "b.png"}]},
        {"messages": [{"role": "user", "content": [
            {"index": None, "text": "No reply?", "type": "text"}]}],
         "images": [{"bytes": red, "path": "r.png"}]},
    ]
    table = pa.Table.from_pylist(rows, schema=pa.schema([("messages", pa.list_(turn)),
                                                         ("images", pa.list_(image))]))
    src = tmp_path / "test-00000-of-00001.parquet"
    pq.write_table(table, src)
    out = tmp_path / "o" / "items.jsonl"
    result = _run("import", "hf", src, "--out", out, "--capability", "understanding.chat",
                  "--on-error", "skip")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    # several images: their placeholders stay in the question, numbered (MMMU's convention)
    assert item.question == "<image 1>\n<image 2>\nWhich picture is red?"
    assert item.answers == ["The first."]
    assert [(tmp_path / "o" / p).read_bytes() for p in item.image] == [red, blue]
    [reject] = read_jsonl(tmp_path / "o" / "items.rejects.jsonl")
    assert reject["field"] == "messages" and reject["line"] == 2
    # the whole source row, its image bytes named by size and hash (JSON cannot hold them)
    assert reject["row"]["messages"] == rows[1]["messages"]
    digest = hashlib.sha256(red).hexdigest()[:20]
    assert reject["row"]["images"] == [{"bytes": f"<{len(red)} bytes, sha256 {digest}>",
                                        "path": "r.png"}]
    assert "messages: 2 chat records (1 read, 1 rejected)" in result.stderr


def test_a_rejected_chat_row_is_kept_whole_in_the_rejects_file(tmp_path):
    rows = [{"id": "a", "messages": [{"role": "user", "content": "2+2?"},
                                     {"role": "assistant", "content": "4"}]},
            {"id": "b", "note": "kept", "messages": [{"role": "assistant", "content": "hi"},
                                                      {"role": "user", "content": "x"}]}]
    src = tmp_path / "mix.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    result = _run("import", "jsonl", src, "--out", tmp_path / "o" / "items.jsonl",
                  "--capability", "understanding.chat", "--on-error", "skip")
    assert result.exit_code == 0, result.output
    [reject] = read_jsonl(tmp_path / "o" / "items.rejects.jsonl")
    assert reject["row"] == rows[1]
    assert "messages: 2 chat records (1 read, 1 rejected)" in result.stderr


def test_llava_conversations_keep_their_rule(tmp_path):
    src = tmp_path / "llava.json"
    (tmp_path / "bus.png").write_bytes(_png((0, 0, 0)))
    src.write_text(json.dumps([{"id": "l1", "image": "bus.png", "conversations": [
        {"from": "human", "value": "<image>\nWhat is shown?"},
        {"from": "gpt", "value": "A bus."}]}]), encoding="utf-8")
    out = tmp_path / "items.jsonl"
    result = _run("import", "json", src, "--out", out, "--capability", "understanding.chat")
    assert result.exit_code == 0, result.output
    assert "conversations: 1 chat records, question = first human turn" in result.stderr
    [item] = read_items(out)
    assert (item.question, item.answers) == ("What is shown?", ["A bus."])
