"""One import row -> a validated `Item`, in named steps: each takes the fields it reads
out of the row (popped, in the order of `row_to_item`), so the columns left at the end
are the unmapped ones, kept under `meta` (META_FIELDS) or `meta.source`."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bench_kit.errors import param
from bench_kit.exchange.cells import RowError, blank, is_nan, maybe_json, without_bytes
from bench_kit.exchange.checkcells import pair_checks, parse_checks
from bench_kit.exchange.rows import (
    CHECKLIST_QUESTION,
    META_FIELDS,
    ImportOptions,
    NoQuestionColumn,
    box_answer,
    infer_task,
    parse_answers,
    parse_choices,
    prepend_hint,
)
from bench_kit.items import pydantic_problem
from bench_kit.types import LAYERS, LETTERS, TASKS, Item


def row_to_item(row: dict[str, Any], fmt: str, opts: ImportOptions, now: datetime,
                number: int) -> Item:
    """Turn one source row into a validated Item (raises RowError naming the field).

    The steps take the fields they read out of `row` (popped, in this order), so the
    columns left at the end are the unmapped ones, kept under `meta` / `meta.source`."""
    columns = {str(k).strip() for k in row}
    row = _present_values(row)
    meta = maybe_json(row.pop("meta", None), "meta") or {}
    if not isinstance(meta, dict):
        raise RowError("meta", "expected a JSON object")
    checks = _row_checks(row)
    choices = parse_choices(row)
    source: dict[str, Any] = {}
    task, answers = _task_and_answers(row, opts, choices, checks, source)
    if task == "mc" and len(answers) > 1:
        meta.setdefault("multi_answer", True)
    _check_question(row, columns, bool(checks))
    capability = _capability(row, opts)
    fields: dict[str, Any] = {
        "id": f"{opts.id_prefix}{row.pop('id', number)}".strip(),
        "image": row.pop("image", None),
        "question": str(row.pop("question", CHECKLIST_QUESTION if checks else "")),
        "task": task, "choices": choices, "answers": answers, "checks": checks,
        "capability": capability, "layer": _layer(row, capability, opts),
        "difficulty": str(row.pop("difficulty", opts.difficulty)).strip().lower(),
        "created_at": row.pop("created_at", None) or opts.created_at or now,
        "source": f"import:{fmt}",
    }
    _source_and_hint(row, opts, fields, meta, source)
    _carried_fields(row, opts, fields, source)
    _check_image(fields)
    fields["meta"] = _with_rest(row, meta, source)
    try:
        return Item.model_validate(fields)
    except ValidationError as exc:
        raise RowError(*pydantic_problem(exc)) from exc


def _present_values(row: dict[str, Any]) -> dict[str, Any]:
    """The row's non-blank cells under stripped names; options left blank are named in
    `_empty_options` (an option column that is there but empty is a row problem)."""
    empty_options = [k for k in LETTERS if k in row and (blank(row[k]) or is_nan(row[k]))]
    present = {str(k).strip(): v for k, v in row.items() if not blank(v) and not is_nan(v)}
    if empty_options:
        present["_empty_options"] = empty_options
    return present


def _row_checks(row: dict[str, Any]) -> list | None:
    """The checklist of a row (`checks` or `checklist`: JSON, or statements paired with
    answer columns), None when it has none."""
    value = maybe_json(row.pop("checks", None) or row.pop("checklist", None), "checks")
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        value = pair_checks(value, row)
    return parse_checks(value) if value is not None else None


def _task_and_answers(row: dict[str, Any], opts: ImportOptions, choices: dict[str, str] | None,
                      checks: list | None, source: dict[str, Any]) -> tuple[str, list[str]]:
    """The row's task (the option, a reader's guess, its own valid `task` column, or
    inferred, in that order) and its answers in that task's spelling."""
    answers = parse_answers(row, choices)
    own = _own_field(row, "task", TASKS, source)
    task = opts.task or row.pop("_task", None) or own or infer_task(answers, choices, checks)
    if task == "yesno":
        answers = [a.lower() for a in answers]
    if task == "grounding":
        answers = [box_answer(a) or a for a in answers]
    return task, answers


def _check_question(row: dict[str, Any], columns: set[str], has_checks: bool) -> None:
    """Raise RowError unless the row's question is text (blank only for a checklist)."""
    if not isinstance(row.get("question", ""), (str, int, float)):
        raise RowError("question", f"expected text, got {type(row['question']).__name__}")
    if blank(row.get("question")) and not has_checks:
        if "question" not in columns:
            raise NoQuestionColumn()
        raise RowError("question", "must not be blank")


