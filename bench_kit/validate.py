"""Validating an items file: every problem on every line, not just the first.

`read_items` (bench_kit.items) stops at the first bad row; `validate_items_file` reads the
whole file and returns a `ValidationReport` listing each problem with its line, id and field,
so an author can fix a file in one pass.

The checks, in three layers (docs/ITEMS.md#validation):
1. each line: UTF-8, JSON syntax, a JSON object, and the strict pydantic parse of `Item`
   (it sees inside values: `image[1]`, `checks[0].answer`, a time zone, unknown fields);
2. the whole table: the pandera `ItemsFileSchema` (bench_kit.schemas) runs every column rule
   (types, enums, patterns, nullability) and the table rules (unique ids, `variant_of`
   pointing at an original of this file, one split per group; a group with several
   image sets is a warning);
3. row rules pandera cannot express, in Python: the task rules (mc gold among the choices,
   ...), capability/layer against the params taxonomy, metric names, image files.
A field flagged by both 1 and 2 on one line is reported once, with the reason of layer 1
(it names the exact place inside the value). Problems print in one format (`Problem`).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Collection, Literal, Mapping, Sequence, Union, get_args, get_origin

from pydantic import BaseModel, RootModel, ValidationError
from pydantic_core import ErrorDetails

from bench_kit.errors import ConfigError, Problem
from bench_kit.io import open_binary, open_image, parse_json_line, resolve_image
from bench_kit.items import ItemLimits, default_root
from bench_kit.params import DEFAULT_PARAMS, load_params, section
from bench_kit.types import Item, Layer, task_rule_violations

RULE_FIELDS = ("task", "answers", "choices", "checks")


@dataclass
class ValidationReport:
    """The outcome of validating one items file."""

    path: str
    items: int
    problems: list[Problem] = dataclass_field(default_factory=list)
    warnings: list[str] = dataclass_field(default_factory=list)

    @property
    def valid(self) -> bool:
        """True when no problem was found."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """The JSON report: path, item count, verdict, problems and warnings."""
        return {"path": self.path, "items": self.items, "valid": self.valid,
                "problems": [p.to_dict() for p in self.problems], "warnings": self.warnings}


class Taxonomy(RootModel[dict[str, Layer]]):
    """params.yaml `taxonomy`: capability -> layer."""


def load_limits(params_path: str | Path | None) -> ItemLimits:
    """The `validate` section of params.yaml (defaults without one, or without the file)."""
    path = Path(params_path if params_path is not None else DEFAULT_PARAMS)
    if not path.is_file():
        return ItemLimits()
    return section(load_params(path), "validate", ItemLimits, source=str(path))


def load_taxonomy(params_path: str | Path | None) -> tuple[dict[str, str] | None, str | None]:
    """Read the capability taxonomy; return (taxonomy or None, warning or None).

    With `params_path=None` a missing ./params.yaml (or a missing `taxonomy` section) only
    yields a warning, so validate works on any file; an explicit path must exist.
    """
    path = Path(params_path if params_path is not None else DEFAULT_PARAMS)
    if not path.is_file():
        if params_path is not None:
            raise ConfigError(f"{path}: file not found")
        return None, f"{path} not found; capability/layer checks against the taxonomy skipped"
    taxonomy = section(load_params(path), "taxonomy", Taxonomy, source=str(path)).root
    if not taxonomy:
        return None, f"{path} has no 'taxonomy' section; capability/layer checks skipped"
    return dict(taxonomy), None


def validate_items_file(path: str | Path, *, root: str | Path | None = None,
                        params_path: str | Path | None = None,
                        metrics: Collection[str] | None = None,
                        decode_images: bool = True) -> ValidationReport:
    """Check every line of an items JSONL file against docs/ITEMS.md; collect all problems.

    Args:
        path: the items file.
        root: folder image paths are relative to (default: `default_root(path)`).
        params_path: params.yaml with the `taxonomy`; None = ./params.yaml if it exists.
        metrics: the metric names an item may name (the caller knows the scoring registry);
            None skips the metric-name check.
        decode_images: decode every image (False: only check that the file exists — for a
            caller that decodes them anyway, like the data audit).

    Raises:
        InputError: the file cannot be read at all.
        ConfigError: an explicit params file is missing or its taxonomy is malformed.
    """
    taxonomy, warning = load_taxonomy(params_path)
    checker = _ItemsChecker(str(path), Path(root) if root is not None else default_root(path),
                            taxonomy, None if metrics is None else set(metrics))
    checker.limits = load_limits(params_path)
    checker.decode_images = decode_images
    with open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            checker.check_line(number, raw)
    problems = checker.finish()
    warnings = ([warning] if warning else []) + checker.group_image_warnings()
    return ValidationReport(str(path), checker.rows, problems, warnings)


class _ItemsChecker:
    """Per-file state: ids seen, variant references, and per-image verdicts (decoded once)."""

    def __init__(self, path: str, root: Path, taxonomy: dict[str, str] | None,
                 metrics: set[str] | None) -> None:
        self.path, self.root, self.taxonomy, self.metrics = path, root, taxonomy, metrics
        self.rows = 0
        self.problems: list[Problem] = []
        self.table: list[dict[str, Any]] = []  # parsed JSON objects, for the table checks
        self.table_lines: list[int] = []
        self.resolved: dict[str, tuple[Path | None, str | None]] = {}
        self.decoded: dict[Path, str | None] = {}
        self.decode_images = True
        self.limits = ItemLimits()

    def add(self, line: int | None, ident: str | None, field_name: str | None,
            reason: str) -> None:
        self.problems.append(Problem(line, ident, field_name, reason, self.path))

    def check_line(self, line: int, raw: bytes) -> None:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.rows += 1
            self.add(line, None, None, f"invalid UTF-8 at byte {exc.start}")
            return
        if not text.strip():
            return
        self.rows += 1
        try:
            row = parse_json_line(text.rstrip("\r\n"))
        except json.JSONDecodeError as exc:
            self.add(line, None, None, f"malformed JSON: {exc.msg} at column {exc.pos + 1}")
            return
        except (ValueError, RecursionError) as exc:
            self.add(line, None, None, f"malformed JSON: {_clip(str(exc) or 'nested too deep')}")
            return
        if not isinstance(row, dict):
            self.add(line, None, None, f"expected a JSON object, got {_json_type(row)}")
            return
        ident = row["id"] if isinstance(row.get("id"), str) else None
        oversized = self.limits.problems(row)
        for field_name, reason in oversized:
            self.add(line, ident, field_name, reason)
        if oversized and isinstance(row.get("question"), str):
            # the table checks only need the start of an over-long text
            row["question"] = row["question"][:self.limits.max_question_chars]
        self.table.append(row)
        self.table_lines.append(line)
        self._check_fields(line, ident, text, row)
        self._check_references(line, ident, row)
        self._check_images(line, ident, row.get("image"))

    def _check_fields(self, line: int, ident: str | None, text: str,
                      row: dict[str, Any]) -> None:
        try:
            # Strict JSON mode: "0.5" is not a number and 1700000000 is not a date-time.
            Item.model_validate_json(text, strict=True)
            errors: list[ErrorDetails] = []
        except ValidationError as exc:
            errors = exc.errors(include_url=False)
        for field_name, reason in explain_errors(errors):
            self.add(line, ident, field_name, reason)
        bad = {err["loc"][0] for err in errors if err["loc"]}
        if bad.intersection(RULE_FIELDS):
            return
        broken = task_rule_violations(row["task"], row.get("answers", []), row.get("choices"),
                                      row.get("checks"))
        for field_name, reason in broken:
            self.add(line, ident, field_name, reason)
        if not broken:  # a model-level rule that task_rule_violations does not know
            for err in errors:
                if not err["loc"]:
                    message = _strip_value_error(err["msg"])
                    field_name, sep, reason = message.partition(": ")
                    self.add(line, ident, field_name if sep else None, reason if sep else message)

    def _check_references(self, line: int, ident: str | None, row: dict[str, Any]) -> None:
        capability, layer = row.get("capability"), row.get("layer")
        if self.taxonomy is not None and isinstance(capability, str) and capability:
            if capability not in self.taxonomy:
                self.add(line, ident, "capability",
                         f"unknown capability '{capability}' (not in the params taxonomy)"
                         f"{_did_you_mean(capability, self.taxonomy)}")
            elif isinstance(layer, str) and layer in get_args(Layer) \
                    and layer != self.taxonomy[capability]:
                self.add(line, ident, "layer",
                         f"'{layer}' does not match capability '{capability}', whose layer is "
                         f"'{self.taxonomy[capability]}'")
        metric = row.get("metric")
        if self.metrics is not None and isinstance(metric, str) and metric not in self.metrics:
            known = ", ".join(sorted(self.metrics)) or "none"
            self.add(line, ident, "metric", f"unknown metric '{metric}'"
                     f"{_did_you_mean(metric, self.metrics)} (known: {known})")

    def _check_images(self, line: int, ident: str | None, image: Any) -> None:
        if isinstance(image, str):
            paths = [("image", image)]
        elif isinstance(image, list):
            paths = [(f"image[{i}]", rel) for i, rel in enumerate(image) if isinstance(rel, str)]
        else:
            return
        for field_name, rel in paths:
            reason = self._image_problem(rel)
            if reason:
                self.add(line, ident, field_name, reason)

    def _image_problem(self, rel: str) -> str | None:
        if rel not in self.resolved:
            try:
                resolved = resolve_image(self.root, rel)
                self.resolved[rel] = (resolved, None if resolved.is_file()
                                      else f"image file '{rel}' not found")
            except (ValueError, OSError, RuntimeError) as exc:
                self.resolved[rel] = (None, str(exc))
        full, reason = self.resolved[rel]
        if reason or full is None or not self.decode_images:
            return reason
        if full not in self.decoded:
            try:
                open_image(full)
                self.decoded[full] = None
            except ValueError as exc:
                self.decoded[full] = str(exc)
        return self.decoded[full]

    def finish(self) -> list[Problem]:
        """Run the table checks (pandera) and return every problem, ordered by line."""
        if self.rows == 0:
            self.problems.append(Problem(None, None, None, "no items: the file is empty",
                                         self.path, kind="empty_file"))
        flagged = {(p.line, _root_field(p.field)) for p in self.problems}
        for problem in self._table_problems():
            if (problem.line, _root_field(problem.field)) not in flagged:
                self.problems.append(problem)
        return sorted(self.problems, key=lambda p: p.line or 0)

    def group_image_warnings(self) -> list[str]:
        """One warning per item whose image set differs from its group's first item."""
        from bench_kit.schemas import group_image_conflicts

        out = []
        for position, first in group_image_conflicts(self.table):
            row, line = self.table[position], self.table_lines[position]
            out.append(f"{self.path}:{line}: id={row.get('id')} field=image: "
                       + group_image_message(row.get("group"), self.table_lines[first]))
        return out

    def _table_problems(self) -> list[Problem]:
        """`ItemsFileSchema` on the parsed rows, a field absent from a row read as its default."""
        if not self.table:
            return []
        import pandas as pd

        from bench_kit.schemas import ItemsFileSchema, validate_table

        defaults = {name: info.get_default(call_default_factory=True)
                    for name, info in Item.model_fields.items() if not info.is_required()}
        frame = pd.DataFrame([{**defaults, **row} for row in self.table])
        problems = validate_table(frame, ItemsFileSchema, path=self.path, lines=self.table_lines)
        missing = {(line, name) for line, row in zip(self.table_lines, self.table)
                   for name in Item.model_fields if name not in row}
        return [Problem(p.line, p.id, p.field, "missing required field", p.path)
                if (p.line, p.field) in missing else p for p in problems]


