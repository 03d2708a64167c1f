"""The images a model is shown: probed once (hash, size, format), loaded only for real calls.

Probing reads the file's bytes and header, not its pixels, so a re-run answered from the
cache never decodes an image. PNG, JPEG, WebP and GIF files are sent as they are (their
pixels were checked by `bench-kit validate`; decoding them again per call would cost more
client CPU than the HTTP request); other formats are decoded and re-encoded as PNG.
`blank_image` mode sends a mid-grey PNG of the same size. A model's `max_side` /
`max_bytes` limits are applied by `bench_kit.models.imageprep` when an image exceeds them.
"""

from __future__ import annotations

import functools
import hashlib
import io
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from bench_kit.io import open_header
from bench_kit.models.adapters.contract import ImageInput
from bench_kit.models.imageprep import ImagePrep, facts, transform

# Part of the cache key: change it when what is sent for a given file changes.
IMAGE_PROTOCOL = "original-or-png/1"
SENT_AS_IS = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp", "GIF": "image/gif"}
BLANK_GREY = (128, 128, 128)


@dataclass(frozen=True)
class ImageInfo:
    """An image to send: its file (None for a blank), content hash, size, MIME type, encoded
    size and the transform planned for it ("" = sent as it is)."""

    path: Path | None
    sha256: str
    width: int
    height: int
    mime: str
    size_bytes: int = 0
    prep: str = ""

    def describe(self) -> dict[str, object]:
        """The facts recorded in a prediction's input protocol (the original image)."""
        described: dict[str, object] = {"sha256": self.sha256, "width": self.width,
                                        "height": self.height, "mime": self.mime,
                                        "blank": self.path is None}
        if self.prep:
            described["prep"] = self.prep
        return described


def plan_prep(info: ImageInfo, prep: ImagePrep | None) -> ImageInfo:
    """`info` with the transform its model's limits ask for (header facts only, no decoding)."""
    if prep is None:
        return info
    return replace(info, prep=prep.spec(info.width, info.height, info.size_bytes))


def probe_image(path: Path) -> ImageInfo:
    """Hash the file and read its header (size, format) without decoding pixels.

    Raises:
        ValueError: missing, unreadable or not an image (callers name the item).
    """
    try:
        data = path.read_bytes()
    except FileNotFoundError as exc:
        raise ValueError(f"image file '{path}' not found") from exc
    except OSError as exc:
        raise ValueError(f"image file '{path}' cannot be read ({exc.strerror})") from exc
    with open_header(io.BytesIO(data), path.name) as img:  # a bomb: refused from its header
        width, height, fmt = img.width, img.height, img.format or ""
    return ImageInfo(path=path, sha256=hashlib.sha256(data).hexdigest(), width=width,
                     height=height, mime=SENT_AS_IS.get(fmt, "image/png"),
                     size_bytes=len(data))


def blank_info(width: int, height: int) -> ImageInfo:
    """A mid-grey image of the given size (its hash is defined by the size alone)."""
    digest = hashlib.sha256(f"blank:{BLANK_GREY}:{width}x{height}".encode()).hexdigest()
    # size_bytes 0: a flat grey PNG is tiny, so only `max_side` ever applies to a blank.
    return ImageInfo(path=None, sha256=digest, width=width, height=height, mime="image/png")


@functools.lru_cache(maxsize=32)
def _blank_png(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), BLANK_GREY).save(buffer, format="PNG")
    return buffer.getvalue()


def prepare_image(info: ImageInfo,
                  prep: ImagePrep | None) -> tuple[ImageInput, dict[str, Any] | None]:
    """The image to send within `prep`'s limits, and (if it was transformed) the record
    `{"transform", "original", "sent"}` of what changed.

    Raises:
        ValueError: the file cannot be decoded, changed since it was probed, or cannot fit.
    """
    if not info.prep or prep is None:
        return load_image(info), None
    if info.path is None:  # a blank is drawn at the target size directly
        width, height = prep.target_size(info.width, info.height)
        data, mime = _blank_png(width, height), "image/png"
    else:
        image = load_image(info)
        data, mime, width, height = transform(image.data, image.mime, prep)
    record = {"transform": info.prep,
              "original": facts(info.width, info.height, info.mime, info.size_bytes),
              "sent": facts(width, height, mime, len(data))}
    sent = ImageInput(data, mime, width, height, hashlib.sha256(data).hexdigest())
    return sent, record


def load_image(info: ImageInfo) -> ImageInput:
    """The bytes to send for `info`: the file itself, or a PNG re-encoding, or a blank.

    Raises:
        ValueError: the file cannot be decoded or changed since it was probed.
    """
    from bench_kit.io import open_image

    if info.path is None:
        return ImageInput(_blank_png(info.width, info.height), info.mime, info.width,
                          info.height, info.sha256)
    if info.mime in SENT_AS_IS.values():
        data = info.path.read_bytes()
        if hashlib.sha256(data).hexdigest() != info.sha256:
            raise ValueError(f"image '{info.path.name}' changed during the run")
    else:
        buffer = io.BytesIO()
        open_image(info.path).save(buffer, format="PNG")
        data = buffer.getvalue()
    return ImageInput(data, info.mime, info.width, info.height, info.sha256)
