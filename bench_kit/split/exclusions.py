"""Id lists that keep items out of the splits: audit quarantine, rejected review batches.

A list is a text file with one id per line, optionally followed by whitespace and a reason
(tab-separated parts are joined with "; "; lines starting with `#` are comments), or a JSONL file of {"id": ..., "reason": ...} rows. A missing file
is not an error: it is reported, because the stage that writes it may not have run yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from bench_kit.errors import InputError
from bench_kit.io import iter_jsonl
from bench_kit.types import Item


@dataclass
class ExclusionList:
    """One exclude file: whether it exists and the ids (with reasons) it lists."""

    path: str
    found: bool
    reasons: dict[str, str] = field(default_factory=dict)


def read_exclusions(path: str | Path) -> ExclusionList:
    """Read one exclude file (text or JSONL); a missing file gives `found=False`."""
    path = Path(path)
    if not path.is_file():
        return ExclusionList(str(path), False)
    reasons: dict[str, str] = {}
    if path.suffix == ".jsonl":
        for line, row in iter_jsonl(path):
            if not isinstance(row, dict) or not isinstance(row.get("id"), str):
                raise InputError("expected an object with a string id", path=str(path),
                                 line=line, field="id")
            reasons.setdefault(row["id"], str(row.get("reason") or "listed"))
        return ExclusionList(str(path), True, reasons)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text", path=str(path)) from None
    for raw in text.splitlines():
        entry = raw.strip()
        if entry and not entry.startswith("#"):
            ident, *rest = entry.split(None, 1)
            # `bench-kit audit quarantine` writes id<TAB>check<TAB>reason
            reason = "; ".join(p.strip() for p in rest[0].split("\t")) if rest else "listed"
            # one line per finding: an id listed twice keeps both reasons
            reasons[ident] = f"{reasons[ident]} | {reason}" if ident in reasons else reason
    return ExclusionList(str(path), True, reasons)


def apply_exclusions(items: list[Item], lists: list[ExclusionList]
                     ) -> tuple[list[Item], list[dict[str, str]]]:
    """Drop listed items and the variants of listed v0 items.

    Returns the kept items (input order) and one {id, file, reason} row per dropped item.
    """
    listed: dict[str, tuple[str, str]] = {}
    for exclusion in lists:
        for ident, reason in exclusion.reasons.items():
            listed.setdefault(ident, (exclusion.path, reason))
    kept: list[Item] = []
    dropped: list[dict[str, str]] = []
    for item in items:
        hit = listed.get(item.id)
        if hit is None and item.variant_of in listed:
            path, reason = listed[item.variant_of]
            hit = (path, f"variant of {item.variant_of}: {reason}")
        if hit is None:
            kept.append(item)
        else:
            dropped.append({"id": item.id, "file": hit[0], "reason": hit[1]})
    return kept, dropped
