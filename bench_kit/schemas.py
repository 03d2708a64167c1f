"""Pandera twins of the pydantic types in `bench_kit.types`: validation of whole tables.

Each DataFrameModel has the same columns, nullability, enumerations and patterns as its
pydantic type (tests/test_schemas.py keeps them equal). Columns whose pydantic field has a
default are optional here (a column may be absent, but a present column is read as written:
a row lacking the key holds null there, which a non-nullable column rejects); extra columns
are kept (`strict = False`). `ItemsFileSchema` adds the table-level rules of one items file
(unique ids, `variant_of` targets, groups). Cross-field rules of an item (mc gold among the
choices, ...) are row-level and stay in Python in `bench_kit.validate`.

This module imports pandas and pandera: import it inside functions, not at CLI start-up.
"""

from __future__ import annotations

import ast
import numbers
import re
from typing import Any, Mapping, Optional, Sequence

import pandas as pd
import pandera.pandas as pa
from pandera.typing import Series

from bench_kit.errors import Problem, ValidationFailed
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

UTC_MICROSECONDS = {"unit": "us", "tz": "UTC"}
NON_EMPTY = {"min_value": 1}


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_object(value: Any) -> bool:
    return isinstance(value, dict)


class ItemSchema(pa.DataFrameModel):
    """Items table (docs/ITEMS.md), e.g. `datasets/<bench>/items.jsonl` as a DataFrame."""

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


def _text(column: pd.Series) -> pd.Series:
    """The column's strings; anything else (a wrong type, null) as NA."""
    return column.where(column.map(lambda v: isinstance(v, str)))


