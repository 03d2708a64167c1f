"""Exclusion lists: id lists that keep items out of the splits (the audit quarantine,
rejected review batches). `bench-kit split` reads every file in `split.exclude_files`.

A list is a text file with one id per line, optionally followed by whitespace and a reason
(tab-separated parts are joined with "; "; lines starting with `#` are comments; the
comment `# format_version: N` gives the version), or a JSONL file of {"id", "reason"}
rows (each may carry `format_version`). A missing file is reported, not an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from bench_kit.artifacts.rows import iter_objects
from bench_kit.artifacts.versions import CURRENT, KEY, check_version
from bench_kit.errors import InputError
from bench_kit.io import write_text

KIND = "exclusions"
_VERSION_LINE = re.compile(rf"#\s*{KEY}\s*:\s*(\S+)\s*$")


def version_line() -> str:
    """The comment line that stamps a text exclusion list with the current version."""
    return f"# {KEY}: {CURRENT[KIND]}\n"


@dataclass
class ExclusionList:
    """One exclude file: whether it exists and the ids (with reasons) it lists."""

    path: str
    found: bool
    reasons: dict[str, str] = field(default_factory=dict)


def write_exclusion_list(path: str | Path, lines: Iterable[str], header: str = "") -> None:
    """Write a text exclusion list: the version line, `header` comments, one entry a line."""
    write_text(path, version_line() + header + "".join(line + "\n" for line in lines))


def ensure_exclusion_list(path: str | Path) -> bool:
    """Create an empty (version-stamped) list when `path` is missing, so a DVC stage can
    depend on it; return whether it was created."""
    path = Path(path)
    if path.exists():
        return False
    write_text(path, version_line() if path.suffix != ".jsonl" else "")
    return True


def _text_version(raw: str, path: Path, line: int) -> None:
    match = _VERSION_LINE.match(raw.strip())
    if match:
        text = match.group(1)
        value = int(text) if text.isdigit() else text
        check_version(value, KIND, path, line)


def read_exclusions(path: str | Path) -> ExclusionList:
    """Read one exclude file (text or JSONL); a missing file gives `found=False`.

    Raises:
        InputError: a bad row, a non-UTF-8 file, or a `format_version` newer than this
            bench-kit reads.
    """
    path = Path(path)
    if not path.is_file():
        return ExclusionList(str(path), False)
    reasons: dict[str, str] = {}
    if path.suffix == ".jsonl":
        for line, row in iter_objects(path, kind=KIND):
            if not isinstance(row.get("id"), str):
                raise InputError("expected an object with a string id", path=str(path),
                                 line=line, field="id")
            reasons.setdefault(row["id"], str(row.get("reason") or "listed"))
        return ExclusionList(str(path), True, reasons)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError("not UTF-8 text", path=str(path)) from exc
    for number, raw in enumerate(text.splitlines(), start=1):
        entry = raw.strip()
        if entry.startswith("#"):
            _text_version(entry, path, number)
        elif entry:
            ident, *rest = entry.split(None, 1)
            # `bench-kit audit quarantine` writes id<TAB>check<TAB>reason
            reason = "; ".join(p.strip() for p in rest[0].split("\t")) if rest else "listed"
            # one line per finding: an id listed twice keeps both reasons
            reasons[ident] = f"{reasons[ident]} | {reason}" if ident in reasons else reason
    return ExclusionList(str(path), True, reasons)
