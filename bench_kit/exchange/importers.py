"""Importing existing items (CSV, JSONL, VLMEvalKit TSV, Hugging Face datasets) as `Item`s.

A format reader yields (line, row) pairs of plain values with images already stored in an
`ImageStore`; `row_to_item` turns one row into a validated Item. `import_items` reads every
row first and writes the images and the items file only when all rows passed, so a bad row
leaves no partial output.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from bench_kit.errors import InputError, Problem, ValidationFailed, param
from bench_kit.exchange.cells import RowError, without_bytes
from bench_kit.exchange.expand import expand_pairs
from bench_kit.exchange.imagefiles import ImageStore
from bench_kit.exchange.row_item import row_to_item
from bench_kit.exchange.rows import (
    COLUMN_ALIASES,
    IMPORTERS,
    BadRow,
    ImportOptions,
    ImportSummary,
    NoQuestionColumn,
    Reader,
    no_question_reason,
    source_of,
)
from bench_kit.io import write_jsonl
from bench_kit.types import Item


def _reader(fmt: str) -> Reader:
    # the format modules register their readers when imported
    from bench_kit.exchange import checklists, hfdata, jsonshapes, tabular  # noqa: F401

    return IMPORTERS.get(fmt)


def import_formats() -> list[str]:
    """Every registered import format."""
    _reader("csv")
    return sorted(IMPORTERS.names())


@dataclass
class Reject:
    """A source row that did not become an item, and why."""

    line: int
    field: str
    reason: str
    id: str | None = None
    row: dict[str, Any] = dataclasses.field(default_factory=dict)
    file: str | None = None      # the file within a source folder (per-category files)
    no_question_column: bool = False  # the source has no question column (NoQuestionColumn)

    def problem(self, src: str | Path) -> Problem:
        """This reject as a table problem of `src` (the file within it when known)."""
        where = Path(src) / self.file if self.file else src
        return Problem(self.line, self.id, self.field, self.reason, str(where))

    def message(self, src: str | Path) -> str:
        """`FILE:LINE: id=ID field=FIELD: reason` (one line; no `id=` without an id)."""
        return self.problem(src).format(unknown_id=None)


@dataclass
class ImportResult:
    """Everything read from a source: the good items, their images, the rejected rows."""

    items: list[Item]
    store: ImageStore
    rejects: list[Reject]


class ImportFailed(ValidationFailed):
    """Rows of the source have problems; `problems` holds one line per problem."""

    def __init__(self, problems: list[Problem], path: str | None = None, *,
                 every_row: bool = False) -> None:
        super().__init__(problems, path, unknown_id=None)
        if every_row:  # skipping the bad rows would leave an empty file: an error too
            self.args = (f"{self.args[0]}; every row was rejected, nothing to import",)


def _safe_row(row: dict[str, Any]) -> dict[str, Any]:
    """A rejected row as JSON can store it (bytes named by size and hash, long cells such
    as base64 images shortened)."""
    out = {}
    for key, value in row.items():
        if str(key).startswith("_"):
            continue
        value = without_bytes(value)
        try:
            json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            value = repr(value)[:200]
        if isinstance(value, str) and len(value) > 500:
            value = value[:200] + f"… ({len(value)} characters)"
        out[str(key)] = value
    return out


def read_import(fmt: str, src: str | Path, opts: ImportOptions,
                now: datetime | None = None) -> ImportResult:
    """Read and validate every row of `src`; nothing is written.

    Row problems are collected (never raised); file-level problems raise.

    Raises:
        InputError: an unreadable file, or a source without a question column.
        UnknownNameError: an unknown format.
    """
    from collections import Counter

    from bench_kit.exchange.golds import TASK_RULES, task_lines, type_golds

    reader = _reader(fmt)
    src = Path(src)
    now = now or datetime.now(timezone.utc).replace(microsecond=0)
    store = ImageStore(opts.max_image_bytes)
    items: list[Item] = []
    rejects: list[Reject] = []
    seen: dict[str, int] = {}
    good: list[tuple[int, dict[str, Any]]] = []
    for line, row in reader(src, opts, store):
        if isinstance(row, BadRow):
            rejects.append(Reject(line, row.field, row.reason, _row_id(row.row, opts.column_map),
                                  _safe_row(row.row), row.row.get("_file")))
            continue
        try:
            good.extend((line, one) for one in expand_pairs(row, line, opts.expand))
        except RowError as exc:
            rejects.append(Reject(line, exc.field, exc.reason, _row_id(row),
                                  _safe_row(source_of(row)), row.get("_file")))
    try:
        opts.decisions.extend(type_golds([row for _, row in good], opts.gold_index, opts.task))
    except InputError as exc:
        raise InputError(exc.reason, path=str(src)) from exc
    rules: Counter = Counter()
    for line, one in good:
        rule = one.pop("_rule", None) or ("the source's task column" if one.get("task")
                                          and not opts.task else None)
        try:
            item = row_to_item(dict(one), fmt, opts, now, line)
        except RowError as exc:
            rejects.append(Reject(line, exc.field, exc.reason, _row_id(one),
                                  _safe_row(source_of(one)), one.get("_file"),
                                  isinstance(exc, NoQuestionColumn)))
            continue
        if item.id in seen:
            rejects.append(Reject(line, "id", f"duplicate id '{item.id}' (first at line "
                                              f"{seen[item.id]}; ids unique only with other "
                                              "columns: "
                                              f"{param('column_map', 'id=COL1,COL2')})",
                                  item.id, _safe_row(source_of(one)), one.get("_file")))
            continue
        seen[item.id] = line
        items.append(item)
        rules[(item.task, param("task") if opts.task else rule or TASK_RULES[item.task])] += 1
    opts.decisions.extend(task_lines(rules))
    rejects.sort(key=lambda r: (r.file or "", r.line))  # file by file, then by line
    if rejects and not items and all(r.no_question_column for r in rejects):
        raise InputError(no_question_reason(), path=str(src))
    if not items and not rejects:
        raise InputError("no rows to import", path=str(src))
    return ImportResult(items, store, rejects)


def _row_id(row: dict[str, Any], column_map: dict[str, str] | None = None) -> str | None:
    """The row's id: its `id` field, else (a source row) the column `map_columns` would
    take it from."""
    names = [n for n in ((column_map or {}).get("id"), *COLUMN_ALIASES["id"]) if n]
    value = next((row[n] for n in names if n in row), None)
    return str(value).strip() or None if value not in (None, "") else None


def rejects_path(out_path: str | Path) -> Path:
    """Where rejected rows go: `items.jsonl` -> `items.rejects.jsonl`."""
    out_path = Path(out_path)
    return out_path.with_name(out_path.stem + ".rejects.jsonl")


def write_rejects(path: Path, src: str | Path, rejects: list[Reject]) -> None:
    """Rejected rows, one JSON object each: line, field, reason, the row itself."""
    write_jsonl(path, [{"source": str(Path(src) / r.file if r.file else src), "line": r.line,
                        "id": r.id, "field": r.field, "reason": r.reason, "row": r.row}
                       for r in rejects])


def import_items(fmt: str, src: str | Path, out_path: str | Path,
                 opts: ImportOptions | None = None, on_error: str = "fail") -> ImportSummary:
    """Import `src` in format `fmt` into an items JSONL file; images go to `<out dir>/images/`.

    Every row is read first. With `on_error="fail"` any row problem raises ImportFailed
    listing all of them and nothing is written; with `"skip"` the good rows are written and
    the rejected ones go to `<items>.rejects.jsonl` with their reasons.
    """
    opts = opts or ImportOptions()
    result = read_import(fmt, src, opts)
    problems = [r.problem(src) for r in result.rejects]
    if problems and (on_error != "skip" or not result.items):
        raise ImportFailed(problems, path=str(src),
                           every_row=on_error == "skip" and not result.items)
    items = result.items
    unknown = sorted({i.capability for i in items} - set(opts.taxonomy)) if opts.taxonomy else []
    if unknown:
        counts = ", ".join(f"{c} ({sum(i.capability == c for i in items)} items)"
                           for c in unknown)
        raise InputError(f"capabilities not in the taxonomy of params.yaml: {counts}; add "
                         "them under `taxonomy:` in params.yaml, or map the source's "
                         f"categories with {param('category_map')} / give {param('capability')}",
                         path=str(src))
    out_path = Path(out_path)
    used = {rel for item in items for rel in item.images}
    n_images = result.store.write(out_path.parent, only=used)
    write_jsonl(out_path, items)
    rejected_to = None
    if result.rejects:
        rejected_to = rejects_path(out_path)
        write_rejects(rejected_to, src, result.rejects)
    by_task: dict[str, int] = {}
    for item in items:
        by_task[item.task] = by_task.get(item.task, 0) + 1
    return ImportSummary(out_path, len(items), n_images, dict(sorted(by_task.items())),
                         rejected=len(result.rejects), rejects_path=rejected_to,
                         decisions=list(opts.decisions))


def load_category_map(path: str | Path) -> dict[str, str]:
    """A YAML/JSON mapping {source category: capability} (e.g. MMBench `l2-category`)."""
    from bench_kit.errors import ConfigError
    from bench_kit.params import load_yaml

    data = load_yaml(path) or {}
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        raise ConfigError(f"{path}: expected a mapping of category -> capability name")
    return {str(k): v for k, v in data.items()}


def parse_created_at(text: str) -> datetime:
    """An ISO-8601 timestamp with a timezone (`2026-01-31T00:00:00Z`)."""
    from bench_kit.errors import UsageError

    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise UsageError(f"{param('created_at')} '{text}' is not an ISO-8601 timestamp") from exc
    if value.tzinfo is None:
        raise UsageError(f"{param('created_at')} '{text}' needs a timezone, e.g. "
                         "2026-01-31T00:00:00Z")
    return value


def parse_column_map(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """`--map FIELD=COLUMN` values -> {field: column}."""
    from bench_kit.errors import UsageError
    from bench_kit.exchange.rows import MAPPABLE_FIELDS

    mapping: dict[str, str] = {}
    for pair in pairs:
        name, sep, column = pair.partition("=")
        name, column = name.strip(), column.strip()
        if not sep or not name or not column:
            raise UsageError(f"{param('column_map')} '{pair}': expected FIELD=COLUMN, e.g. "
                             "question=prompt")
        if name not in MAPPABLE_FIELDS:
            raise UsageError(f"{param('column_map')} '{pair}': unknown field '{name}' (one of "
                             f"{', '.join(MAPPABLE_FIELDS)})")
        mapping[name] = column
    return mapping


def run_import(fmt: str, src: str | Path, out_path: str | Path, *,
               params_path: str | Path | None = None, category_map: str | Path | None = None,
               created_at: str | None = None, column_map: list[str] | tuple[str, ...] = (),
               on_error: str = "fail", **options: Any) -> ImportSummary:
    """`bench-kit import`: build the options (taxonomy from params, category map) and import."""
    from bench_kit.validate import load_taxonomy

    taxonomy, _ = load_taxonomy(params_path)
    opts = ImportOptions(
        taxonomy=taxonomy or {},
        category_map=load_category_map(category_map) if category_map else {},
        created_at=parse_created_at(created_at) if created_at else None,
        column_map=parse_column_map(column_map),
        **{k: v for k, v in options.items() if v is not None})
    return import_items(fmt, src, out_path, opts, on_error=on_error)