def _source_and_hint(row: dict[str, Any], opts: ImportOptions, fields: dict[str, Any],
                     meta: dict[str, Any], source: dict[str, Any]) -> None:
    """Keep where the row came from (its own `source`, the image's) and prepend its hint
    to the question when the options ask for it."""
    original_source = row.pop("source", None)
    if original_source and original_source != fields["source"]:
        meta.setdefault("source_before_import", original_source)
    if opts.hint == "prepend" and not blank(row.get("hint")):
        fields["question"] = prepend_hint(fields["question"], str(row["hint"]))
    if "_image_source" in row:
        source["image"] = row.pop("_image_source")


def _carried_fields(row: dict[str, Any], opts: ImportOptions, fields: dict[str, Any],
                    source: dict[str, Any]) -> None:
    """Add the fields a row may carry (tolerance, metric, variant, group, …) to `fields`,
    the options' metric and rubric over the row's."""
    if "tolerance" in row:
        try:
            fields["tolerance"] = float(row.pop("tolerance"))
        except (TypeError, ValueError) as exc:
            raise RowError("tolerance", "expected a number") from exc
    for name in ("metric", "variant", "variant_of", "variant_kind", "rubric", "note"):
        if name in row:
            fields[name] = str(row.pop(name))
    group = _own_field(row, "group", None, source)
    if group:
        fields["group"] = group
    for name in ("metric", "rubric"):
        if getattr(opts, name):
            fields[name] = getattr(opts, name)


def _check_image(fields: dict[str, Any]) -> None:
    """Raise RowError unless `image` is a path or a list of paths; an item without its
    own group is grouped by its (first) image's name."""
    image = fields["image"]
    if image is not None and not (isinstance(image, str) or isinstance(image, list) and image
                                  and all(isinstance(i, str) for i in image)):
        raise RowError("image", f"expected an image path or a list of paths, got "
                                f"{type(image).__name__} {str(image)[:60]}")
    if "group" not in fields and image:
        first = image if isinstance(image, str) else image[0]
        fields["group"] = "image:" + Path(first).stem


def _with_rest(row: dict[str, Any], meta: dict[str, Any],
               source: dict[str, Any]) -> dict[str, Any]:
    """`meta` with the row's columns no step took: the ones bench_kit reads at its top
    (META_FIELDS), the others under `meta.source` (with the `source` already kept)."""
    for name, value in row.items():
        if name.startswith("_"):
            continue
        value = without_bytes(value)  # a data: URL named, never copied whole
        if name in META_FIELDS:
            meta.setdefault(name, _json_safe(name, value))
        else:
            source.setdefault(name, _json_safe(name, value))
    if source:
        kept = meta.get("source")
        kept = kept if isinstance(kept, dict) else {}
        meta["source"] = {**kept, **source}
    return meta


def _capability(row: dict[str, Any], opts: ImportOptions) -> str:
    if not blank(row.get("capability")):
        return str(row.pop("capability"))
    looked_up = []
    for key in ("l2-category", "l2_category", "category"):
        value = str(row.get(key, "")).strip()
        mapped = opts.category_map.get(value)
        if mapped:
            return mapped
        if value:
            looked_up.append(f"{key}='{value}'")
    if opts.capability:
        return opts.capability
    if opts.category_map and looked_up:
        raise RowError("capability", f"{param('category_map')} has no entry for "
                                     f"{' or '.join(looked_up)}"
                                     f" (add one, or give {param('capability')})")
    raise RowError("capability", f"missing: give a capability column, {param('capability')}, "
                                 f"or a {param('category_map')} entry for this row's category")


def _layer(row: dict[str, Any], capability: str, opts: ImportOptions) -> str:
    if not blank(row.get("layer")):
        return str(row.pop("layer")).strip().lower()
    if capability in opts.taxonomy:
        return opts.taxonomy[capability]
    prefix = capability.split(".", 1)[0]
    if prefix in LAYERS:
        return prefix
    if opts.layer:
        return opts.layer
    raise RowError("layer", f"cannot derive a layer for capability '{capability}': add it to "
                            f"the params taxonomy, give a layer column, or {param('layer')}")


def _json_safe(name: str, value: Any) -> Any:
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise RowError(name, f"column holds a value JSON cannot store ({type(value).__name__})") \
            from exc
    return value


def _own_field(row: dict[str, Any], name: str, valid: tuple[str, ...] | None,
               source: dict[str, Any]) -> str | None:
    """A source column named like a bench_kit field: used when its value is valid for the
    field, else kept under `meta.source` (it never breaks a row)."""
    if name not in row:
        return None
    value = row.pop(name)
    text = str(value).strip()
    if isinstance(value, str) and text and (valid is None or text.lower() in valid):
        return text.lower() if valid else text
    source[name] = _json_safe(name, value)
    return None
