"""JSON files in the shapes benchmarks ship them: an array of records (HallusionBench), one
object keyed by id (ScienceQA `problems.json`, MathVista `testmini.json`), JSON Lines inside
a `.json` file (POPE), chat records (LLaVA `conversations`, Hugging Face `messages`: see
`conversations`), and questions joined to a separate answers file (LLaVA-Bench).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator

from bench_kit.errors import InputError, param
from bench_kit.exchange.conversations import chat_rows
from bench_kit.exchange.imagefiles import ImageStore
from bench_kit.exchange.rows import COLUMN_ALIASES, IMPORTERS, BadRow, ImportOptions
from bench_kit.exchange.tabular import prepared_rows, read_utf8
from bench_kit.io import iter_jsonl

_COLON = re.compile(r"\s*:\s*")


def _match_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    """End of `pattern` matched at `pos`; ValueError when it does not match there."""
    match = pattern.match(text, pos)
    if match is None:
        raise ValueError(f"expected {pattern.pattern!r} at offset {pos}")
    return match.end()


def _values(text: str, path: Path, keyed: bool) -> Iterator[tuple[int, Any, Any]]:
    """(line, key, value) of each member of the top-level array or object in `text`."""
    decoder = json.JSONDecoder()
    pos = text.index("[" if not keyed else "{") + 1
    close = "}" if keyed else "]"
    ws = re.compile(r"[\s,]*")
    while True:
        pos = _match_end(ws, text, pos)
        if pos >= len(text) or text[pos] == close:
            return
        line = text.count("\n", 0, pos) + 1
        try:
            key = None
            if keyed:
                key, pos = decoder.raw_decode(text, pos)
                pos = _match_end(_COLON, text, pos)
            value, pos = decoder.raw_decode(text, pos)
        except (ValueError, RecursionError) as exc:
            raise InputError("malformed JSON record", path=str(path), line=line) from exc
        yield line, key, value


def json_records(path: Path, decisions: list[str] | None = None
                 ) -> list[tuple[int, dict[str, Any]]]:
    """(line, record) for every record of a JSON array, id-keyed object or JSON Lines file."""
    text = read_utf8(path)
    start = text.lstrip()[:1]
    shape = "JSON Lines"
    if start == "[":
        records, shape = [(line, value) for line, _, value in _values(text, path, False)], \
            "a JSON array"
    elif start == "{":
        try:
            whole = json.loads(text)
        except ValueError:
            whole = None
        except RecursionError as exc:
            raise InputError("malformed JSON: nested too deep", path=str(path)) from exc
        if isinstance(whole, dict) and whole and all(isinstance(v, dict) for v in whole.values()):
            shape = "one object keyed by id"
            records = []
            for line, key, value in _values(text, path, True):
                has_id = any(value.get(a) not in (None, "") for a in COLUMN_ALIASES["id"])
                records.append((line, value if has_id else {"id": str(key), **value}))
        elif isinstance(whole, dict):
            records = [(1, whole)]
        else:
            records = list(iter_jsonl(path))
    else:
        raise InputError("expected a JSON array, an object keyed by id, or JSON Lines",
                         path=str(path), line=1)
    for line, record in records:
        if not isinstance(record, dict):
            raise InputError(f"expected a JSON object, got {type(record).__name__}",
                             path=str(path), line=line)
    if decisions is not None:
        decisions.append(f"shape: {shape}, {len(records)} records")
    return records


def join_answers(rows: list[tuple[int, dict[str, Any]]], answers_path: Path, join_on: str,
                 ) -> Iterator[tuple[int, dict[str, Any] | BadRow]]:
    """Give each question row the answer whose `join_on` field matches (LLaVA-Bench:
    questions.jsonl + answers_gpt4.jsonl on question_id)."""
    by_key: dict[str, dict[str, Any]] = {}
    for line, answer in json_records(answers_path):
        if join_on not in answer:
            raise InputError(f"{param('join_on', join_on)}: no such field", path=str(answers_path),
                             line=line)
        by_key.setdefault(str(answer[join_on]), answer)
    text_field = next((a for a in (*COLUMN_ALIASES["answer"], "text") if any(
        a in v for v in by_key.values())), None)
    if text_field is None:
        raise InputError("no answer field (answer, text, …)", path=str(answers_path))
    for line, row in rows:
        if join_on not in row:
            yield line, BadRow(join_on, f"{param('join_on', join_on)}: the question has no "
                                        "such field", row)
            continue
        joined = by_key.get(str(row[join_on]))
        if joined is None:
            yield line, BadRow("answer", f"no answer with {join_on}={row[join_on]} in "
                                         f"{answers_path.name}", row)
            continue
        row = dict(row)
        row["answer"] = joined[text_field]
        extra = {k: v for k, v in joined.items() if k not in (join_on, text_field)
                 and row.get(k) != v}
        if extra:
            row["answer_record"] = extra
        yield line, row


@IMPORTERS.register("json")
def read_json(path: Path, opts: ImportOptions, store: ImageStore):
    """A JSON array, an object keyed by id, JSON Lines, or chat records; with
    `answers_path` and `join_on`, answers come from a second file."""
    records = json_records(path, opts.decisions)

    def rows() -> Iterator[tuple[int, dict[str, Any] | BadRow]]:
        source: Iterator = iter(records)
        if opts.answers_path is not None:
            if not opts.join_on:
                raise InputError(f"{param('answers_path')} needs {param('join_on', 'FIELD')}",
                                 path=str(path))
            source = join_answers(records, opts.answers_path, opts.join_on)
            opts.decisions.append(f"answers: from {opts.answers_path.name}, joined on "
                                  f"{opts.join_on}")
        yield from chat_rows(source, opts)
    yield from prepared_rows(rows(), path, opts, store)
