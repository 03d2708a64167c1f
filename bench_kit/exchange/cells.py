"""Cell values of import rows: blank cells, list cells (JSON or Python literals), and the
row-level error every parser raises."""

from __future__ import annotations

import ast
import json
from typing import Any


class RowError(Exception):
    """A row-level problem: which field and why (the caller adds file and line)."""

    def __init__(self, field_name: str, reason: str) -> None:
        super().__init__(f"{field_name}: {reason}")
        self.field, self.reason = field_name, reason


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
