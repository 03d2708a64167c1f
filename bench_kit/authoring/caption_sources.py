"""Captioned images as they come: COCO captions JSON, the Flickr8k token file, JSONL, CSV.

Each reader yields `(where, CaptionRow)` or `(where, CaptionProblem)`; a row whose caption
is missing or whose image cannot be found is a problem (listed, or written to the rejects
file with `--on-error skip`), never a crash. Image file names are looked up next to the
captions file, or under `image_root` (by their trailing path parts).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from bench_kit.errors import InputError

CAPTION_KEYS = ("caption", "text", "description", "sentence")
IMAGE_KEYS = ("image", "image_path", "file_name", "filename", "path")


@dataclass(frozen=True)
class CaptionRow:
    """One captioned image: its key, image path (relative to the output folder), caption."""

    key: str
    image: str
    caption: str


@dataclass(frozen=True)
class CaptionProblem:
    """A caption row that cannot be used, and why."""

    field: str
    reason: str
    row: dict[str, Any]


def safe_key(text: str) -> str:
    """An id-safe version of `text` (ASCII letters, digits, _ . -)."""
    out = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_.-") else "_" for ch in text)
    return out.strip("._-")[:80] or "row"


class ImagePlacer:
    """Image paths relative to the output folder; images outside it are copied in once."""

    def __init__(self, out_dir: Path, image_root: Path | None) -> None:
        from bench_kit.exchange.imagefiles import ImageStore

        self.out_dir, self.image_root = out_dir, image_root
        self.store = ImageStore()

    def place(self, source_dir: Path, image: str) -> str:
        """The image's path relative to the output folder (ValueError when not found)."""
        from bench_kit.exchange.imagefiles import locate_image

        path = locate_image(source_dir, image, self.image_root).resolve()
        rel = os.path.relpath(path, self.out_dir.resolve())
        if not rel.startswith(".."):
            return Path(rel).as_posix()
        return self.store.add_file(path)

    def write(self) -> int:
        """Write the copied images under the output folder."""
        return self.store.write(self.out_dir)


def _pick(row: dict[str, Any], names: tuple[str, ...]) -> Any:
    return next((row[n] for n in names if row.get(n) not in (None, "")), None)


def _row(where: str, row: dict[str, Any], source_dir: Path, placer: ImagePlacer,
         key: str | None = None) -> tuple[str, CaptionRow | CaptionProblem]:
    caption, image = _pick(row, CAPTION_KEYS), _pick(row, IMAGE_KEYS)
    if not isinstance(caption, str) or not caption.strip():
        return where, CaptionProblem("caption", f"no caption (one of {', '.join(CAPTION_KEYS)})",
                                     row)
    if not isinstance(image, str):
        return where, CaptionProblem("image", f"no image path (one of {', '.join(IMAGE_KEYS)})",
                                     row)
    try:
        rel = placer.place(source_dir, image)
    except ValueError as exc:
        return where, CaptionProblem("image", str(exc), row)
    return where, CaptionRow(safe_key(key or str(row.get("id") or Path(image).stem)), rel,
                             caption.strip())


def coco_rows(path: Path, data: dict[str, Any], placer: ImagePlacer
              ) -> Iterator[tuple[str, CaptionRow | CaptionProblem]]:
    """COCO captions JSON: `annotations` [{image_id, caption}] + `images` [{id, file_name}]."""
    images = {img.get("id"): img.get("file_name") for img in data.get("images", [])
              if isinstance(img, dict)}
    for n, ann in enumerate(data.get("annotations", [])):
        where = f"{path}: annotations[{n}]"
        if not isinstance(ann, dict):
            yield where, CaptionProblem("annotation", "expected an object", {})
            continue
        file_name = images.get(ann.get("image_id"))
        if file_name is None:
            yield where, CaptionProblem("image_id", f"image_id {ann.get('image_id')!r} is not in "
                                                    "images", ann)
            continue
        row = {"image": file_name, "caption": ann.get("caption"), "id": ann.get("id")}
        yield _row(where, row, path.parent, placer,
                   key=f"{Path(file_name).stem}.{ann.get('id', n)}")


# `NAME.jpg#N` then a tab (or, on a few lines of real files, a space) then the caption
_TOKEN_LINE = re.compile(r"^\s*([^\s#]+)#(\d+)[\t ]+(.*?)\s*$")
_SHAPE_LINES = 200


def is_token_file(text: str) -> bool:
    """Most of the first non-blank lines (up to 200) are `NAME#N<whitespace>caption`: the
    shape is decided on many lines, never on the first alone."""
    lines = [line for line in text.splitlines()[:_SHAPE_LINES * 2] if line.strip()]
    lines = lines[:_SHAPE_LINES]
    return bool(lines) and sum(bool(_TOKEN_LINE.match(line)) for line in lines) * 2 > len(lines)


def flickr_rows(path: Path, text: str, placer: ImagePlacer
                ) -> Iterator[tuple[str, CaptionRow | CaptionProblem]]:
    """The Flickr8k/30k token file: `NAME.jpg#N<TAB>caption` per line."""
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{path}:{line}"
        match = _TOKEN_LINE.match(raw)
        if not match:
            yield where, CaptionProblem("line", "expected NAME.jpg#N<TAB>caption", {"line": raw})
            continue
        image, number, caption = match.groups()
        row = {"image": image.strip(), "caption": caption}
        yield _row(where, row, path.parent, placer, key=f"{Path(image).stem}.{number or line}")


def read_caption_rows(path: Path, placer: ImagePlacer
                      ) -> Iterator[tuple[str, CaptionRow | CaptionProblem]]:
    """Rows of a caption file, by its shape: COCO JSON, Flickr token file, JSONL or CSV."""
    from bench_kit.exchange.rows import BadRow
    from bench_kit.exchange.tabular import iter_table, read_utf8

    text = read_utf8(path)
    stripped = text.lstrip()
    if stripped.startswith("{") and path.suffix.lower() == ".json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InputError(f"invalid JSON ({exc.msg})", path=str(path)) from exc
        if isinstance(data, dict) and "annotations" in data:
            yield from coco_rows(path, data, placer)
            return
        raise InputError("a JSON captions file needs COCO's 'annotations' and 'images'",
                         path=str(path))
    if is_token_file(stripped):
        yield from flickr_rows(path, text, placer)
        return
    if path.suffix.lower() == ".csv":
        for line, row in iter_table(path, ",", 1 << 20):
            if isinstance(row, BadRow):
                yield f"{path}:{line}", CaptionProblem(row.field, row.reason, row.row)
            else:
                yield _row(f"{path}:{line}", row, path.parent, placer)
        return
    from bench_kit.io import iter_jsonl

    for line, row in iter_jsonl(path):
        if not isinstance(row, dict):
            yield f"{path}:{line}", CaptionProblem("row", "expected a JSON object", {})
        else:
            yield _row(f"{path}:{line}", row, path.parent, placer)
