"""Which images of a chat row belong to its question.

A chat marks where images go: `<image>` tags and `{type: image}` parts, in order across
all turns. A part may carry its own image (`image`, `url`, `path`); every other
placeholder takes the row's next image from its image column(s) (`images`, `image`, …,
parquet `{bytes, path}` structs), in order, as LLaMA-Factory and TRL pair them. The
first user turn's images are the item's; those of later turns belong to later questions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench_kit.errors import param
from bench_kit.exchange.cells import blank, maybe_json, without_bytes
from bench_kit.exchange.imagefiles import is_image_value
from bench_kit.exchange.rows import COLUMN_ALIASES


@dataclass
class PlacedImages:
    """A chat row's images placed: the question's and the later turns', in order, and the
    source columns they came from."""

    question: list[Any]
    later: list[Any]
    columns: list[str]
    as_list: bool


def image_columns(row: dict[str, Any], column_map: dict[str, str]) -> list[str]:
    """The row's image columns: `--map image=…`, else every column of image structs (a
    parquet's), else the first known image name with a value."""
    if "image" in column_map:
        return [column_map["image"]] if not blank(row.get(column_map["image"])) else []
    structs = [k for k, v in row.items() if not k.startswith("_") and is_image_value(v)]
    if structs:
        return structs
    return [a for a in COLUMN_ALIASES["image"] if not blank(row.get(a))][:1]


def _column_images(row: dict[str, Any], columns: list[str]) -> tuple[list[Any], bool]:
    """The images in `columns`, flattened in order (null list entries left out), and
    whether any column held a list."""
    images: list[Any] = []
    as_list = False
    for column in columns:
        value = maybe_json(row[column], column)
        as_list = as_list or isinstance(value, list)
        images.extend(v for v in (value if isinstance(value, list) else [value])
                      if v is not None)
    return images, as_list


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def place_images(row: dict[str, Any], question: list[Any], later: list[Any],
                 column_map: dict[str, str]) -> PlacedImages | None:
    """The row's images placed on the chat's placeholders (`question`: the first user
    turn's, `later`: the reply's and later turns', each the image its part carries or None).

    None when the chat has no placeholder at all: the row's images, as the source gives
    them, are then all the question's. Raises ValueError naming the counts when the
    placeholders that take the row's images are not as many as those images.
    """
    if not question and not later:
        return None
    columns = image_columns(row, column_map)
    images, as_list = _column_images(row, columns)
    wanted = [k for k, v in enumerate(question + later) if v is None]
    if len(wanted) != len(images):
        first = sum(v is None for v in question)
        where = f"in '{', '.join(columns)}'" if columns else \
            f"(no image column: {param('column_map', 'image=COLUMN')} names one)"
        carried = sum(v is not None for v in question + later)
        raise ValueError(
            f"the chat has {_count(len(wanted), 'image placeholder')} for the row's images "
            f"({first} in the first user turn"
            + (f"; {carried} more carry their own image" if carried else "")
            + f") but the row has {_count(len(images), 'image')} {where}")
    placed = list(question + later)
    for k, image in zip(wanted, images):
        placed[k] = image
    return PlacedImages(placed[:len(question)], placed[len(question):], columns,
                        as_list or len(question) > 1)


def described(image: Any) -> Any:
    """An image of a later turn as metadata keeps it: a path as written; a struct as its
    path and `<N bytes, sha256 …>` (JSON cannot hold the bytes, and the text must not read
    as an image struct again)."""
    if not isinstance(image, dict):
        return without_bytes(image)
    kept = without_bytes(image)
    return " ".join(str(v) for v in (kept.get("path"), kept.get("bytes")) if v) or kept
