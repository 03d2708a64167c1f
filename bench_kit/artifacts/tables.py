"""Typed readers and writers of the versioned files: scores, metrics, audit summaries,
item stats and findings (predictions: `artifacts.predictions`; exclusion lists:
`artifacts.exclusions`). Writers stamp the current `format_version`; readers accept
older versions and refuse newer ones (`artifacts.versions`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Iterator

from pydantic import BaseModel

from bench_kit.artifacts.rows import iter_models, iter_objects
from bench_kit.artifacts.versions import KEY, check_version, stamp
from bench_kit.errors import InputError
from bench_kit.io import read_json, write_json, write_jsonl
from bench_kit.types import Finding, Score


def _dump(row: Any) -> dict[str, Any]:
    if isinstance(row, BaseModel):
        return row.model_dump(mode="json", exclude_none=False)
    return dict(row)


def write_rows(path: str | Path, rows: Iterable[Any], kind: str) -> int:
    """Write rows (dicts or pydantic models) of a versioned kind; return the row count."""
    return write_jsonl(path, (stamp(_dump(row), kind) for row in rows))


def write_object(path: str | Path, obj: dict[str, Any], kind: str) -> None:
    """Write one JSON object of a versioned kind (sorted keys, atomically)."""
    write_json(path, stamp(obj, kind))


def object_of(data: Any, kind: str, path: str | Path) -> dict[str, Any]:
    """A parsed JSON file checked as a `kind` object: its version checked and removed."""
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object ({kind})", path=str(path))
    obj: dict[str, Any] = dict(data)
    check_version(obj.pop(KEY, None), kind, path)
    return obj


def read_object(path: str | Path, kind: str) -> dict[str, Any]:
    """Read one JSON object of a versioned kind (without its `format_version`)."""
    return object_of(read_json(path), kind, path)


# --- scores ------------------------------------------------------------------------------

def write_scores(path: str | Path, scores: Iterable[Score]) -> int:
    """Write one model's scores in one mode (`scores/<bench>/<model>/<mode>.jsonl`)."""
    return write_rows(path, scores, "scores")


def iter_scores(path: str | Path,
                source: Iterable[bytes] | None = None) -> Iterator[tuple[int, Score]]:
    """Yield (line, Score) of a scores file (see `rows.iter_objects` for `source`)."""
    return iter_models(path, Score, kind="scores", source=source)


def read_scores(path: str | Path) -> list[Score]:
    """Read a scores file; a bad row raises InputError naming its line and field."""
    return [score for _, score in iter_scores(path)]


# --- metrics -----------------------------------------------------------------------------

def write_metrics(path: str | Path, metrics: dict[str, Any]) -> None:
    """Write one model's metrics (`metrics/<bench>/<model>.json`)."""
    write_object(path, metrics, "metrics")


def read_metrics(path: str | Path, model: str | None = None) -> dict[str, Any]:
    """Read one model's metrics; with `model`, refuse the metrics of another model."""
    metrics = read_object(path, "metrics")
    if model is not None and metrics.get("model") != model:
        raise InputError(f"expected the metrics of model '{model}' (a JSON object with "
                         f"\"model\": \"{model}\")", path=str(path))
    return metrics


# --- audit summaries, item stats, findings -------------------------------------------------

def write_audit_summary(path: str | Path, summary: dict[str, Any]) -> None:
    """Write an audit's `summary.json` / `model_summary.json`."""
    write_object(path, summary, "audit_summary")


def read_audit_summary(path: str | Path) -> dict[str, Any]:
    """Read an audit summary (data or model audit)."""
    return read_object(path, "audit_summary")


def write_item_stats(path: str | Path, rows: Iterable[dict[str, Any]]) -> int:
    """Write the model audit's per-item rows (`item_stats.jsonl`)."""
    return write_rows(path, rows, "item_stats")


def read_item_stats(path: str | Path) -> list[dict[str, Any]]:
    """Read `item_stats.jsonl`; every row needs a string `id`."""
    rows = []
    for line, row in iter_objects(path, kind="item_stats"):
        if not isinstance(row.get("id"), str):
            raise InputError("item row without a string \"id\"", path=str(path), line=line,
                             field="id")
        rows.append(row)
    return rows


def write_findings(path: str | Path, findings: Iterable[Finding]) -> int:
    """Write audit findings (`findings.jsonl` / `model_findings.jsonl`)."""
    return write_jsonl(path, findings)


def read_findings(path: str | Path) -> list[Finding]:
    """Read audit findings; a bad row raises InputError naming its line and field."""
    return [finding for _, finding in iter_models(path, Finding)]
