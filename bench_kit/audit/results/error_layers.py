"""Reviewer-assigned error layers of failed items, and their distribution (as in the MMMU
error analysis), always with the denominator stated: share of failures vs share of items."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Sequence

from bench_kit.audit.results.inputs import ScoreTable, read_csv_rows, share
from bench_kit.errors import InputError
from bench_kit.io import read_jsonl, write_jsonl

ERROR_LAYERS = ("input", "perception", "knowledge", "reasoning", "extraction", "annotation",
                "unclassified")
COLUMNS = ("id", "model", "error_layer")


def read_error_layer_csv(path: str | Path, known_ids: Sequence[str] | None = None) -> list[dict]:
    """Read a reviewer CSV with columns id, model, error_layer (and optionally note).

    Raises:
        InputError: naming the line and field of a missing column, an unknown layer, an id
            not among the items, or a second row for the same (id, model).
    """
    rows: dict[tuple[str, str], dict] = {}
    known = set(known_ids) if known_ids is not None else None
    for line, raw in read_csv_rows(path, COLUMNS, f"; expected {list(COLUMNS)} (+ note)"):
        row = {k: raw.get(k, "") for k in (*COLUMNS, "note")}
        if not any(row.values()):
            continue
        layer = row["error_layer"].lower()
        if layer not in ERROR_LAYERS:
            raise InputError(f"unknown error layer {row['error_layer']!r} "
                             f"(known: {', '.join(ERROR_LAYERS)})",
                             path=str(path), line=line, field="error_layer")
        for field in ("id", "model"):
            if not row[field]:
                raise InputError("must not be empty", path=str(path), line=line, field=field)
        if known is not None and row["id"] not in known:
            raise InputError(f"id '{row['id']}' is not among the items", path=str(path),
                             line=line, field="id")
        key = (row["id"], row["model"])
        if key in rows:
            raise InputError(f"second row for id '{key[0]}' and model '{key[1]}'",
                             path=str(path), line=line, field="id")
        rows[key] = {"id": row["id"], "model": row["model"], "error_layer": layer,
                     "note": row["note"] or None}
    return [rows[key] for key in sorted(rows)]


def import_error_layers(csv_path: str | Path, out_path: str | Path, *,
                        known_ids: Sequence[str] | None = None) -> int:
    """Convert a reviewer CSV into the error-layers JSONL (sorted by id, model); return rows."""
    return write_jsonl(out_path, read_error_layer_csv(csv_path, known_ids))


def read_error_layers(path: str | Path) -> list[dict]:
    """Read an error-layers JSONL written by `import_error_layers`."""
    rows = read_jsonl(path)
    for line, row in enumerate(rows, start=1):
        if row.get("error_layer") not in ERROR_LAYERS or not row.get("id") or not row.get("model"):
            raise InputError("expected id, model and a known error_layer", path=str(path),
                             line=line)
    return rows


def error_layer_distribution(table: ScoreTable, labels: Sequence[dict],
                             mode: str = "image") -> dict:
    """Per model: layer counts with share_of_failures (denominator: the model's failed
    items in `mode`) and share_of_items (denominator: every scored item); failures without
    a label and labels on items the model got right are counted, not hidden."""
    out: dict[str, dict] = {}
    for model in sorted({row["model"] for row in labels}):
        run = table.run(model, mode)
        failed = {item_id for item_id, score in run.items() if not score.hit}
        mine = [row for row in labels if row["model"] == model]
        counts = Counter(row["error_layer"] for row in mine if row["id"] in failed)
        labelled = sum(counts.values())
        out[model] = {
            "mode": mode, "items": len(run), "failures": len(failed), "labelled": labelled,
            "unlabelled_failures": len(failed) - labelled,
            "labels_on_hits": sum(1 for row in mine if row["id"] in run and row["id"] not in failed),
            "labels_on_unscored": sum(1 for row in mine if row["id"] not in run),
            "layers": {layer: {"count": counts[layer],
                               "share_of_failures": share(counts[layer], len(failed)),
                               "share_of_labelled": share(counts[layer], labelled),
                               "share_of_items": share(counts[layer], len(run))}
                       for layer in ERROR_LAYERS},
        }
    return out