def _image_set(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(sorted(str(v) for v in value))
    return ()


def _unmarked(image: Any, meta: Any) -> Any:
    """The image a marked copy was drawn on (`meta.visual_prompt.source_image`), else `image`."""
    prompt = meta.get("visual_prompt") if isinstance(meta, dict) else None
    if isinstance(prompt, dict) and isinstance(prompt.get("source_image"), str):
        return prompt["source_image"]
    return image


def group_image_conflicts(rows: Sequence[Mapping[str, Any]]) -> list[tuple[int, int]]:
    """(position, position of its group's first row) for each row whose image set differs
    from its group's first row (a marked copy counts as its `source_image`).

    A warning, not a validation rule: a group is the unit splits keep whole, and benchmarks
    group items by source document or topic with several images.

    >>> group_image_conflicts([{"group": "g", "image": "a.png"}, {"group": "g", "image": "b.png"},
    ...                        {"group": None, "image": "c.png"}])
    [(1, 0)]
    """
    first: dict[str, tuple[int, tuple[str, ...]]] = {}
    out: list[tuple[int, int]] = []
    for position, row in enumerate(rows):
        group = row.get("group")
        if not isinstance(group, str):
            continue
        images = _image_set(_unmarked(row.get("image"), row.get("meta")))
        if group not in first:
            first[group] = (position, images)
        elif images != first[group][1]:
            out.append((position, first[group][0]))
    return out


def _first_of_group(df: pd.DataFrame, values: pd.Series) -> pd.Series:
    """Per row: the value of the first row of the same group (NA outside any group)."""
    groups = _text(df["group"]) if "group" in df.columns else pd.Series(pd.NA, index=df.index)
    first = values.groupby(groups, dropna=True).transform("first")
    return first.where(groups.notna())


class ItemsFileSchema(ItemSchema):
    """One items file as a whole: `ItemSchema` plus its table-level rules.

    Ids are unique (a repeat is reported on the later line); `variant_of` names an item of
    the same file that is an original (`variant` "v0"); the items of a `group` share one
    split when the table has a `split` column. Table checks skip cells of the wrong type
    (the column checks report those). A group with several image sets is a warning, not a
    rule (`group_image_conflicts`, docs/ITEMS.md#groups).
    """

    id: Series[str] = pa.Field(str_matches=ID_PATTERN)

    class Config:
        name = "ItemsFile"
        strict = False

    @pa.dataframe_check(name="unique_id")
    def _unique_id(cls, df: pd.DataFrame) -> pd.Series:
        ids = _text(df["id"])
        return ids.isna() | ~ids.duplicated(keep="first")

    @pa.dataframe_check(name="variant_of_exists")
    def _variant_of_exists(cls, df: pd.DataFrame) -> pd.Series:
        if "variant_of" not in df.columns:
            return pd.Series(True, index=df.index)
        target = _text(df["variant_of"])
        return target.isna() | target.isin(set(_text(df["id"]).dropna()))

    @pa.dataframe_check(name="variant_of_original")
    def _variant_of_original(cls, df: pd.DataFrame) -> pd.Series:
        if "variant_of" not in df.columns or "variant" not in df.columns:
            return pd.Series(True, index=df.index)
        variant_by_id = _variants(df)
        target = _text(df["variant_of"])
        return target.map(lambda t: pd.isna(t) or variant_by_id.get(t, "v0") == "v0")

    @pa.dataframe_check(name="group_split")
    def _group_split(cls, df: pd.DataFrame) -> pd.Series:
        return _same_within_group(df, "split", str)


def _same_within_group(df: pd.DataFrame, column: str, key: Any) -> pd.Series:
    """True where `key(value)` of `column` equals that of its group's first row (and for
    rows outside a group, or when the table has no such column)."""
    if column not in df.columns:
        return pd.Series(True, index=df.index)
    values = df[column].map(key)
    first = _first_of_group(df, values)
    return first.isna() | (values == first)


def _variants(df: pd.DataFrame) -> dict[str, str]:
    """id -> its `variant` label (first row of each id)."""
    out: dict[str, str] = {}
    for ident, variant in zip(df["id"], df["variant"]):
        if isinstance(ident, str) and isinstance(variant, str):
            out.setdefault(ident, variant)
    return out


def _table_reason(check: str, df: pd.DataFrame, position: int,
                  lines: Sequence[int] | None) -> tuple[str, str] | None:
    """(field, reason) of a failed `ItemsFileSchema` table check on one row; None if unknown."""
    def line_of(pos: int) -> int:
        return lines[pos] if lines is not None else pos + 1

    row = df.iloc[position]
    if check == "unique_id":
        first = int((_text(df["id"]) == row["id"]).to_numpy().argmax())
        return "id", f"duplicate id (first on line {line_of(first)})"
    if check == "variant_of_exists":
        return "variant_of", f"names id '{row['variant_of']}', which is not in this file"
    if check == "variant_of_original":
        target = row["variant_of"]
        return "variant_of", (f"names id '{target}', which is variant "
                              f"'{_variants(df)[target]}', not an original (v0)")
    if check == "group_split":
        first = int((_text(df["group"]) == row["group"]).to_numpy().argmax())
        return "split", (f"group '{row['group']}' must share one split: this item differs "
                         f"from the group's first item (line {line_of(first)})")
    return None


class PredictionSchema(pa.DataFrameModel):
    """Predictions table (docs/ITEMS.md#predictions), `results/<bench>/<model>/<mode>.jsonl`."""

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
    """Scores table (docs/ITEMS.md#scores), `scores/<bench>/<model>/<mode>.jsonl`."""

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
    """Audit findings table (docs/AUDIT_METHODS.md#findings), `audits/<bench>/findings.jsonl`."""

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
                                    "missing required column", path, kind="missing_column"))
            continue
        line, ident, position = None, None, -1
        if label is not None and not _is_na(label) and label in df.index:
            found = df.index.get_loc(label)
            if isinstance(found, numbers.Integral):
                position = int(found)
                line = lines[position] if lines is not None else position + 1
                ident = df["id"].iloc[position] if "id" in df.columns else None
        table = None if line is None else _table_reason(check, df, position, lines)
        if table is not None:
            field, reason = table
        else:
            field = str(case.get("column"))
            reason = _reason(check, case["failure_case"], whole_column=line is None)
        problems.append(Problem(line, ident if isinstance(ident, str) else None, field,
                                reason, path))
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
