"""The pandera schemas stay twins of the pydantic types, and validate whole tables."""

from __future__ import annotations

from datetime import datetime, timezone
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

import pandas as pd
import pytest
from annotated_types import Ge, Le, MinLen

from bench_kit.errors import ValidationFailed
from bench_kit.io import read_jsonl, write_jsonl
from bench_kit.schemas import (
    FindingSchema,
    ItemSchema,
    PredictionSchema,
    ScoreSchema,
    check_table,
    validate_table,
)
from bench_kit.types import Finding, Item, Prediction, Score

TWINS = [(Item, ItemSchema), (Prediction, PredictionSchema), (Score, ScoreSchema),
         (Finding, FindingSchema)]
WHEN = datetime(2026, 1, 31, tzinfo=timezone.utc)


def _columns(schema):
    return schema.to_schema().columns


def _checks(column) -> dict[str, dict[str, Any]]:
    return {check.name: check.statistics for check in column.checks}


def _members(annotation) -> tuple[Any, ...]:
    if get_origin(annotation) in (Union, UnionType):
        return get_args(annotation)
    return (annotation,)


def _expected_dtype(annotation) -> str | None:
    """The pandas dtype family a pydantic annotation maps to (None = free-form object)."""
    members = [m for m in _members(annotation) if m is not NoneType]
    if len(members) != 1:
        return None
    member = members[0]
    if get_origin(member) is Literal or member is str:
        return "string"
    return {float: "float", int: "int", bool: "bool", datetime: "datetime"}.get(member)


def _dtype_family(column) -> str | None:
    if column.dtype is None:
        return None
    text = str(column.dtype)
    for family in ("string", "float", "int", "bool", "datetime"):
        if text.startswith(family) or (family == "string" and text == "str"):
            return family
    return text


@pytest.mark.parametrize(("model", "schema"), TWINS, ids=lambda x: getattr(x, "__name__", x))
def test_schema_columns_match_the_pydantic_fields(model, schema) -> None:
    assert set(model.model_fields) == set(_columns(schema))


@pytest.mark.parametrize(("model", "schema"), TWINS, ids=lambda x: getattr(x, "__name__", x))
def test_schema_column_rules_match_the_pydantic_fields(model, schema) -> None:
    columns = _columns(schema)
    for name, info in model.model_fields.items():
        column, checks = columns[name], _checks(columns[name])
        assert column.nullable == (NoneType in _members(info.annotation)), name
        assert column.required == info.is_required(), name
        assert _dtype_family(column) == _expected_dtype(info.annotation), name
        literals = [m for m in _members(info.annotation) if get_origin(m) is Literal]
        if literals:
            assert set(checks["isin"]["allowed_values"]) == set(get_args(literals[0])), name
        else:
            assert "isin" not in checks, name
        pattern = next((m.pattern for m in info.metadata if getattr(m, "pattern", None)), None)
        assert checks.get("str_matches", {}).get("pattern") == pattern, name
        min_len = next((m.min_length for m in info.metadata if isinstance(m, MinLen)), None)
        assert checks.get("str_length", {}).get("min_value") == min_len, name
        ge = next((m.ge for m in info.metadata if isinstance(m, Ge)), None)
        le = next((m.le for m in info.metadata if isinstance(m, Le)), None)
        assert checks.get("greater_than_or_equal_to", {}).get("min_value") == ge, name
        assert checks.get("less_than_or_equal_to", {}).get("max_value") == le, name


def _item(**changes: Any) -> dict[str, Any]:
    row = {"id": "q1", "image": "img/a.png", "question": "What shape is it?", "task": "mc",
           "choices": {"A": "circle", "B": "square"}, "answers": ["A"],
           "capability": "perception.shape", "layer": "perception", "difficulty": "easy",
           "created_at": "2026-01-31T00:00:00Z", "meta": {}}
    row.update(changes)
    return row


