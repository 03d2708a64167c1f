"""Exporting items: VLMEvalKit TSV (base64 images) and a Hugging Face parquet dataset.

Both formats carry every item field, so importing an export gives back the same items and
the same image bytes (tests/test_import_export.py round-trips them).
"""

from __future__ import annotations

import base64
import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from bench_kit.errors import InputError
from bench_kit.exchange.rows import prepend_hint
from bench_kit.io import atomic_path, resolve_image
from bench_kit.items import default_root, read_items
from bench_kit.registry import Registry
from bench_kit.types import LETTERS, Item

Exporter = Callable[[list[Item], Path, Path], Path]
EXPORTERS: Registry[Exporter] = Registry("export format")

# VLMEvalKit's columns first, then the bench-kit fields it has no column for.
TSV_COLUMNS = ("index", "image", "question", "hint", *LETTERS, "answer", "category",
               "l2-category", "split", "id", "task", "answers", "checks", "metric",
               "tolerance", "capability", "layer", "difficulty", "variant", "variant_of",
               "variant_kind", "group", "created_at", "rubric", "note", "meta")


@dataclass
class ExportSummary:
    """What an export wrote."""

    out_path: Path
    items: int
    images: int


def _b64(root: Path, rel: str, item_id: str) -> str:
    try:
        full = resolve_image(root, rel)
    except ValueError as exc:
        raise InputError(f"(id {item_id}) {exc}", field="image") from exc
    if not full.is_file():
        raise InputError(f"(id {item_id}) image file '{rel}' not found under {root}",
                         field="image")
    return base64.b64encode(full.read_bytes()).decode("ascii")


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def vlmevalkit_answer(item: Item) -> str:
    """The `answer` cell: the gold letter, or for a multi-answer mc item its letters joined
    by commas in option order ("A,C"), the form our importer and the VLMEvalKit reading in
    tests/exchange/test_real_fixtures.py split back into several golds."""
    if not item.answers:
        return ""
    if item.task == "mc" and len(item.answers) > 1:
        return ",".join(sorted(item.answers))
    return item.answers[0]


def tsv_row(item: Item, root: Path, seen: dict[str, str] | None = None) -> dict[str, str]:
    """One item as a VLMEvalKit TSV row (images base64-embedded).

    `seen` maps base64 images already written to their row's index: as in VLMEvalKit's own
    files, a repeated single image is written as that index (read back by both tools).
    """
    data = item.model_dump(mode="json")
    meta = {**data["meta"], **(item.model_extra or {})}
    hint = meta.get("hint") if isinstance(meta.get("hint"), str) else None
    images = [_b64(root, rel, item.id) for rel in item.images]
    if isinstance(item.image, str):
        image_cell = images[0]
        if seen is not None:
            image_cell = seen.get(image_cell, image_cell)
            if image_cell == images[0] and len(item.id) <= 64:
                seen[images[0]] = item.id
    else:
        image_cell = _cell(images or None)
    row = {
        "index": item.id,
        "image": image_cell,
        "question": item.question,
        # a hint already prepended to the question (import --hint prepend) is not written
        # again: VLMEvalKit would put it before the question a second time
        "hint": "" if hint and prepend_hint(item.question, hint) == item.question
        else _cell(meta.get("hint")),
        "answer": vlmevalkit_answer(item),
        "category": _cell(meta.get("category", item.capability)),
        "l2-category": _cell(meta.get("l2-category", item.layer)),
        "split": _cell(meta.get("split")),
        "answers": _cell(data["answers"]), "checks": _cell(data["checks"]), "meta": _cell(meta),
    }
    row.update({letter: (item.choices or {}).get(letter, "") for letter in LETTERS})
    for name in ("id", "task", "metric", "tolerance", "capability", "layer", "difficulty",
                 "variant", "variant_of", "variant_kind", "group", "created_at", "rubric",
                 "note"):
        row[name] = _cell(data[name])
    return row


@EXPORTERS.register("vlmevalkit")
def export_vlmevalkit(items: list[Item], root: Path, out: Path) -> Path:
    """Write a VLMEvalKit TSV (`out` is the .tsv file)."""
    with atomic_path(out) as tmp, tmp.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=TSV_COLUMNS, delimiter="\t",
                                lineterminator="\n")
        writer.writeheader()
        seen: dict[str, str] = {}
        for item in items:
            writer.writerow(tsv_row(item, root, seen))
    return out


@EXPORTERS.register("hf")
def export_hf_dataset(items: list[Item], root: Path, out: Path) -> Path:
    """Write a HF parquet dataset folder (`out/data/test-00000-of-00001.parquet`)."""
    from bench_kit.exchange.hfdata import export_hf

    return export_hf(items, root, out)


def export_items(fmt: str, items_path: str | Path, out: str | Path,
                 root: str | Path | None = None) -> ExportSummary:
    """Export an items file in format `fmt`; image paths resolve against `root`.

    Raises:
        InputError: a bad items row or a missing image (nothing is written).
        UnknownNameError: an unknown format.
    """
    exporter = EXPORTERS.get(fmt)
    items = read_items(items_path)
    root_path = Path(root) if root is not None else default_root(items_path)
    try:
        path = exporter(items, root_path, Path(out))
    except InputError as exc:
        if exc.path is None:
            raise InputError(exc.reason, path=str(items_path), field=exc.field) from exc
        raise
    return ExportSummary(path, len(items), sum(len(i.images) for i in items))
