"""Cell values of import rows: blank cells, list cells (JSON or Python literals), and the
row-level error every parser raises."""

from __future__ import annotations

import ast
import base64
import binascii
import hashlib
import json
from typing import Any


class RowError(Exception):
    """A row-level problem: which field and why (the caller adds file and line)."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(f"{field_name}: {reason}")
        self.field, self.reason = field_name, reason


def _described(data: bytes) -> str:
    return f"<{len(data)} bytes, sha256 {hashlib.sha256(data).hexdigest()[:20]}>"


def _data_url(text: str) -> str:
    """A `data:` URL as `<N bytes, sha256 …>` of the bytes it holds; one that does not
    decode as written when short (it shows what is wrong), else its text named so."""
    header, _, payload = text.strip().partition(",")
    if header.lower().endswith(";base64"):
        try:
            return _described(base64.b64decode(payload.strip(), validate=True))
        except (binascii.Error, ValueError):
            pass
    return text if len(text) <= 200 else _described(text.encode("utf-8", "replace"))


def without_bytes(value: Any) -> Any:
    """`value` as JSON can store it and a reader can read it: every bytes object inside it
    (an image struct's bytes) and every `data:` URL (`_data_url`) replaced by
    `<N bytes, sha256 …>`, the
    first 20 hex digits naming the file an import stores those bytes as
    (`images/<sha256[:20]>.<ext>`)."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _described(bytes(value))
    if isinstance(value, str) and value.lstrip()[:5].lower() == "data:":
        return _data_url(value)
    if isinstance(value, dict):
        return {k: without_bytes(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [without_bytes(v) for v in value]
    return value


def blank(value: Any) -> bool:
    return value is None or value == [] or (isinstance(value, str) and not value.strip())


def is_nan(value: Any) -> bool:
    """Whether a cell is a float NaN (pandas' empty cell)."""
    return isinstance(value, float) and value != value


def maybe_json(value: Any, name: str) -> Any:
    """Strings that look like a JSON list/object (CSV/TSV cells) are parsed; Python-style
    literals (`"['a', 'b']"`, as VLMEvalKit and MMMU store lists) too."""
    if isinstance(value, str) and value.strip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except ValueError:
            pass
        try:
            parsed = ast.literal_eval(value.strip()) if len(value) < 100_000 else None
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            parsed = None
        if isinstance(parsed, (list, dict)):
            return parsed
        raise RowError(name, "looks like JSON but does not parse")
    return value
