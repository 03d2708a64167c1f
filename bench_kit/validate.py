"""Validating an items file: every problem on every line, not just the first.

`read_items` (bench_kit.items) stops at the first bad row; `validate_items_file` reads the
whole file and returns a `ValidationReport` listing each problem with its line, id and field,
so an author can fix a file in one pass. Whole-table validation of other artifacts lives in
`bench_kit.schemas`.
"""

from __future__ import annotations

import difflib
import importlib
import json
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from datetime import datetime
from pathlib import Path
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, RootModel, ValidationError

from bench_kit.errors import ConfigError
from bench_kit.io import open_binary, open_image, parse_json_line, resolve_image
from bench_kit.items import default_root
from bench_kit.params import DEFAULT_PARAMS, load_params, section
from bench_kit.types import Item, Layer, task_rule_violations

RULE_FIELDS = ("task", "answers", "choices", "checks")


@dataclass(frozen=True)
class Problem:
    """One problem in a table: where it is (line, id, field) and why it is wrong."""

    line: int | None
    id: str | None
    field: str | None
    reason: str
    path: str = ""

    def __str__(self) -> str:
        where = ":".join(str(part) for part in (self.path, self.line) if part not in ("", None))
        return (f"{where}: id={_one_line(self.id or '-')} field={_one_line(self.field or '-')}: "
                f"{_one_line(self.reason)}")

    def to_dict(self) -> dict[str, Any]:
        """The problem as a JSON-ready dict (the path is the report's, not repeated)."""
        return {"line": self.line, "id": self.id, "field": self.field, "reason": self.reason}


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


def metric_names() -> set[str] | None:
    """Names in the metric registry, or None while bench_kit.scoring.item does not exist."""
    try:
        scoring = importlib.import_module("bench_kit.scoring.item")
    except ModuleNotFoundError as exc:
        if exc.name in ("bench_kit.eval", "bench_kit.scoring.item"):
            return None
        raise
    metrics = getattr(scoring, "METRICS", None)
    return None if metrics is None else set(metrics)


def validate_items_file(path: str | Path, *, root: str | Path | None = None,
                        params_path: str | Path | None = None) -> ValidationReport:
    """Check every line of an items JSONL file against DESIGN §3.1; collect all problems.

    Args:
        path: the items file.
        root: folder image paths are relative to (default: `default_root(path)`).
        params_path: params.yaml with the `taxonomy`; None = ./params.yaml if it exists.

    Raises:
        InputError: the file cannot be read at all.
        ConfigError: an explicit params file is missing or its taxonomy is malformed.
    """
    taxonomy, warning = load_taxonomy(params_path)
    checker = _ItemsChecker(str(path), Path(root) if root is not None else default_root(path),
                            taxonomy, metric_names())
    with open_binary(path) as handle:
        for number, raw in enumerate(handle, start=1):
            checker.check_line(number, raw)
    problems = checker.finish()
    return ValidationReport(str(path), checker.rows, problems, [warning] if warning else [])


class _ItemsChecker:
    """Per-file state: ids seen, variant references, and per-image verdicts (decoded once)."""

    def __init__(self, path: str, root: Path, taxonomy: dict[str, str] | None,
                 metrics: set[str] | None) -> None:
        self.path, self.root, self.taxonomy, self.metrics = path, root, taxonomy, metrics
        self.rows = 0
        self.problems: list[Problem] = []
        self.first_line: dict[str, int] = {}
        self.variant_refs: list[tuple[int, str | None, str]] = []
        self.resolved: dict[str, tuple[Path | None, str | None]] = {}
        self.decoded: dict[Path, str | None] = {}

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
        if ident is not None:
            first = self.first_line.setdefault(ident, line)
            if first != line:
                self.add(line, ident, "id", f"duplicate id (first on line {first})")
        self._check_fields(line, ident, text, row)
        self._check_references(line, ident, row)
        self._check_images(line, ident, row.get("image"))

    def _check_fields(self, line: int, ident: str | None, text: str,
                      row: dict[str, Any]) -> None:
        try:
            # Strict JSON mode: "0.5" is not a number and 1700000000 is not a date-time.
            Item.model_validate_json(text, strict=True)
            errors: list[dict[str, Any]] = []
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
        if isinstance(row.get("variant_of"), str):
            self.variant_refs.append((line, ident, row["variant_of"]))

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
                full = resolve_image(self.root, rel)
                self.resolved[rel] = (full, None if full.is_file()
                                      else f"image file '{rel}' not found")
            except (ValueError, OSError, RuntimeError) as exc:
                self.resolved[rel] = (None, str(exc))
        full, reason = self.resolved[rel]
        if reason or full is None:
            return reason
        if full not in self.decoded:
            try:
                open_image(full)
                self.decoded[full] = None
            except ValueError as exc:
                self.decoded[full] = str(exc)
        return self.decoded[full]

    def finish(self) -> list[Problem]:
        """Run the whole-file checks and return every problem, ordered by line."""
        for line, ident, target in self.variant_refs:
            if target not in self.first_line:
                self.add(line, ident, "variant_of",
                         f"names id '{target}', which is not in this file")
        if self.rows == 0:
            self.add(None, None, None, "no items: the file is empty")
        return sorted(self.problems, key=lambda p: p.line or 0)


# --- pydantic errors -> short human reasons -------------------------------------------------

_EXPECTED = {
    "string_type": "a string", "int_type": "an integer", "float_type": "a number",
    "bool_type": "true or false", "list_type": "a list", "dict_type": "an object",
    "model_type": "an object", "model_attributes_type": "an object", "none_required": "null",
    "datetime_type": "an ISO-8601 date-time string", "int_from_float": "an integer",
}
_TYPE_NAMES = {bool: "bool", int: "int", float: "float", str: "string", NoneType: "null",
               list: "list", dict: "object"}


def explain_errors(errors: list[dict[str, Any]],
                   model: type[BaseModel] = Item) -> list[tuple[str, str]]:
    """Turn pydantic errors for `model` into (field, short reason) pairs, one per problem.

    Model-level errors (empty `loc`) are left out: the caller handles cross-field rules.
    Errors from the branches of a union field collapse into one "expected X or Y" reason.
    """
    out: list[tuple[str, str]] = []
    by_union: dict[str, list[dict[str, Any]]] = {}
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


def _reason(err: dict[str, Any]) -> str:
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


def _one_line(text: str) -> str:
    """Escape control characters so one problem always prints as one line."""
    return text if text.isprintable() else text.encode("unicode_escape").decode("ascii")


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _did_you_mean(name: str, known: Any) -> str:
    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""
