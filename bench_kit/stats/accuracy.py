"""Accuracy of a group of scores: the block every metrics file, audit and report shows
(accuracy with its Wilson interval, n, hits, parse failures, errors, unsupported items)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, Iterable, Mapping, Sequence

from bench_kit.artifacts.predictions import is_unsupported
from bench_kit.stats.intervals import Z_95, proportion
from bench_kit.types import Item, Score

DIGITS = 6


def round_metric(value: float | None) -> float | None:
    """A metric value rounded to `DIGITS` places (None stays None)."""
    return None if value is None else round(value, DIGITS)


def accuracy_block(scores: Iterable[Score], z: float = Z_95) -> dict[str, Any]:
    """accuracy, Wilson CI (95% unless `z` says otherwise), n, hits, parse_failed, errors
    and unsupported of a group.

    Error rows (failed requests, and items the adapter cannot take) are counted but kept
    out of n; an empty group has accuracy and CI None rather than a made-up 0.
    """
    n = hits = parse_failed = errors = unsupported = 0
    for score in scores:
        if score.error is not None:
            if is_unsupported(score.error):
                unsupported += 1
            else:
                errors += 1
            continue
        n += 1
        hits += score.hit
        parse_failed += score.parse == "failed"
    rate = proportion(hits, n, z)
    return {
        "accuracy": round_metric(rate.value) if rate else None,
        "ci_low": round_metric(rate.low) if rate else None,
        "ci_high": round_metric(rate.high) if rate else None,
        "n": n,
        "hits": hits,
        "parse_failed": parse_failed,
        "errors": errors,
        "unsupported": unsupported,
    }


def breakdown(scores: Sequence[Score], items: Mapping[str, Item], field: str,
              z: float = Z_95) -> dict[str, dict[str, Any]]:
    """`accuracy_block` per value of an item field (e.g. capability), keys sorted."""
    groups: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        groups[str(getattr(items[score.id], field))].append(score)
    return {key: accuracy_block(groups[key], z) for key in sorted(groups)}
