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
from typing import Any

from bench_kit.errors import param
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
    except Image.DecompressionBombError as exc:
        raise ValueError(f"image exceeds {MAX_IMAGE_PIXELS} pixels") from exc
    except Exception as exc:  # Pillow raises many types for corrupt data
        raise ValueError(f"image cannot be decoded ({type(exc).__name__})") from exc
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
    except (binascii.Error, ValueError) as exc:
        raise ValueError("image is not valid base64") from exc


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

    def write(self, root: str | Path, only: set[str] | None = None) -> int:
        """Write the images (those in `only`, if given) under `root`, skipping identical
        files; return how many."""
        root = Path(root)
        files = {k: v for k, v in self.files.items() if only is None or k in only}
        for rel, data in sorted(files.items()):
            target = root / rel
            if not (target.is_file() and target.read_bytes() == data):
                write_bytes(target, data)
        return len(files)


def _stored_parts(stored: str) -> tuple[str, ...]:
    from pathlib import PurePosixPath, PureWindowsPath

    pure = PureWindowsPath(stored) if "\\" in stored or stored[1:2] == ":" else \
        PurePosixPath(stored)
    return tuple(p for p in pure.parts if p not in ("/", "\\") and not p.endswith((":\\", ":")))


def locate_image(folder: Path, stored: str, image_root: Path | None = None) -> Path:
    """The existing file a stored image path names.

    A relative path is looked up under `folder` (never escaping it); an absolute path is used
    when it exists. A path that does not exist (e.g. an absolute path from another machine,
    as VLMEvalKit's localised TSVs carry) is looked up by its trailing parts under
    `image_root`, longest first: `/data/LMUData/images/MMBench/1.jpg` finds
    `<image_root>/MMBench/1.jpg` or `<image_root>/1.jpg`; a candidate that would resolve
    outside `image_root` (`../../secret.png`, a symlink out of it) is not looked at.

    Raises ValueError naming the path when no file is found.
    """
    from bench_kit.io import resolve_image

    stored = str(stored).strip()
    if not stored:
        raise ValueError("image path is empty")
    parts = _stored_parts(stored)
    absolute = stored.startswith(("/", "\\")) or stored[1:2] == ":"
    if absolute:
        if Path(stored).is_file():
            return Path(stored)
    elif ".." not in parts:
        full = resolve_image(folder, "/".join(parts))
        if full.is_file():
            return full
    if image_root is not None:
        for k in range(len(parts), 0, -1):
            try:  # trailing parts that climb out of the root (`..`) are never looked at
                candidate = resolve_image(image_root, "/".join(parts[-k:]))
            except ValueError:
                continue
            if candidate.is_file():
                return candidate
        raise ValueError(f"image file '{stored}' not found (nor by its trailing parts under "
                         f"{param('image_root', image_root)})")
    if ".." in parts:
        raise ValueError(f"image path '{stored}' escapes the source folder")
    # an absolute path, or a relative one from where the dataset was built (Hugging Face
    # parquets store paths relative to the builder's working folder: `data/images/1.jpg`)
    hint = (f"; give {param('image_root', 'DIR')} to find it by its trailing path parts"
            if absolute or len(parts) > 1 else "")
    raise ValueError(f"image file '{stored}' not found{hint}")


def is_image_value(value: Any) -> bool:
    """An image struct ({bytes, path}, or one of the two), or a list of them (nulls
    allowed, as a parquet list of `Image` structs may hold)."""
    if isinstance(value, dict):
        return bool(value) and set(value) <= {"bytes", "path"}
    return isinstance(value, list) and any(v is not None for v in value) and \
        all(v is None or is_image_value(v) for v in value)


def store_image(value: Any, folder: Path, store: ImageStore,
                image_root: Path | None = None) -> str:
    """Store one image as a source gives it and return its stored path: a `{bytes, path}`
    struct (the bytes, else the path), a file path (found as `locate_image` finds it) or a
    base64 `data:` URL. Raises ValueError saying why it cannot (a web URL is not fetched)."""
    if isinstance(value, dict):
        data = value.get("bytes")
        if data:
            if not isinstance(data, (bytes, bytearray, memoryview)):
                raise ValueError(f"image bytes are a {type(data).__name__}, not bytes")
            return store.add(bytes(data))
        value = value.get("path")
        if not value:
            raise ValueError("image has neither bytes nor a path")
    if isinstance(value, (bytes, bytearray, memoryview)):  # a part's raw image bytes
        return store.add(bytes(value))
    if not isinstance(value, str):
        raise ValueError(f"expected an image path, got a {type(value).__name__}")
    text = value.strip()
    if text[:7].lower() == "file://":  # a local file named as a URL
        from urllib.parse import unquote, urlparse

        text = unquote(urlparse(text).path)
    if text[:5].lower() == "data:":
        header, _, payload = text.partition(",")
        if not header.endswith(";base64"):
            raise ValueError("a data: URL image must be base64")
        return store.add_base64(payload)
    if text.lower().startswith(("http://", "https://")):
        raise ValueError(f"image URL '{text[:80]}' is not fetched (import works offline): "
                         "download the images and give their paths")
    return store.add_file(locate_image(folder, text, image_root))
