"""Reading and writing the kit's files: JSON Lines, JSON, text and images.

Every writer is atomic (temp file in the same folder + os.replace), so a reader never sees
a half-written file and a killed process leaves the previous version in place.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Iterable, Iterator

from bench_kit import faultpoints
from bench_kit.errors import InputError

if TYPE_CHECKING:  # Pillow is imported lazily at run time
    from PIL import Image as PILImage

# Pillow's decompression-bomb guard: refuse images above this many pixels.
MAX_IMAGE_PIXELS = 64_000_000


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key '{key}'")
        out[key] = value
    return out


def parse_json_line(text: str) -> Any:
    """Parse one JSON value strictly: no NaN/Infinity, no duplicate keys."""
    return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_no_duplicate_keys)


def open_binary(path: str | Path) -> BinaryIO:
    """Open a data file for reading bytes; a missing or unreadable file is an InputError."""
    try:
        return Path(path).open("rb")
    except FileNotFoundError as exc:
        raise InputError("file not found", path=str(path)) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", path=str(path)) from exc


def iter_jsonl(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield (line_number, object) for each non-blank line; raise InputError on a bad line."""
    with open_binary(path) as handle:
        yield from parse_jsonl(handle, path)


def parse_jsonl(lines: Iterable[bytes], path: str | Path, first: int = 1
                ) -> Iterator[tuple[int, Any]]:
    """Yield (line_number, object) for each non-blank line of an open binary file (or any
    iterable of byte lines, the first of which is line `first`); `path` names it in the
    InputError raised for a bad line."""
    for number, raw in enumerate(lines, start=first):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"invalid UTF-8 at byte {exc.start}", path=str(path),
                             line=number) from exc
        if not text.strip():
            continue
        try:
            value = parse_json_line(text)
        except ValueError as exc:
            raise InputError(f"malformed JSON: {_short(exc)}", path=str(path),
                             line=number) from exc
        except RecursionError as exc:
            raise InputError("malformed JSON: nested too deep", path=str(path),
                             line=number) from exc
        yield number, value


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    """Read a JSON Lines file of objects; raise InputError naming the line of a bad row."""
    rows = []
    for number, obj in iter_jsonl(path):
        if not isinstance(obj, dict):
            raise InputError(f"expected a JSON object, got {type(obj).__name__}",
                             path=str(path), line=number)
        rows.append(obj)
    return rows


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) < 160 else text[:157] + "..."


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temp path next to `path`; on success it replaces `path` atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    os.chmod(tmp_path, 0o666 & ~_UMASK)  # mkstemp makes 0600; give the usual file mode
    try:
        yield tmp_path
        with open(tmp_path, "rb") as fh:
            os.fsync(fh.fileno())
        faultpoints.hit("io.rename")  # crash tests kill here: the .tmp is complete
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def _read_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()  # read once: os.umask is process-wide


def write_text(path: str | Path, text: str) -> None:
    """Write UTF-8 text atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_bytes(path: str | Path, data: bytes) -> None:
    """Write bytes atomically."""
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def dumps(obj: Any) -> str:
    """Compact, key-order-preserving, non-ASCII-friendly JSON for one JSONL row."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False,
                      default=_default)


def _default(obj: Any) -> Any:
    if hasattr(obj, "isoformat"):
        return obj.isoformat().replace("+00:00", "Z")
    if hasattr(obj, "model_dump"):
        return obj.model_dump(mode="json")
    raise TypeError(f"cannot serialise {type(obj).__name__}")


def write_jsonl(path: str | Path, rows: Iterable[Any]) -> int:
    """Write rows (dicts or pydantic models) as JSON Lines atomically; return the row count."""
    count = 0
    with atomic_path(path) as tmp, tmp.open("w", encoding="utf-8") as fh:
        for row in rows:
            if hasattr(row, "model_dump"):
                row = row.model_dump(mode="json", exclude_none=False)
            fh.write(dumps(row) + "\n")
            count += 1
    return count


def write_json(path: str | Path, obj: Any) -> None:
    """Write pretty JSON (sorted keys, for stable diffs) atomically."""
    write_text(path, json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False,
                                allow_nan=False, default=_default) + "\n")


def read_json(path: str | Path) -> Any:
    """Read a JSON file, raising InputError with the file name on failure."""
    try:
        return parse_json_line(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InputError("file not found", path=str(path)) from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"malformed JSON: {_short(exc)}", path=str(path)) from exc
    except RecursionError as exc:
        raise InputError("malformed JSON: nested too deep", path=str(path)) from exc


def file_sha256(path: str | Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def resolve_image(root: str | Path, rel: str) -> Path:
    """Resolve an item's image path against the benchmark root, refusing escapes.

    Raises ValueError (callers wrap it with file/line/field) for absolute paths, `..`
    segments, and symlinks that resolve outside the root.
    """
    if not isinstance(rel, str) or not rel:
        raise ValueError("image path must be a non-empty string")
    if rel.startswith(("/", "\\")) or (len(rel) > 1 and rel[1] == ":"):
        raise ValueError(f"image path '{rel}' is absolute; use a path inside the benchmark folder")
    if ".." in Path(rel).parts or "\\" in rel:
        raise ValueError(f"image path '{rel}' escapes the benchmark folder")
    root_resolved = Path(root).resolve()
    full = (root_resolved / rel)
    real = full.resolve()
    if root_resolved != real and root_resolved not in real.parents:
        raise ValueError(f"image path '{rel}' resolves outside the benchmark folder")
    return full


def open_header(source: str | Path | BinaryIO, name: str) -> PILImage.Image:
    """Open an image lazily (its header read, no pixels decoded) with the pixel limit
    enforced; the caller closes it.

    Raises ValueError with a short reason for an unreadable or oversized image (a
    decompression bomb is refused from its header, before any pixel is decoded).
    """
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    try:
        with warnings.catch_warnings():
            # Pillow only warns between 1x and 2x its limit; the limit is enforced below.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            img = Image.open(source)
    except Image.DecompressionBombError as exc:
        raise ValueError(f"image '{name}' exceeds {MAX_IMAGE_PIXELS} pixels") from exc
    except Exception as exc:  # Pillow raises many types for corrupt data
        raise ValueError(f"image '{name}' cannot be decoded ({type(exc).__name__})") from exc
    if img.width * img.height > MAX_IMAGE_PIXELS:
        img.close()
        raise ValueError(f"image '{name}' exceeds {MAX_IMAGE_PIXELS} pixels")
    return img


def open_image(path: str | Path) -> PILImage.Image:
    """Open and fully decode an image with Pillow's pixel limit enforced; return RGB.

    Raises ValueError with a short reason for missing, corrupt or oversized images.
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"image file '{path}' not found")
    opened = open_header(path, path.name)
    try:
        with opened as img:
            img.load()
            return img.convert("RGB")
    except Exception as exc:  # Pillow raises many types for corrupt data
        raise ValueError(f"image '{path.name}' cannot be decoded ({type(exc).__name__})") from exc
