"""Which source columns an import uses, found on the whole file and said out loud.

The column for each item field comes from `--map`, then the known names; a column with
another name whose values are image files (found next to the source or under
`--image-root`) is the image column. A column that names image files none of which can be
found is an error naming it: an import never drops the images silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_kit.errors import InputError, param
from bench_kit.exchange.imagefiles import locate_image
from bench_kit.exchange.rows import COLUMN_ALIASES, META_FIELDS
from bench_kit.types import LETTERS

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".bmp", ".tif", ".tiff")
# item fields a source column may carry under its own name (not "kept as metadata")
ITEM_COLUMNS = {"task", "metric", "tolerance", "capability", "layer", "difficulty", "variant",
                "variant_of", "variant_kind", "source", "group", "created_at", "rubric",
                "note", "meta", "checks", "checklist", *LETTERS}
_PROBE = 50


def source_columns(rows: list[dict[str, Any]]) -> list[str]:
    """Every column of the rows, in first-seen order."""
    seen: dict[str, None] = {}
    for row in rows:
        for key in row:
            if not str(key).startswith("_"):
                seen.setdefault(str(key).strip(), None)
    return list(seen)


def chosen_columns(columns: list[str], column_map: dict[str, str]) -> dict[str, str]:
    """{item field: source column} as `map_columns` will choose them."""
    chosen = {}
    for name, aliases in COLUMN_ALIASES.items():
        if name in column_map:
            chosen[name] = column_map[name]
            continue
        found = next((a for a in aliases if a in columns), None)
        if found:
            chosen[name] = found
    return chosen


def _image_like(value: Any) -> bool:
    return isinstance(value, str) and value.strip().lower().endswith(IMAGE_SUFFIXES)


def find_image_column(rows: list[dict[str, Any]], columns: list[str], taken: set[str],
                      src: Path, image_root: Path | None) -> str | None:
    """The one unknown column whose values resolve to image files, or None.

    Raises InputError naming the column when its values look like image file names but
    none of them is found.
    """
    for column in columns:
        if column in taken:
            continue
        values = [r[column] for r in rows if _image_like(r.get(column))][:_PROBE]
        if not values:
            continue
        for value in values:
            try:
                locate_image(src.parent, value.strip(), image_root)
                return column
            except ValueError:
                continue
        where = f"under {param('image_root', image_root)}" if image_root else "next to the file"
        raise InputError(f"column '{column}' names image files ('{values[0]}', …) but none "
                         f"was found {where}: give {param('image_root', 'DIR')} where they are, "
                         f"or {param('column_map', f'image={column}')}; importing 0 images "
                         "would drop them",
                         path=str(src), field=column)
    return None


def column_decisions(columns: list[str], chosen: dict[str, str]) -> list[str]:
    """`columns: question<-text, …` and `kept as meta.source: …` lines."""
    used = ", ".join(f"{name}<-{col}" for name, col in chosen.items() if name != col) or ""
    same = ", ".join(name for name, col in chosen.items() if name == col)
    parts = [p for p in (same, used) if p]
    kept = [c for c in columns if c not in chosen.values() and c not in ITEM_COLUMNS]
    lines = [f"columns: {', '.join(parts) or 'none recognised'}"]
    in_meta = [c for c in kept if c in META_FIELDS]
    in_source = [c for c in kept if c not in META_FIELDS]
    if in_meta:
        lines.append(f"kept in meta: {', '.join(in_meta)}")
    if in_source:
        lines.append(f"kept as metadata (meta.source): {', '.join(in_source)}")
    return lines