def group_image_message(group: Any, first_line: int) -> str:
    """The warning for an item whose image set differs from its group's first item."""
    return (f"group '{group}' uses several image sets: this item differs from the group's "
            f"first item (line {first_line}); allowed (a group is the unit splits keep whole), "
            "check that the group is meant to span images")


def _root_field(field_name: str | None) -> str | None:
    """`image[1]` -> `image`, `checks[0].answer` -> `checks`."""
    return None if field_name is None else field_name.split("[", 1)[0].split(".", 1)[0]


# --- pydantic errors -> short human reasons -------------------------------------------------

_EXPECTED = {
    "string_type": "a string", "int_type": "an integer", "float_type": "a number",
    "bool_type": "true or false", "list_type": "a list", "dict_type": "an object",
    "model_type": "an object", "model_attributes_type": "an object", "none_required": "null",
    "datetime_type": "an ISO-8601 date-time string", "int_from_float": "an integer",
}
_TYPE_NAMES = {bool: "bool", int: "int", float: "float", str: "string", NoneType: "null",
               list: "list", dict: "object"}


def explain_errors(errors: Sequence[ErrorDetails],
                   model: type[BaseModel] = Item) -> list[tuple[str, str]]:
    """Turn pydantic errors for `model` into (field, short reason) pairs, one per problem.

    Model-level errors (empty `loc`) are left out: the caller handles cross-field rules.
    Errors from the branches of a union field collapse into one "expected X or Y" reason.
    """
    out: list[tuple[str, str]] = []
    by_union: dict[str, list[ErrorDetails]] = {}
    for err in errors:
        loc = err["loc"]
        if not loc:
            continue
        name = str(loc[0])
        info = model.model_fields.get(name)
        if info is not None and _is_union(info.annotation) and len(loc) >= 2:
            by_union.setdefault(name, []).append(err)
            continue
        out.append((_field_path(loc), _reason(err)))
    for name, errs in by_union.items():
        deep = [e for e in errs if len(e["loc"]) > 2]
        if deep:  # the value had the right container type; report inside it
            out.extend((_field_path((name, *e["loc"][2:])), _reason(e)) for e in deep)
        else:
            expected = _describe(model.model_fields[name].annotation)
            out.append((name, f"expected {expected}, got {_json_type(errs[0]['input'])}"))
    return out


