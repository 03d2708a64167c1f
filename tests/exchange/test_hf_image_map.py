"""`--map image=COLUMN` on a Hugging Face parquet with several columns of image structs
(a photo and its mask): the named column is the image, the others are kept as metadata
with their bytes named."""

from __future__ import annotations

import hashlib
import io

import pytest
from click.testing import CliRunner

from bench_kit.cli import cli
from bench_kit.items import read_items


@pytest.fixture(autouse=True)
def _no_params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml: any capability is taken


def _png(colour) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (6, 4), colour).save(buf, format="PNG")
    return buf.getvalue()


def _imported(src, out):
    """The one item `bench-kit import hf SRC` writes, and the items path."""
    result = CliRunner().invoke(cli, ["import", "hf", str(src), "--out", str(out),
                                      "--capability", "perception.colour"])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    return item, out


@pytest.mark.parametrize("chat", [False, True])
def test_map_image_names_one_struct_column(tmp_path, chat):
    import pyarrow as pa
    import pyarrow.parquet as pq

    photo, mask = _png((200, 0, 0)), _png((255, 255, 255))
    row = {"id": "1", "photo": {"bytes": photo, "path": "p.png"},
           "mask": {"bytes": mask, "path": "m.png"}}
    if chat:
        row["messages"] = [{"role": "user", "content": "<image>What colour?"},
                           {"role": "assistant", "content": "red"}]
    else:
        row.update(question="What colour?", answer="red")
    src = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist([row]), src)
    out = tmp_path / "o" / "items.jsonl"
    args = ["import", "hf", str(src), "--out", str(out), "--capability", "perception.colour"]
    result = CliRunner().invoke(cli, [*args, "--map", "image=photo"])
    assert result.exit_code == 0, result.output
    [item] = read_items(out)
    assert (item.question, item.answers) == ("What colour?", ["red"])
    assert (out.parent / item.image).read_bytes() == photo
    digest = hashlib.sha256(mask).hexdigest()[:20]
    assert item.meta["source"]["mask"] == f"m.png <{len(mask)} bytes, sha256 {digest}>"


def test_question_and_answer_columns_beside_a_chat_with_image_bytes(tmp_path):
    """The chat is metadata: its bytes are named (JSON cannot hold them), and its image is
    the item's since its first user turn is the row's question."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    red = _png((200, 0, 0))
    messages = [{"role": "user", "content": [
                    {"type": "image", "text": None, "image": {"bytes": red, "path": "r.png"}},
                    {"type": "text", "text": "What colour?", "image": None}]},
                {"role": "assistant", "content": [{"type": "text", "text": "red",
                                                   "image": None}]}]
    src = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist([{"id": "1", "question": "What colour?",
                                          "answer": "red", "messages": messages}]), src)
    item, out = _imported(src, tmp_path / "o" / "items.jsonl")
    assert (out.parent / item.image).read_bytes() == red
    digest = hashlib.sha256(red).hexdigest()[:20]
    kept = item.meta["source"]["messages"][0]["content"][0]["image"]
    assert kept == {"bytes": f"<{len(red)} bytes, sha256 {digest}>", "path": "r.png"}


def test_an_image_part_holding_raw_bytes_is_stored(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    red = _png((200, 0, 0))
    part = pa.struct([("type", pa.string()), ("text", pa.string()), ("image", pa.binary())])
    turn = pa.struct([("role", pa.string()), ("content", pa.list_(part))])
    messages = [{"role": "user", "content": [{"type": "image", "text": None, "image": red},
                                             {"type": "text", "text": "Colour?", "image": None}]},
                {"role": "assistant", "content": [{"type": "text", "text": "red",
                                                   "image": None}]}]
    src = tmp_path / "data.parquet"
    pq.write_table(pa.Table.from_pylist([{"messages": messages}], schema=pa.schema(
        [("messages", pa.list_(turn))])), src)
    item, out = _imported(src, tmp_path / "o" / "items.jsonl")
    assert (out.parent / item.image).read_bytes() == red
