"""Image bytes entering a benchmark: checked, named by content hash, written once.

Importers collect every image in an `ImageStore` while they read rows and write the files
only after the last row has passed, so a bad row leaves no partial output.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import warnings
from pathlib import Path

from bench_kit.io import MAX_IMAGE_PIXELS, write_bytes

# Largest image file accepted (decoded bytes); base64 text is refused before decoding.
MAX_IMAGE_BYTES = 32 * 1024 * 1024
IMAGES_DIR = "images"
_EXTENSIONS = {"PNG": "png", "JPEG": "jpg", "GIF": "gif", "WEBP": "webp", "BMP": "bmp",
               "TIFF": "tif"}


def image_extension(data: bytes) -> str:
    """Decode `data` fully under the pixel limit and return its file extension.

    Raises ValueError with a short reason for corrupt, oversized or unsupported images.
    """
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(io.BytesIO(data))
        with img:
            fmt = img.format or ""
            # Pillow only warns between 1x and 2x its limit; refuse before decoding
            if img.width * img.height > MAX_IMAGE_PIXELS:
                raise Image.DecompressionBombError("too many pixels")
            img.load()
    except Image.DecompressionBombError:
        raise ValueError(f"image exceeds {MAX_IMAGE_PIXELS} pixels") from None
    except Exception as exc:  # Pillow raises many types for corrupt data
        raise ValueError(f"image cannot be decoded ({type(exc).__name__})") from None
    if fmt not in _EXTENSIONS:
        raise ValueError(f"unsupported image format '{fmt or 'unknown'}'")
    return _EXTENSIONS[fmt]


def decode_base64(text: str, max_bytes: int = MAX_IMAGE_BYTES) -> bytes:
    """Decode a base64 image field, refusing text that would exceed `max_bytes`."""
    text = text.strip()
    if len(text) > (max_bytes // 3 + 1) * 4:
        raise ValueError(f"base64 image larger than {max_bytes} bytes")
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("image is not valid base64") from None


class ImageStore:
    """Images collected during an import: relative path -> bytes, deduplicated by content."""

    def __init__(self, max_bytes: int = MAX_IMAGE_BYTES) -> None:
        self.max_bytes = max_bytes
        self.files: dict[str, bytes] = {}

    def add(self, data: bytes) -> str:
        """Check `data` and return its path relative to the benchmark root."""
        if len(data) > self.max_bytes:
            raise ValueError(f"image larger than {self.max_bytes} bytes")
        digest = hashlib.sha256(data).hexdigest()[:20]
        for rel in (f"{IMAGES_DIR}/{digest}.{ext}" for ext in _EXTENSIONS.values()):
            if rel in self.files:
                return rel
        rel = f"{IMAGES_DIR}/{digest}.{image_extension(data)}"
        self.files[rel] = data
        return rel

    def add_base64(self, text: str) -> str:
        """Decode a base64 field and add the image."""
        return self.add(decode_base64(text, self.max_bytes))

    def add_file(self, path: Path) -> str:
        """Read an image file (size checked before reading) and add it."""
        if not path.is_file():
            raise ValueError(f"image file '{path}' not found")
        if path.stat().st_size > self.max_bytes:
            raise ValueError(f"image file '{path.name}' larger than {self.max_bytes} bytes")
        return self.add(path.read_bytes())

    def write(self, root: str | Path) -> int:
        """Write every image under `root` (skipping identical files); return how many."""
        root = Path(root)
        for rel, data in sorted(self.files.items()):
            target = root / rel
            if not (target.is_file() and target.read_bytes() == data):
                write_bytes(target, data)
        return len(self.files)
