"""Pandera twins of the pydantic types in `bench_kit.types`: validation of whole tables.

Each DataFrameModel has the same columns, nullability, enumerations and patterns as its
pydantic type (tests/test_schemas.py keeps them equal). Columns whose pydantic field has a
default are optional here (a column may be absent, but a present column is read as written:
a row lacking the key holds null there, which a non-nullable column rejects); extra columns
are kept (`strict = False`). Cross-field rules of
an item (mc gold among the choices, ...) are row-level and stay with `bench_kit.validate`.

This module imports pandas and pandera: import it inside functions, not at CLI start-up.
"""

from __future__ import annotations

import ast
import numbers
import re
from typing import Any, Optional, Sequence

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from bench_kit.errors import ValidationFailed
from bench_kit.types import (
    CHECK_PATTERN,
    DIFFICULTIES,
    ID_PATTERN,
    LAYERS,
    MODES,
    PARSES,
    SEVERITIES,
    TASKS,
)
from bench_kit.validate import Problem

UTC_MICROSECONDS = {"unit": "us", "tz": "UTC"}
NON_EMPTY = {"min_value": 1}


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


class ItemSchema(pa.DataFrameModel):
    """Items table (DESIGN §3.1), e.g. `datasets/<bench>/items.jsonl` as a DataFrame."""

    id: Series[str] = pa.Field(unique=True, str_matches=ID_PATTERN)
    image: Optional[Series[Any]] = pa.Field(nullable=True)
    question: Series[str] = pa.Field(str_length=NON_EMPTY)
    task: Series[str] = pa.Field(isin=TASKS)
    choices: Optional[Series[Any]] = pa.Field(nullable=True)
    answers: Optional[Series[Any]] = pa.Field()
    checks: Optional[Series[Any]] = pa.Field(nullable=True)
    metric: Optional[Series[str]] = pa.Field(nullable=True)
    tolerance: Optional[Series[float]] = pa.Field(nullable=True, coerce=True)
    capability: Series[str] = pa.Field(str_length=NON_EMPTY)
    layer: Series[str] = pa.Field(isin=LAYERS)
    difficulty: Series[str] = pa.Field(isin=DIFFICULTIES)
    variant: Optional[Series[str]] = pa.Field()
    variant_of: Optional[Series[str]] = pa.Field(nullable=True)
    variant_kind: Optional[Series[str]] = pa.Field()
    source: Optional[Series[str]] = pa.Field()
    group: Optional[Series[str]] = pa.Field(nullable=True)
    created_at: Series[pd.DatetimeTZDtype] = pa.Field(dtype_kwargs=UTC_MICROSECONDS,
                                                      coerce=True)
    rubric: Optional[Series[str]] = pa.Field(nullable=True)
    note: Optional[Series[str]] = pa.Field(nullable=True)
    meta: Optional[Series[Any]] = pa.Field()

    class Config:
        name = "Item"
        strict = False

    @pa.check("image", element_wise=True, name="image_paths")
    def _image_paths(cls, value: Any) -> bool:
        return isinstance(value, str) or _is_str_list(value)

    @pa.check("choices", element_wise=True, name="choice_texts")
    def _choice_texts(cls, value: Any) -> bool:
        return _is_object(value) and all(isinstance(v, str) for v in value.values())

    @pa.check("answers", element_wise=True, name="string_list")
    def _answers(cls, value: Any) -> bool:
        return _is_str_list(value)

    @pa.check("checks", element_wise=True, name="check_list")
    def _checks(cls, value: Any) -> bool:
        return isinstance(value, list) and all(
            _is_object(c) and isinstance(c.get("name"), str) and isinstance(c.get("answer"), bool)
            for c in value)

    @pa.check("meta", element_wise=True, name="json_object")
    def _meta(cls, value: Any) -> bool:
        return _is_object(value)


class PredictionSchema(pa.DataFrameModel):
    """Predictions table (DESIGN §3.2), `results/<bench>/<model>/<mode>.jsonl`."""

    id: Series[str]
    model: Series[str]
    mode: Series[str] = pa.Field(isin=MODES)
    rotation: Optional[Series[int]] = pa.Field()
    prompt_sha: Series[str]
    response: Series[str] = pa.Field(nullable=True)
    error: Optional[Series[str]] = pa.Field(nullable=True)
    latency_s: Optional[Series[float]] = pa.Field(coerce=True)
    tokens_in: Optional[Series[int]] = pa.Field()
    tokens_out: Optional[Series[int]] = pa.Field()
    cost: Optional[Series[float]] = pa.Field(coerce=True)
    cached: Optional[Series[bool]] = pa.Field()
    truncated: Optional[Series[bool]] = pa.Field()
    created_at: Series[pd.DatetimeTZDtype] = pa.Field(dtype_kwargs=UTC_MICROSECONDS,
                                                      coerce=True)
    protocol: Optional[Series[Any]] = pa.Field(nullable=True)

    class Config:
        name = "Prediction"
        strict = False

    @pa.check("protocol", element_wise=True, name="json_object")
    def _protocol(cls, value: Any) -> bool:
        return _is_object(value)


class ScoreSchema(pa.DataFrameModel):
    """Scores table (DESIGN §3.3), `scores/<bench>/<model>/<mode>.jsonl`."""

    id: Series[str]
    model: Series[str]
    mode: Series[str] = pa.Field(isin=MODES)
    metric: Series[str]
    extracted: Series[str] = pa.Field(nullable=True)
    parse: Series[str] = pa.Field(isin=PARSES)
    score: Series[float] = pa.Field(ge=0.0, le=1.0, coerce=True)
    hit: Series[bool]
    error: Optional[Series[str]] = pa.Field(nullable=True)

    class Config:
        name = "Score"
        strict = False


