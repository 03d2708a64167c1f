"""Downscale and recompress images to a model's limits (`max_side`, `max_bytes`).

Planning reads only the probed header facts (size, bytes, format), so a re-run answered
from the cache never decodes an image; pixels are touched only for a real call whose
image exceeds a limit. The transform is named by a short spec that joins the cache key
(`imageprep/1 side<=1024 bytes<=500000`) and the sent image's facts are recorded in the
prediction's `protocol.image_prep`.

Rules: a side over `max_side` is scaled down (aspect kept, Lanczos) and the image
re-encoded in its own format (PNG for GIF/other); an encoding over `max_bytes` becomes
JPEG at quality 85, 70, 55, 40, then is scaled by 3/4 and tried again. Transparent
pixels are flattened on white before JPEG.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from typing import Any

PREP_VERSION = "imageprep/1"
JPEG_QUALITIES = (85, 70, 55, 40)
MIN_SIDE = 16
_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/webp": "WEBP"}


@dataclass(frozen=True)
class ImagePrep:
    """A model's image limits; None = no limit."""

    max_side: int | None = None
    max_bytes: int | None = None

    def target_size(self, width: int, height: int) -> tuple[int, int]:
        """The size after downscaling to `max_side` (aspect kept, each side at least 1).

        >>> ImagePrep(max_side=100).target_size(400, 200)
        (100, 50)
        """
        longest = max(width, height)
        if not self.max_side or longest <= self.max_side:
            return width, height
        scale = self.max_side / longest
        return max(1, round(width * scale)), max(1, round(height * scale))

    def spec(self, width: int, height: int, size_bytes: int) -> str:
        """The transform an image of this size needs, as a cache-key string; "" = none.

        >>> ImagePrep(max_side=100).spec(400, 200, 5000), ImagePrep(max_side=500).spec(400, 200, 5000)
        ('imageprep/1 side<=100', '')
        """
        too_big = (width, height) != self.target_size(width, height)
        too_heavy = bool(self.max_bytes) and size_bytes > (self.max_bytes or 0)
        if not too_big and not too_heavy:
            return ""
        limits = [f"side<={self.max_side}" if self.max_side else "",
                  f"bytes<={self.max_bytes}" if self.max_bytes else ""]
        return " ".join([PREP_VERSION, *[part for part in limits if part]])


def facts(width: int, height: int, mime: str, size_bytes: int) -> dict[str, Any]:
    """One side of a transform record: pixel size, MIME type and encoded bytes."""
    return {"width": width, "height": height, "mime": mime, "bytes": size_bytes}


def _encode(img: Any, fmt: str, quality: int = 90) -> bytes:
    buffer = io.BytesIO()
    if fmt == "JPEG":
        img.save(buffer, format="JPEG", quality=quality)
    elif fmt == "WEBP":
        img.save(buffer, format="WEBP", quality=quality)
    else:
        img.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()


def _flatten(img: Any) -> Any:
    from PIL import Image

    if img.mode in ("RGBA", "LA") or (img.mode == "P" and "transparency" in img.info):
        rgba = img.convert("RGBA")
        white = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        return Image.alpha_composite(white, rgba).convert("RGB")
    return img.convert("RGB")


def transform(data: bytes, mime: str, prep: ImagePrep) -> tuple[bytes, str, int, int]:
    """Re-encode `data` within `prep`'s limits: (bytes, MIME type, width, height).

    Raises:
        ValueError: the image cannot be decoded, or cannot fit `max_bytes` even at
            MIN_SIDE pixels.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        img: Image.Image = Image.open(io.BytesIO(data))
        img.load()
    except (UnidentifiedImageError, OSError, ValueError) as exc:
        raise ValueError("image cannot be decoded for resizing") from exc
    width, height = prep.target_size(img.width, img.height)
    if (width, height) != img.size:
        if img.mode not in ("RGB", "RGBA", "L", "LA"):
            img = img.convert("RGBA" if "transparency" in img.info else "RGB")
        img = img.resize((width, height), Image.Resampling.LANCZOS)
    fmt = _FORMATS.get(mime, "PNG")
    if fmt == "JPEG" and img.mode not in ("RGB", "L"):
        img = img.convert("RGB")
    out, out_mime = _encode(img, fmt), f"image/{fmt.lower()}"
    if not prep.max_bytes or len(out) <= prep.max_bytes:
        return out, out_mime, width, height
    rgb = _flatten(img)
    while True:
        for quality in JPEG_QUALITIES:
            out = _encode(rgb, "JPEG", quality)
            if len(out) <= prep.max_bytes:
                return out, "image/jpeg", rgb.width, rgb.height
        if max(rgb.size) <= MIN_SIDE:
            raise ValueError(f"image cannot be made smaller than {prep.max_bytes} bytes")
        smaller = (max(1, rgb.width * 3 // 4), max(1, rgb.height * 3 // 4))
        rgb = rgb.resize(smaller, Image.Resampling.LANCZOS)


def sha256(data: bytes) -> str:
    """Hex sha256 of the bytes actually sent."""
    return hashlib.sha256(data).hexdigest()
