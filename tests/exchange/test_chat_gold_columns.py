"""Chat records in rows that carry their own gold, system or turns columns: nothing the
source says is dropped (the source's gold wins, the chat's reply is kept), and a question
column blank or present leaves the chat's reply to be the gold."""

from __future__ import annotations

import pytest

from bench_kit.items import read_items
from tests.conftest import import_json_rows


@pytest.fixture(autouse=True)
def _no_params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml: any capability is taken


def _chat(question, reply, *later):
    turns = [{"role": "user", "content": question}, {"role": "assistant", "content": reply}]
    return turns + [{"role": r, "content": c} for r, c in later]


@pytest.mark.parametrize("column, value, answers", [
    ("answer", "yes", ["yes"]),
    ("label", "yes", ["yes"]),
    ("gold", "yes", ["yes"]),
    ("answers", ["yes", "yeah"], ["yes", "yeah"]),
])
def test_the_sources_gold_column_wins_and_the_reply_is_kept(tmp_path, column, value, answers):
    result, _, out = import_json_rows(tmp_path, [{"id": "x", column: value,
                                      "messages": _chat("Is it red?", "Yes, it is red.")}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert item.answers == answers
    assert item.meta["source"]["reply"] == "Yes, it is red."
    assert f"gold: the source's own answer column '{column}' (1 row), not the chat's " \
           "reply (kept as meta.source.reply)" in result.stderr


def test_without_a_gold_column_the_reply_is_the_gold(tmp_path):
    result, _, out = import_json_rows(tmp_path, [{"id": "x", "messages": _chat("Is it red?", "Yes.")}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert item.answers == ["Yes."] and "reply" not in item.meta.get("source", {})
    assert "gold:" not in result.stderr


@pytest.mark.parametrize("mapping, answers", [
    ("answer=answer", ["yes"]), ("answer=verdict", ["no"])])
def test_map_names_the_gold_column(tmp_path, mapping, answers):
    result, _, out = import_json_rows(tmp_path, [{"id": "x", "answer": "yes", "verdict": "no",
                                      "messages": _chat("Is it red?", "Yes, it is.")}],
                          "--map", mapping)
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert item.answers == answers and item.meta["source"]["reply"] == "Yes, it is."


def test_source_system_and_turns_columns_are_not_overwritten(tmp_path):
    messages = [{"role": "system", "content": "sys"}] + _chat("Q?", "a", ("user", "Q2"),
                                                              ("assistant", "b"))
    result, _, out = import_json_rows(tmp_path, [{"id": "x", "system": "orig", "turns": 7,
                                      "messages": messages}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    source = item.meta["source"]
    assert (source["system"], source["turns"]) == ("orig", 7)
    assert source["messages_system"] == "sys" and source["messages_turns"] == messages[3:]
    assert "the chat's turns is meta.source.messages_turns" in result.stderr


def test_a_prompt_column_with_messages_takes_the_reply_as_gold(tmp_path):
    """ultrachat_200k / no_robots: `prompt` + `messages` and no answer column."""
    messages = _chat("What is 2+2?", "4", ("user", "And 3+3?"), ("assistant", "6"))
    result, _, out = import_json_rows(tmp_path, [{"prompt": "What is 2+2?", "prompt_id": "p1",
                                      "messages": messages}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("What is 2+2?", ["4"])
    assert item.meta["source"]["messages"] == messages
    assert "answer: the reply in 'messages' to its first user turn (1 row with a question " \
           "in 'prompt' and no answer column)" in result.stderr


def test_a_prompt_that_is_not_the_chats_question_is_a_row_problem(tmp_path):
    result, _, out = import_json_rows(tmp_path, [{"prompt": "Summarise.", "messages": _chat("Q?", "A")}])
    assert result.exit_code == 1
    assert "field=answer: no answer column, and the first user turn of 'messages' is not " \
           "the question in 'prompt'" in result.stderr.splitlines()[0]


@pytest.mark.parametrize("blank", [None, "", "  ", []])
def test_a_blank_question_column_does_not_hide_the_chat(tmp_path, blank):
    result, _, out = import_json_rows(tmp_path, [{"id": "x", "text": blank, "messages": _chat("Q?", "ok")}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("Q?", ["ok"])


@pytest.fixture()
def pngs(tmp_path):
    from tests.conftest import write_png

    return {name: write_png(tmp_path / name, colour).read_bytes()
            for name, colour in (("a.png", (200, 0, 0)), ("b.png", (0, 0, 200)))}


def test_a_question_column_with_a_chat_places_the_chats_images(tmp_path, pngs):
    """The question column's `<image>` tag is a placeholder as in the chat: the item gets
    the first turn's image only, the later turn's is kept, no raw tag stays."""
    messages = _chat("<image>What colour?", "red", ("user", "<image>And this?"),
                     ("assistant", "blue"))
    result, _, out = import_json_rows(tmp_path, [{"id": "1", "prompt": "<image>What colour?",
                                                  "images": ["a.png", "b.png"],
                                                  "messages": messages}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("What colour?", ["red"])
    assert [(out.parent / p).read_bytes() for p in item.image] == [pngs["a.png"]]
    assert item.meta["source"]["later_turn_images"] == ["b.png"]
    assert item.meta["source"]["messages"] == messages


def test_a_question_column_matches_a_chat_turn_with_image_parts(tmp_path, pngs):
    """`{type: image}` parts are placeholders, not text the question must hold."""
    messages = [{"role": "user", "content": [{"type": "image"},
                                             {"type": "text", "text": "What colour?"}]},
                {"role": "assistant", "content": "red"}]
    result, _, out = import_json_rows(tmp_path, [{"id": "1", "question": "What colour?",
                                                  "images": ["a.png"], "messages": messages}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("What colour?", ["red"])
    assert [(out.parent / p).read_bytes() for p in item.image] == [pngs["a.png"]]


def test_a_text_column_holding_the_rendered_chat_gives_way_to_the_chat(tmp_path):
    result, _, out = import_json_rows(tmp_path, [{"id": "1", "text": "<|user|>Q?<|assistant|>ok",
                                                  "messages": _chat("Q?", "ok")}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("Q?", ["ok"])
    assert item.meta["source"]["text"] == "<|user|>Q?<|assistant|>ok"
    assert "question: the first user turn of 'messages', not 'text' (1 row" in result.stderr


def test_map_question_to_the_chat_reads_the_chat(tmp_path):
    rows = [{"id": "1", "question": "Describe it.", "messages": _chat("What is 2+2?", "4")}]
    refused, src, _ = import_json_rows(tmp_path, rows)
    assert refused.exit_code == 1
    assert "or --map question=messages to take the question from the chat" in refused.stderr
    result, _, out = import_json_rows(tmp_path, rows, "--map", "question=messages")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("What is 2+2?", ["4"])
    assert item.meta["source"]["original_question"] == "Describe it."
    assert "question: the first user turn of 'messages' (--map question=messages)" \
        in result.stderr


@pytest.mark.parametrize("blank", [None, "", []])
def test_a_blank_gold_cell_is_an_empty_answer_not_the_reply(tmp_path, blank):
    rows = [{"id": "1", "answer": "yes", "messages": _chat("Is it red?", "Yes, it is.")},
            {"id": "2", "answer": blank, "messages": _chat("Is it blue?", "No, it is red.")}]
    result, src, _ = import_json_rows(tmp_path, rows)
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"{src}:2: id=2 field=answer: empty answer: the row's gold column is blank (the "
        "chat's reply is not taken for its gold)")


def test_question_and_gold_columns_take_the_chats_images_when_it_asks_that_question(
        tmp_path, pngs):
    part = {"type": "image", "image": "a.png"}
    rows = [{"id": "same", "question": "What colour?", "answer": "red", "messages": [
                {"role": "user", "content": [part, {"type": "text", "text": "What colour?"}]},
                {"role": "assistant", "content": "red"}]},
            {"id": "other", "question": "Q?", "answer": "a", "messages": [
                {"role": "user", "content": [part, {"type": "text", "text": "Else?"}]},
                {"role": "assistant", "content": "b"}]}]
    result, _, out = import_json_rows(tmp_path, rows)
    assert result.exit_code == 0, result.output
    same, other = read_items(out)
    assert (out.parent / same.image).read_bytes() == pngs["a.png"]
    assert (same.question, same.answers) == ("What colour?", ["red"])
    assert other.image is None and other.meta["source"]["messages"] == rows[1]["messages"]
    assert "images: 1 row with question and gold columns whose chat, kept as metadata, has " \
           "image placeholders but whose first user turn is not that question" in result.stderr


def test_map_question_to_the_chat_names_a_row_without_one(tmp_path):
    rows = [{"id": "1", "messages": _chat("What is 2+2?", "4")},
            {"id": "2", "question": "Describe it.", "answer": "red"}]
    result, _, _ = import_json_rows(tmp_path, rows, "--map", "question=messages")
    assert result.exit_code == 1
    assert "--map question=messages: no chat in 'messages'" in result.stderr
    assert "id=2" in result.stderr
