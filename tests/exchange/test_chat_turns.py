"""Chat turns read one by one: a problem names its turn and what the turn holds; a later
turn that cannot be read keeps the row; the roles other chat formats use; a chat stored as
JSON text in a CSV cell."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.io import read_jsonl
from bench_kit.items import read_items
from tests.conftest import import_json_rows, write_png


@pytest.fixture(autouse=True)
def _no_params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml: any capability is taken


U = {"role": "user", "content": "Q?"}
A = {"role": "assistant", "content": "ok"}


@pytest.mark.parametrize("messages, says", [
    ([{"role": "user", "content": [{"type": "text", "text": None}]}, A],
     "turn 1: part 1 is a text part whose text is null, not a string"),
    ([{"role": "user", "content": [{"type": "text", "text": True}]}, A],
     "turn 1: part 1 is a text part whose text is a bool, not a string"),
    ([{"role": "user", "content": ["Q?", "more"]}, A],
     "turn 1: part 1 of the content is a plain string, not a {type: text, text} part"),
    ([{"role": "user", "content": [{"text": "Q?"}]}, A],
     "turn 1: part 1 of the content has no type"),
    ([{"role": "system", "content": "s"}, U, {"role": "assistant", "content": None}],
     "turn 3: a turn's content must be text or a list of parts, got null"),
    ([{"role": "system", "content": "s"}, A, U],
     "turn 2 is from 'assistant': the first turn must be from the user"),
    ([U, U], "turn 2 is from 'user': the first turn must be from the user (human) and "
             "the second its reply (gpt, assistant, model, chatgpt, bard)"),
    ([{"role": 1, "content": "Q?"}, A], "turn 1: a turn's role must be text, got int"),
    ([{"from": "human", "value": "Q?"}, A],
     "turn 1: a turn without role (its keys are those of {from, value} turns)"),
])
def test_a_bad_first_turn_or_reply_names_the_turn(tmp_path, messages, says):
    result, src, _ = import_json_rows(tmp_path, [{"id": "x", "messages": messages}])
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0].startswith(f"{src}:1: id=x field=messages: {says}")


def test_a_bad_later_turn_keeps_the_row_and_says_which_turn(tmp_path):
    messages = [U, A, {"role": "user", "content": [{"type": "video"}]}, A]
    result, _, out = import_json_rows(tmp_path, [{"id": "x", "messages": messages}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("Q?", ["ok"])
    assert item.meta["source"]["turns"] == messages[2:]
    assert item.meta["source"]["unreadable_turns"] == [
        "turn 3: content part of type 'video' is neither text nor an image placeholder"]
    assert "warning: 1 later turn could not be read" in result.stderr


@pytest.mark.parametrize("later", [
    [{"type": "video"}, {"type": "image"}, {"type": "text", "text": "and this?"}],
    [{"type": "text", "text": "<image> and this?"}, {"type": "text", "text": None}],
])
def test_an_unreadable_later_turn_still_counts_its_image_placeholders(tmp_path, later):
    write_png(tmp_path / "a.png", (200, 0, 0))
    write_png(tmp_path / "b.png", (0, 0, 200))
    messages = [{"role": "user", "content": "<image>What colour?"}, A,
                {"role": "user", "content": later}, A]
    result, _, out = import_json_rows(tmp_path, [{"id": "x", "images": ["a.png", "b.png"],
                                                  "messages": messages}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert [(out.parent / p).read_bytes() for p in item.image] == [
        (tmp_path / "a.png").read_bytes()]
    assert item.meta["source"]["later_turn_images"] == ["b.png"]
    assert len(item.meta["source"]["unreadable_turns"]) == 1


def test_map_onto_a_chat_column_says_it_is_read_as_a_chat(tmp_path):
    result, src, _ = import_json_rows(tmp_path, [{"id": "x", "messages": [U, A]}],
                             "--map", "answer=messages")
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"{src}:1: id=x field=answer: --map answer=messages: 'messages' is read as a chat "
        "record (question = its first user turn, gold = the reply when the row has no answer "
        "column); map another column")


@pytest.mark.parametrize("system_role, reply_role", [
    ("developer", "assistant"), ("system", "model"), ("system", "chatgpt"),
    ("system", "bard"), ("System ", " GPT")])
def test_roles_of_other_chat_formats(tmp_path, system_role, reply_role):
    key, value = ("from", "value") if reply_role in ("chatgpt", "bard") else ("role", "content")
    column = "conversations" if key == "from" else "messages"
    turns = [{key: system_role, value: "Be brief."}, {key: "human" if key == "from"
                                                      else "user", value: "Q?"},
             {key: reply_role, value: "ok"}]
    result, _, out = import_json_rows(tmp_path, [{"id": "x", column: turns}])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("Q?", ["ok"])
    assert item.meta["source"]["system"] == "Be brief."


def test_imagefolder_metadata_csv_with_messages_as_json_text(tmp_path):
    folder = tmp_path / "imf"
    folder.mkdir()
    write_png(folder / "a.png")
    cell = json.dumps([{"role": "user", "content": "<image>Colour?"},
                       {"role": "assistant", "content": "red"}]).replace('"', '""')
    (folder / "metadata.csv").write_text(f'file_name,messages\na.png,"{cell}"\n',
                                         encoding="utf-8")
    out = tmp_path / "o" / "items.jsonl"
    result = CliRunner().invoke(cli, ["import", "hf", str(folder), "--out", str(out),
                                      "--capability", "understanding.chat"])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("Colour?", ["red"]) and item.image


def test_trl_prompt_completion_rows_are_read_as_one_chat(tmp_path):
    rows = [{"id": "x", "prompt": [{"role": "system", "content": "Be brief."}, U],
             "completion": [A]},
            {"id": "y", "prompt": [A], "completion": [U]}]
    result, src, out = import_json_rows(tmp_path, rows, "--on-error", "skip")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("Q?", ["ok"])
    assert item.meta["source"]["system"] == "Be brief."
    assert "prompt/completion: 2 chat records (1 read, 1 rejected) (TRL): question = the " \
        "prompt's last user turn" in result.stderr
    [reject] = read_jsonl(out.parent / "items.rejects.jsonl")
    assert reject["row"] == rows[1]   # the source row, not the chat made of it


def test_a_multi_turn_trl_prompt_asks_its_last_user_turn(tmp_path):
    earlier = [{"role": "user", "content": "Hi, I have a maths question."},
               {"role": "assistant", "content": "Sure, go ahead."}]
    rows = [{"id": "x", "prompt": [{"role": "system", "content": "Be brief."}, *earlier,
                                   {"role": "user", "content": "What is 2+2?"}],
             "completion": [{"role": "assistant", "content": "4"}]},
            {"id": "y", "prompt": [{"role": "user", "content": "<image>Look."}, A, U],
             "completion": [A]}]
    result, _, out = import_json_rows(tmp_path, rows, "--on-error", "skip")
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("What is 2+2?", ["4"])
    assert item.meta["source"]["earlier_turns"] == earlier
    assert item.meta["source"]["system"] == "Be brief."
    [reject] = read_jsonl(out.parent / "items.rejects.jsonl")
    assert reject["field"] == "prompt" and "hold image placeholders" in reject["reason"]


def test_a_conversations_turn_names_its_missing_key(tmp_path):
    rows = [{"id": "x", "conversations": [{"from": "human"}, {"from": "gpt", "value": "a"}]},
            {"id": "y", "conversations": [U, A]}]
    result, src, _ = import_json_rows(tmp_path, rows)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert lines[0] == f"{src}:1: id=x field=conversations: turn 1: a turn without value"
    assert lines[1] == (f"{src}:2: id=y field=conversations: turn 1: a turn without from "
                        "(its keys are those of {role, content} turns)")