def _reason(err: Mapping[str, Any]) -> str:
    kind, ctx, value = err["type"], err.get("ctx") or {}, err.get("input")
    if kind == "missing":
        return "missing required field"
    if kind in _EXPECTED:
        return f"expected {_EXPECTED[kind]}, got {_json_type(value)}"
    if kind == "literal_error":
        allowed = ", ".join(part.strip().strip("'") for part in
                            ctx.get("expected", "").replace(" or ", ", ").split(","))
        return f"must be one of {allowed} (got {_show(value)})"
    if kind == "string_pattern_mismatch":
        return f"{_show(value)} does not match the pattern {ctx.get('pattern')}"
    if kind in ("string_too_short", "too_short"):
        return "must not be empty"
    if kind.startswith("datetime") or kind.startswith("date_"):
        return (f"unparseable date-time {_show(value)}: {ctx.get('error', 'invalid')}; "
                "use ISO-8601 UTC, e.g. 2026-01-31T00:00:00Z")
    if kind == "extra_forbidden":
        return "unknown field"
    return _strip_value_error(err["msg"])


def _strip_value_error(message: str) -> str:
    message = message.removeprefix("Value error, ").removeprefix("Assertion failed, ")
    return message[:1].lower() + message[1:]


def _field_path(loc: tuple[Any, ...]) -> str:
    path = str(loc[0])
    for part in loc[1:]:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _is_union(annotation: Any) -> bool:
    if get_origin(annotation) not in (Union, UnionType):
        return False
    return len([a for a in get_args(annotation) if a is not NoneType]) > 1


def _describe(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, UnionType):
        parts = [_describe(a) for a in args]
        return ", ".join(parts[:-1]) + " or " + parts[-1] if len(parts) > 1 else parts[0]
    if origin is list:
        return f"a list of {_describe(args[0]).split(' ', 1)[-1]}s" if args else "a list"
    if origin is Literal:
        return "one of " + ", ".join(str(a) for a in args)
    names = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
             NoneType: "null", dict: "an object", datetime: "an ISO-8601 date-time"}
    return names.get(origin or annotation, getattr(annotation, "__name__", str(annotation)))


def _json_type(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return _clip(text, 60)


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _did_you_mean(name: str, known: Any) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""
