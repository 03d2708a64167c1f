"""`format_version` of the files that cross a stage (docs/ARTIFACTS.md).

Every writer stamps the version of its kind. A file (or row) without `format_version` was
written before files carried one; it has the version-1 layout and is read as version 1.
A reader refuses a version newer than the one it knows with a one-line message, instead
of misreading it. Bump a kind's entry in CURRENT when its layout changes, and keep reading
the older versions (or refuse them with a message saying what to re-run).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench_kit.errors import InputError
from bench_kit.types import FORMAT_VERSION

KEY = "format_version"
LEGACY = 1

# kind -> the version this bench-kit writes (and the newest it reads).
KINDS = ("predictions", "scores", "metrics", "audit_summary", "item_stats", "exclusions")
CURRENT: dict[str, int] = dict.fromkeys(KINDS, FORMAT_VERSION)


def check_version(value: Any, kind: str, path: str | Path, line: int | None = None) -> int:
    """The format version `value` read from a `kind` file; None (absent) is version 1.

    Raises:
        InputError: the value is not a whole number >= 1, or is newer than this bench-kit
            reads (the message says to upgrade bench-kit).
    """
    if value is None:
        return LEGACY
    newest = CURRENT[kind]
    if isinstance(value, bool) or not isinstance(value, int) or value < LEGACY:
        raise InputError(f"{KEY} must be a whole number >= {LEGACY}, got {value!r}",
                         path=str(path), line=line, field=KEY)
    if value > newest:
        raise InputError(f"{kind} file of {KEY} {value}, newer than this bench-kit reads "
                         f"(up to {newest}); upgrade bench-kit to read it",
                         path=str(path), line=line, field=KEY)
    return value


def stamp(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    """A copy of a JSON object (a row or a whole file) with the current `format_version`."""
    return {**obj, KEY: CURRENT[kind]}