class FindingSchema(pa.DataFrameModel):
    """Audit findings table (DESIGN §3.4), `audits/<bench>/findings.jsonl`."""

    id: Series[str]
    check: Series[str] = pa.Field(str_matches=CHECK_PATTERN)
    severity: Series[str] = pa.Field(isin=SEVERITIES)
    score: Series[float] = pa.Field(ge=0.0, le=1.0, coerce=True)
    message: Series[str]
    evidence: Optional[Series[Any]] = pa.Field()

    class Config:
        name = "Finding"
        strict = False

    @pa.check("evidence", element_wise=True, name="json_object")
    def _evidence(cls, value: Any) -> bool:
        return _is_object(value)


_CHECK_REASONS = {
    "image_paths": "expected a string, a list of strings or null",
    "choice_texts": "expected an object of option letter -> text",
    "string_list": "expected a list of strings",
    "check_list": "expected a list of {name, answer: bool, criteria?} objects",
    "json_object": "expected an object",
    "not_nullable": "must not be null",
    "field_uniqueness": "duplicate value",
}
_DTYPE_NAMES = {"str": "a string", "string": "a string", "string[pyarrow]": "a string",
                "string[python]": "a string", "float64": "a number",
                "int64": "an integer", "bool": "true or false",
                "datetime64[us, UTC]": "an ISO-8601 date-time"}


def validate_table(df: pd.DataFrame, schema: type[pa.DataFrameModel], *, path: str = "",
                   lines: Sequence[int] | None = None) -> list[Problem]:
    """Validate a whole table against `schema`; return every problem (empty = valid).

    Args:
        df: the table, one row per JSONL line.
        schema: one of ItemSchema, PredictionSchema, ScoreSchema, FindingSchema.
        path: file name shown in each problem.
        lines: the line number of each row, in row order (default: row position + 1).
    """
    return _validate(df, schema, path, lines)[1]


def check_table(df: pd.DataFrame, schema: type[pa.DataFrameModel], *, path: str = "",
                lines: Sequence[int] | None = None) -> pd.DataFrame:
    """Validate a table and return it with coerced dtypes (created_at as UTC datetimes).

    Raises:
        ValidationFailed: listing every problem, when the table does not conform.
    """
    frame, problems = _validate(df, schema, path, lines)
    if frame is None:
        raise ValidationFailed(problems, path or None)
    return frame


def _validate(df: pd.DataFrame, schema: type[pa.DataFrameModel], path: str,
              lines: Sequence[int] | None) -> tuple[pd.DataFrame | None, list[Problem]]:
    try:
        return schema.validate(df, lazy=True), []
    except pa.errors.SchemaErrors as exc:
        return None, _problems(exc.failure_cases, df, path, lines)


def _problems(failures: pd.DataFrame, df: pd.DataFrame, path: str,
              lines: Sequence[int] | None) -> list[Problem]:
    problems = []
    for case in failures.to_dict("records"):
        label = case.get("index")
        check = str(case.get("check"))
        if check == "column_in_dataframe":
            problems.append(Problem(None, None, str(case["failure_case"]),
                                    "missing required column", path))
            continue
        line, ident = None, None
        if label is not None and not _is_na(label) and label in df.index:
            position = df.index.get_loc(label)
            if isinstance(position, numbers.Integral):
                line = lines[position] if lines is not None else position + 1
                ident = df["id"].iloc[position] if "id" in df.columns else None
        reason = _reason(check, case["failure_case"], whole_column=line is None)
        problems.append(Problem(line, ident if isinstance(ident, str) else None,
                                str(case.get("column")), reason, path))
    # A failed coercion is reported twice by pandera (coerce_dtype, then dtype): keep one.
    unique = list(dict.fromkeys(problems))
    return sorted(unique, key=lambda p: (p.line or 0, p.field or ""))


def _reason(check: str, value: Any, *, whole_column: bool = False) -> str:
    shown = _show(value)
    name, _, arg = check.partition("(")
    arg = arg.removesuffix(")")
    if check in _CHECK_REASONS:
        return _CHECK_REASONS[check] + ("" if check == "not_nullable" else f" (got {shown})")
    if name == "isin":
        allowed = ", ".join(str(v) for v in ast.literal_eval(arg))
        return f"must be one of {allowed} (got {shown})"
    if name in ("dtype", "coerce_dtype"):
        dtype = arg.strip("'\"")
        got = f"the column has dtype {value}" if whole_column else f"got {shown}"
        return f"expected {_DTYPE_NAMES.get(dtype, dtype)}, {got}"
    if name == "str_matches":
        return f"{shown} does not match the pattern {arg[1:-1]}"
    if name == "str_length":
        return f"must not be empty (got {shown})"
    if name == "greater_than_or_equal_to":
        return f"must be >= {arg} (got {shown})"
    if name == "less_than_or_equal_to":
        return f"must be <= {arg} (got {shown})"
    return f"fails {check} (got {shown})"


def _is_na(value: Any) -> bool:
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _show(value: Any) -> str:
    if _is_na(value):
        return "null"
    text = repr(value)
    return re.sub(r"\s+", " ", text if len(text) <= 60 else text[:57] + "...")
