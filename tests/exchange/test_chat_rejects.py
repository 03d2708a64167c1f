"""A chat row that fails after its chat is read (an image that cannot be stored, an empty
reply) is rejected with the whole source row as the file holds it: the chat, not what the
reader made of it, with bytes and `data:` URLs named by size and hash; items name them so
too, never copying a `data:` URL whole into their metadata."""

from __future__ import annotations

import base64
import hashlib
import io

import pytest

from bench_kit.io import read_jsonl
from bench_kit.items import read_items
from tests.conftest import import_json_rows


@pytest.fixture(autouse=True)
def _no_params(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no params.yaml: any capability is taken


def _png(colour=(200, 0, 0), size=(5, 4)) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, format="PNG")
    return buf.getvalue()


def _named(data: bytes) -> str:
    return f"<{len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:20]}>"


def _chat(image_part, reply="red"):
    return [{"role": "user", "content": [image_part, {"type": "text", "text": "Colour?"}]},
            {"role": "assistant", "content": reply}]


def test_rows_failing_after_the_chat_is_read_keep_the_source_row(tmp_path):
    png = _png()
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    (tmp_path / "junk.png").write_bytes(b"not an image")
    rows = [
        {"id": "ok", "messages": _chat({"type": "image", "image": url})},
        {"id": "web", "messages": _chat({"type": "image_url", "image_url": {
            "url": "https://example.com/a.png", "detail": "high"}})},
        {"id": "junk", "messages": _chat({"type": "image", "image": "junk.png"})},
        {"id": "b64", "messages": _chat({"type": "image", "image": "data:image/png;base64,!!"})},
        {"id": "empty", "note": 3, "messages": _chat({"type": "image", "image": url}, "")},
    ]
    result, _, out = import_json_rows(tmp_path, rows, "--on-error", "skip")
    assert result.exit_code == 0, result.output
    assert [i.id for i in read_items(out)] == ["ok"]
    rejects = {r["id"]: r for r in read_jsonl(out.parent / "items.rejects.jsonl")}
    assert {k: r["field"] for k, r in rejects.items()} == {
        "web": "image", "junk": "image", "b64": "image", "empty": "answers"}
    for row in rows[1:4]:
        assert rejects[row["id"]]["row"] == row
    # a data URL is named by the bytes it holds (the name an import stores them under)
    empty = rejects["empty"]["row"]
    assert empty == {**rows[4], "messages": _chat({"type": "image", "image": _named(png)}, "")}


def test_a_nested_data_url_never_makes_a_long_reject_line(tmp_path):
    big = _png(size=(600, 600)) + b"\0" * 300_000  # a PNG with trailing bytes: stored as is
    url = "data:image/png;base64," + base64.b64encode(big).decode()
    rows = [{"id": "a", "messages": _chat({"type": "image", "image": url}, " ")},
            {"id": "b", "messages": _chat({"type": "image", "image": url})}]
    result, _, out = import_json_rows(tmp_path, rows, "--on-error", "skip")
    assert result.exit_code == 0, result.output
    line = (out.parent / "items.rejects.jsonl").read_text(encoding="utf-8")
    assert len(line) < 1000 and _named(big) in line


def test_a_parquet_part_with_bytes_that_do_not_decode_keeps_the_source_row(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    part = pa.struct([("type", pa.string()), ("text", pa.string()), ("image", image)])
    turn = pa.struct([("role", pa.string()), ("content", pa.list_(part))])

    def chat(data):
        return [{"role": "user", "content": [
                    {"type": "image", "text": None, "image": {"bytes": data, "path": "x.png"}},
                    {"type": "text", "text": "Colour?", "image": None}]},
                {"role": "assistant", "content": [{"type": "text", "text": "red",
                                                   "image": None}]}]
    rows = [{"id": "bad", "messages": chat(b"not a png")}, {"id": "ok", "messages": chat(_png())}]
    src = tmp_path / "chats.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema(
        [("id", pa.string()), ("messages", pa.list_(turn))])), src)
    from click.testing import CliRunner

    from bench_kit.cli import cli

    out = tmp_path / "o" / "items.jsonl"
    result = CliRunner().invoke(cli, ["import", "hf", str(src), "--out", str(out),
                                      "--capability", "understanding.chat",
                                      "--on-error", "skip"])
    assert result.exit_code == 0, result.output
    assert [i.id for i in read_items(out)] == ["ok"]
    [reject] = read_jsonl(out.parent / "items.rejects.jsonl")
    assert reject["field"] == "image" and "cannot be decoded" in reject["reason"]
    messages = chat(_named(b"not a png"))
    assert reject["row"] == {"id": "bad", "messages": messages}


def test_data_urls_are_named_not_copied_into_items(tmp_path):
    first, later = _png((200, 0, 0), (300, 300)), _png((0, 0, 200), (300, 300))
    urls = ["data:image/png;base64," + base64.b64encode(b).decode() for b in (first, later)]
    rows = [{"id": "part", "messages": [
                *_chat({"type": "image", "image": urls[0]}),
                {"role": "user", "content": [{"type": "image", "image": urls[1]},
                                             {"type": "text", "text": "And?"}]},
                {"role": "assistant", "content": "blue"}]},
            {"id": "col", "images": [urls[0]], "copy": urls[1],
             "messages": _chat({"type": "image"})}]
    result, _, out = import_json_rows(tmp_path, rows)
    assert result.exit_code == 0, result.output
    assert all(len(line) < 1500 for line in out.read_text(encoding="utf-8").splitlines())
    part, col = read_items(out)
    assert (out.parent / part.image).read_bytes() == first
    assert part.meta["source"]["image"] == _named(first)
    assert part.meta["source"]["later_turn_images"] == [_named(later)]
    assert part.meta["source"]["turns"][0]["content"][0]["image"] == _named(later)
    assert col.meta["source"]["image"] == [_named(first)]
    assert col.meta["source"]["copy"] == _named(later)