def _pydantic_rows() -> dict[type, list[dict[str, Any]]]:
    """One row per type, written the way every stage writes them (model_dump as JSON)."""
    records = {
        Item: Item.model_validate(_item(checks=None, tolerance=2, extra_column="kept")),
        Prediction: Prediction(id="q1", model="ocr", mode="image", prompt_sha="ab12",
                               response="B", created_at=WHEN),
        Score: Score(id="q1", model="ocr", mode="image", metric="exact", extracted="B",
                     parse="ok", score=1.0, hit=True),
        Finding: Finding(id="q1", check="ambiguity.deixis", severity="warn", score=0.5,
                         message="vague 'this'", evidence={"span": "this"}),
    }
    return {model: [record.model_dump(mode="json")] for model, record in records.items()}


@pytest.mark.parametrize(("model", "schema"), TWINS, ids=lambda x: getattr(x, "__name__", x))
def test_rows_written_from_pydantic_records_validate(model, schema, tmp_path) -> None:
    path = tmp_path / "table.jsonl"
    write_jsonl(path, _pydantic_rows()[model])
    frame = pd.DataFrame(read_jsonl(path))
    assert validate_table(frame, schema, path=str(path)) == []


def test_check_table_coerces_and_keeps_extra_columns() -> None:
    frame = pd.DataFrame([_item(extra_column="kept", tolerance=1),
                          _item(id="q2", image=["img/a.png", "img/b.png"], task="yesno",
                                choices=None, answers=["yes"], tolerance=None)])
    checked = check_table(frame, ItemSchema)
    assert str(checked["created_at"].dtype) == "datetime64[us, UTC]"
    assert checked["tolerance"].dtype == "float64"
    assert checked["extra_column"].iloc[0] == "kept"


def test_validate_table_reports_every_bad_cell_with_line_id_and_field() -> None:
    frame = pd.DataFrame([
        _item(),
        _item(id="q2", task="mcq", layer="top", image=5, answers=[1], created_at="yesterday"),
        _item(id="q1", question="", difficulty=None, meta=[]),
    ])
    problems = validate_table(frame, ItemSchema, path="items.jsonl", lines=[1, 3, 4])
    found = {(p.line, p.id, p.field) for p in problems}
    assert found == {
        (1, "q1", "id"), (4, "q1", "id"),
        (3, "q2", "task"), (3, "q2", "layer"), (3, "q2", "image"), (3, "q2", "answers"),
        (3, "q2", "created_at"),
        (4, "q1", "question"), (4, "q1", "difficulty"), (4, "q1", "meta"),
    }
    reasons = {p.field: p.reason for p in problems if p.line == 3}
    assert reasons["task"].startswith("must be one of mc, yesno, open, numeric, grounding")
    assert reasons["created_at"] == "expected an ISO-8601 date-time, got 'yesterday'"
    assert str(problems[0]).startswith("items.jsonl:1: id=q1 field=id: duplicate value")


def test_validate_table_names_missing_columns_and_ranges() -> None:
    rows = _pydantic_rows()[Score]
    frame = pd.DataFrame([{**rows[0], "score": 1.5}, {**rows[0], "parse": "maybe"}])
    problems = validate_table(frame.drop(columns=["hit"]), ScoreSchema, path="s.jsonl")
    assert [(p.line, p.field, p.reason) for p in problems] == [
        (None, "hit", "missing required column"),
        (1, "score", "must be <= 1.0 (got 1.5)"),
        (2, "parse", "must be one of ok, lenient, judge, failed (got 'maybe')"),
    ]


def test_check_table_raises_with_all_problems() -> None:
    frame = pd.DataFrame([{"id": "q1", "check": "Bad Check", "severity": "fatal", "score": 0.2,
                           "message": "m", "evidence": {}}])
    with pytest.raises(ValidationFailed) as caught:
        check_table(frame, FindingSchema, path="findings.jsonl")
    assert {p.field for p in caught.value.problems} == {"check", "severity"}
