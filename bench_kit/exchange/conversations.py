"""Chat records as question/answer rows.

Two shapes: LLaVA `conversations` (`[{from: human, value}, {from: gpt, value}, …]`, the
image as an `<image>` tag in the text) and the `messages` of Hugging Face chat datasets
(`[{role: user, content}, {role: assistant, content}, …]`, as TRL and LLaMA-Factory write
them), where `content` is a string or a list of parts (`{type: text, text}` and
`{type: image}` placeholders for the row's images, in order). The question is the first
user turn's text, the gold its reply; later turns are kept under `turns`.
"""

from __future__ import annotations

import re
from typing import Any, Iterable, Iterator

from bench_kit.exchange.rows import COLUMN_ALIASES, BadRow, ImportOptions

CHAT_COLUMNS = ("conversations", "messages")
_IMAGE_TAG = re.compile(r"<image>\n?")  # LLaVA's placeholder; `<image 1>` (MMMU) is kept
_USER = ("human", "user")
_REPLY = ("gpt", "assistant")
_SHAPE = {"conversations": "{from, value} turns", "messages": "{role, content} turns"}


def chat_column(row: dict[str, Any], column_map: dict[str, str]) -> str | None:
    """The chat column that gives this row its question, or None: a row with a question
    column (or `--map question=…`) keeps it."""
    if "question" in column_map or any(a in row for a in COLUMN_ALIASES["question"]):
        return None
    return next((c for c in CHAT_COLUMNS if c in row), None)


def _text(content: Any) -> str:
    """The text of a turn's content: a string, or the text parts of a list joined by
    newlines (image parts are placeholders for the row's images).

    Raises ValueError naming what else the content holds (a video or `image_url` part).
    """
    if isinstance(content, str):
        return content
    if not isinstance(content, list) or not all(isinstance(p, dict) for p in content):
        raise ValueError(f"a turn's content must be text or a list of parts, got "
                         f"{type(content).__name__}")
    texts = []
    for part in content:
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif kind != "image":
            raise ValueError(f"content part of type {kind!r} is neither text nor an image "
                             "placeholder")
    return "\n".join(texts)


def _turn(turn: Any, column: str) -> tuple[str, str]:
    """(speaker in lower case, text) of one turn; ValueError when it is not of the shape."""
    if not isinstance(turn, dict):
        raise ValueError(f"a turn must be an object, got {type(turn).__name__}")
    speaker, content = (turn.get("from"), turn.get("value")) if column == "conversations" \
        else (turn.get("role"), turn.get("content"))
    if not isinstance(speaker, str):
        raise ValueError(f"a turn without {'from' if column == 'conversations' else 'role'}")
    return speaker.strip().lower(), _text(content)


def conversation_row(row: dict[str, Any], column: str) -> dict[str, Any] | BadRow:
    """The chat record in `row[column]` -> question (the first user turn, `<image>` tags and
    image parts removed) and answer (the reply); leading system turns go to `system`, the
    turns after the reply to `turns`, both kept as source metadata."""
    row = dict(row)
    turns = row.pop(column)
    if not isinstance(turns, list) or len(turns) < 2:
        return BadRow(column, f"expected a list of {_SHAPE[column]}, a question and its "
                              "answer", row)
    try:
        pairs = [_turn(t, column) for t in turns]
    except ValueError as exc:
        return BadRow(column, str(exc), row)
    start = next((k for k, (speaker, _) in enumerate(pairs) if speaker != "system"), len(pairs))
    if start + 1 >= len(pairs) or pairs[start][0] not in _USER or \
            pairs[start + 1][0] not in _REPLY:
        return BadRow(column, "the first turn must be from the user (human) and the second "
                              "its reply (gpt, assistant)", row)
    if start:
        row["system"] = "\n".join(text for _, text in pairs[:start])
    row["question"] = _IMAGE_TAG.sub("", pairs[start][1]).strip()
    row["answer"] = pairs[start + 1][1].strip()
    if len(turns) > start + 2:
        row["turns"] = turns[start + 2:]
    return row


def _decision(column: str, count: int) -> str:
    if column == "conversations":
        return (f"conversations: {count} records, question = first human turn (<image> tags "
                "removed), answer = the reply")
    return (f"messages: {count} chat records, question = text of the first user turn (image "
            "parts and <image> tags removed), answer = the assistant's reply, later turns kept "
            "as meta.source.turns")


def chat_rows(rows: Iterable[tuple[int, Any]], opts: ImportOptions
              ) -> Iterator[tuple[int, Any]]:
    """(line, row) with every chat record made a question/answer row (or a `BadRow`); how
    many of each shape goes to `opts.decisions` once all rows are read."""
    counts: dict[str, int] = {}
    for line, row in rows:
        column = None if isinstance(row, BadRow) else chat_column(row, opts.column_map)
        if column is not None:
            row = conversation_row(row, column)
            counts[column] = counts.get(column, 0) + 1
        yield line, row
    opts.decisions.extend(_decision(column, n) for column, n in counts.items())
