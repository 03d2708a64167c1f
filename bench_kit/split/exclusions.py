"""Leaving listed items out of the splits: the lists themselves (audit quarantine, rejected
review batches) are read by `bench_kit.artifacts.exclusions`.
"""

from __future__ import annotations

from bench_kit.artifacts.exclusions import ExclusionList, read_exclusions
from bench_kit.types import Item

__all__ = ["ExclusionList", "apply_exclusions", "read_exclusions"]


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
