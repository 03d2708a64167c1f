"""Import rows -> `Item`s: the options, the reader registry, and the field parsers every
format shares (choices, answers, checklists, task inference)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterator, Literal

from bench_kit.errors import param
from bench_kit.exchange.cells import RowError, blank, is_nan, maybe_json, without_bytes
from bench_kit.exchange.imagefiles import MAX_IMAGE_BYTES, ImageStore
from bench_kit.registry import Registry
from bench_kit.text.numbers import format_number
from bench_kit.types import LETTERS

CHECKLIST_QUESTION = "Check each statement against the image."


@dataclass
class ImportOptions:
    """How rows without a field get one, and how source categories map to capabilities."""

    created_at: datetime | None = None
    capability: str | None = None
    layer: str | None = None
    difficulty: str = "medium"
    category_map: dict[str, str] = field(default_factory=dict)
    taxonomy: dict[str, str] = field(default_factory=dict)
    id_prefix: str = ""
    hint: Literal["meta", "prepend"] = "meta"
    split: str | None = None
    max_image_bytes: int = MAX_IMAGE_BYTES
    column_map: dict[str, str] = field(default_factory=dict)
    image_root: Path | None = None
    expand: bool = False
    task: str | None = None
    metric: str | None = None
    rubric: str | None = None
    gold_index: int | None = None
    delimiter: str | None = None
    columns: tuple[str, ...] = ()
    answers_path: Path | None = None
    join_on: str | None = None
    # filled while importing: one line per decision the import took (printed by the CLI)
    decisions: list[str] = field(default_factory=list)


@dataclass
class ImportSummary:
    """What an import wrote."""

    out_path: Path
    items: int
    images: int
    by_task: dict[str, int]
    rejected: int = 0
    rejects_path: Path | None = None
    decisions: list[str] = field(default_factory=list)


@dataclass
class BadRow:
    """A row a reader could not prepare (e.g. a missing image): reported, never a crash."""

    field: str
    reason: str
    row: dict[str, Any]


# A converted row (a chat read, columns mapped, images stored) carries the source row it
# came from under this key, bytes and data: URLs named (`without_bytes`): its reject then
# holds what the file holds, not what a reader made of it.
SOURCE_ROW = "_source_row"


def with_source(row: dict[str, Any]) -> dict[str, Any]:
    """`row`, carrying itself as its source row unless it already carries one."""
    if SOURCE_ROW not in row:
        row[SOURCE_ROW] = without_bytes(row)
    return row


def source_of(row: dict[str, Any]) -> dict[str, Any]:
    """The source row `row` came from (itself when it carries none)."""
    return row.get(SOURCE_ROW, row)


# Column names recognised without --map, per item field, in order of preference.
COLUMN_ALIASES: dict[str, tuple[str, ...]] = {
    "question": ("question", "problem", "query", "prompt", "question_natural_language", "text"),
    "answer": ("answer", "gt", "label", "gold", "gt_answer"),
    "answers": ("answers",),
    "image": ("image", "images", "image_path", "file_name"),
    "choices": ("choices", "options"),
    "id": ("id", "index", "question_id", "qid"),
    "category": ("category",),
    "hint": ("hint",),
}
MAPPABLE_FIELDS = tuple(COLUMN_ALIASES)
# Gold values that say the question has no answer: reported, never taken as golds.
NON_ANSWERS = {"unanswerable", "unsuitable", "unsuitable image", "n/a"}


def map_columns(row: dict[str, Any], column_map: dict[str, str]) -> dict[str, Any]:
    """Rename source columns to item fields: `--map FIELD=COLUMN` first, then known aliases.

    Raises RowError when a mapped column is missing from the row.
    """
    row = {str(k).strip(): v for k, v in row.items()}
    for name, column in column_map.items():
        if name == "id" and "," in column and column not in row:
            parts = [c.strip() for c in column.split(",")]
            missing = [c for c in parts if c not in row]
            if missing:
                raise RowError("id", f"{param('column_map', f'id={column}')}: no column "
                                     f"'{missing[0]}'")
            row["id"] = "_".join(str(row[c]).strip().replace("/", ".") for c in parts)
            continue
        if column not in row:
            raise RowError(name, f"{param('column_map', f'{name}={column}')}: no column "
                                 f"'{column}' (columns: "
                                 f"{', '.join(sorted(k for k in row if not k.startswith('_')))})")
        value = row.pop(column)
        row.pop(name, None)
        row[name] = value
    for name, aliases in COLUMN_ALIASES.items():
        if name in column_map or not blank(row.get(name)):
            continue
        for alias in aliases:
            if alias != name and not blank(row.get(alias)):
                row[name] = row.pop(alias)
                break
    return row


def no_question_reason() -> str:
    """The message for a source without any question column."""
    return (f"no question column (looked for {', '.join(COLUMN_ALIASES['question'])}; "
            f"use {param('column_map', 'question=COLUMN')})")


class NoQuestionColumn(RowError):
    """The row has no question because the source has no question column (a whole-file
    problem when every row says so, not a row problem)."""

    def __init__(self) -> None:
        super().__init__("question", no_question_reason())


Reader = Callable[[Path, ImportOptions, ImageStore], Iterator[tuple[int, dict[str, Any]]]]
IMPORTERS: Registry[Reader] = Registry("import format")


def _answer_text(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return format_number(value)
    return str(value).strip()


def parse_choices(row: dict[str, Any]) -> dict[str, str] | None:
    """Choices from a `choices`/`options` dict or list, or from A-J option columns."""
    value = row.pop("choices", None)
    if blank(value):
        value = row.pop("options", None)
    letters = {k: row.pop(k) for k in LETTERS if k in row}
    if blank(value):
        present = {k: v for k, v in letters.items() if not blank(v) and not is_nan(v)}
        return {k: _answer_text(v) for k, v in present.items()} or None
    value = maybe_json(value, "choices")
    if isinstance(value, list):
        if len(value) > len(LETTERS):
            raise RowError("choices", f"more than {len(LETTERS)} options")
        value = dict(zip(LETTERS, value))
    if not isinstance(value, dict):
        raise RowError("choices", "expected {letter: text} or a list of options")
    return {str(k): _answer_text(v) for k, v in value.items()}


_MULTI_LETTERS = re.compile(r"^\s*[A-J](\s*[;,]\s*[A-J])+\s*$")
_BOX = re.compile(r"^\s*[\[(]?\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*,\s*"
                  r"(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*[\])]?\s*$")


def box_answer(text: str) -> str | None:
    """"x1,y1,x2,y2" for a box written as `x1,y1,x2,y2` or `[x1, y1, x2, y2]`, else None."""
    match = _BOX.match(text)
    if not match:
        return None
    return ",".join(_answer_text(float(v)) for v in match.groups())


def non_answer_reason(text: str) -> str | None:
    """Why a gold value is not an answer (`unanswerable`, `unsuitable`, repeated tokens)."""
    low = text.strip().lower()
    if not low:
        return "empty answer"
    if low in NON_ANSWERS:
        return f"'{text}' is not an answer"
    tokens = low.split()
    if len(tokens) > 1 and len(set(tokens)) == 1:
        return f"'{text}' repeats one token; not an answer"
    return None


def parse_answers(row: dict[str, Any], choices: dict[str, str] | None) -> list[str]:
    """Answers from `answers` (list) or `answer` (one value); mc option text -> its letter.

    Multi-answer golds (`A;C`, `A,C`, `["A","C"]`) become several letters; a gold letter
    naming an empty option and non-answers (`unanswerable`, …) raise RowError.
    """
    value = row.pop("answers", None)
    single = row.pop("answer", None)
    name = "answers" if not blank(value) else "answer"
    if blank(value):
        value = single
    if choices and isinstance(value, str) and value.strip() in choices.values():
        # option text as the gold, even when it holds commas or brackets ("[0, 2]")
        return [next(k for k, v in choices.items() if v == value.strip())]
    value = maybe_json(value, name)
    if blank(value) or is_nan(value):
        return []
    if isinstance(value, list) and len(value) == 4 and not choices and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        value = ",".join(_answer_text(float(v)) for v in value)   # a box [x1, y1, x2, y2]
    values = value if isinstance(value, list) else [value]
    if any(isinstance(v, (dict, list)) for v in values):
        raise RowError(name, "expected an answer or a list of answers, got a nested object")
    answers = [_answer_text(v) for v in values]
    for text in answers:
        reason = non_answer_reason(text)
        if reason:
            raise RowError(name, reason)
    empty = row.pop("_empty_options", [])
    if choices:
        if len(answers) == 1 and _MULTI_LETTERS.match(answers[0]):
            answers = re.split(r"\s*[;,]\s*", answers[0].strip())
        by_text = {text: letter for letter, text in choices.items()}
        answers = [a.upper() if a.upper() in choices or a.upper() in empty
                   else by_text.get(a, a) for a in answers]
        at_empty = [a for a in answers if a in empty]
        if at_empty:
            raise RowError(name, f"gold {at_empty} points at an empty option")
    return answers


def infer_task(answers: list[str], choices: dict | None, checks: list | None) -> str:
    """The task a row without one most likely has."""
    if checks:
        return "checklist"
    if choices:
        return "mc"
    if answers and all(box_answer(a) for a in answers):
        return "grounding"
    if answers and all(a.lower() in ("yes", "no") for a in answers):
        return "yesno"
    try:
        [float(a) for a in answers]
        return "numeric" if answers else "open"
    except ValueError:
        return "open"


def prepend_hint(question: str, hint: str) -> str:
    """`Hint: HINT\nQUESTION` as VLMEvalKit prompts it, never twice ("Hint: Hint:")."""
    hint = re.sub(r"^\s*hint:\s*", "", hint, flags=re.I).strip()
    if question.startswith(f"Hint: {hint}\n"):
        return question
    return f"Hint: {hint}\n{question}"


# Source columns kept at the top of `meta` (bench_kit reads them: hint, category, split);
# every other unmapped column goes under `meta.source`.
META_FIELDS = ("hint", "category", "l2-category", "l2_category", "split", "subset",
               "answer_text", "gold_text", "multi_select", "visual_prompt")
