"""Per-item scores -> the metrics dict of DESIGN §3.5 (`metrics/<bench>/<model>.json`).

Rules (DOMAIN §1): a prediction with `error` set is excluded from every denominator and
counted in `errors`; a parse failure is a wrong answer counted in `parse_failed`; items
without a prediction are `missing` and predictions for unknown ids are `extra`, so `n`
never changes silently. Keys are stable and floats rounded so `dvc metrics diff` reads well.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from bench_kit.eval.stats import mean_or_none, proportion
from bench_kit.types import MODES, Item, Prediction, Score

# Item fields the metrics break accuracy down by, and the key each breakdown gets.
BREAKDOWNS = {
    "capability": "by_capability",
    "layer": "by_layer",
    "difficulty": "by_difficulty",
    "task": "by_task",
    "variant_kind": "by_variant_kind",
}
DIGITS = 6


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, DIGITS)


def accuracy_block(scores: Iterable[Score]) -> dict:
    """accuracy, Wilson 95% CI, n, hits, parse_failed and errors of a group of scores.

    Error rows (failed requests) are counted but kept out of n; an empty group has
    accuracy and CI None rather than a made-up 0.
    """
    n = hits = parse_failed = errors = 0
    for score in scores:
        if score.error is not None:
            errors += 1
            continue
        n += 1
        hits += score.hit
        parse_failed += score.parse == "failed"
    rate = proportion(hits, n)
    return {
        "accuracy": _round(rate.value) if rate else None,
        "ci_low": _round(rate.low) if rate else None,
        "ci_high": _round(rate.high) if rate else None,
        "n": n,
        "hits": hits,
        "parse_failed": parse_failed,
        "errors": errors,
    }


def breakdown(scores: Sequence[Score], items: Mapping[str, Item], field: str) -> dict:
    """`accuracy_block` per value of an item field (e.g. capability), keys sorted."""
    groups: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        groups[str(getattr(items[score.id], field))].append(score)
    return {key: accuracy_block(groups[key]) for key in sorted(groups)}


def mode_metrics(scores: Sequence[Score], predictions: Sequence[Prediction],
                 items: Mapping[str, Item], *, extra: int = 0) -> dict:
    """Metrics of one model in one mode.

    Args:
        scores: one Score per scored prediction (error rows included), ids all in `items`.
        predictions: the predictions behind `scores` (for cost, latency and truncation).
        items: every item of the split, by id; those without a score count as `missing`.
        extra: predictions whose id is not an item (not scored, reported).
    """
    block = accuracy_block(scores)
    valid = [s for s in scores if s.error is None]
    by_capability = breakdown(scores, items, "capability")
    capability_rates = [g["accuracy"] for g in by_capability.values() if g["accuracy"] is not None]
    latencies = [p.latency_s for p in predictions if p.error is None]
    block.update({
        "accuracy_macro": _round(mean_or_none(capability_rates)),
        "score_mean": _round(mean_or_none([s.score for s in valid])),
        "parse_lenient": sum(s.parse == "lenient" for s in valid),
        "items": len(items),
        "missing": len(items) - len({s.id for s in scores}),
        "extra": extra,
        "truncated": sum(bool(p.truncated) for p in predictions),
        "cost": _round(sum(p.cost for p in predictions)),
        "latency_s_mean": _round(mean_or_none(latencies)),
    })
    for field, key in BREAKDOWNS.items():
        block[key] = by_capability if field == "capability" else breakdown(scores, items, field)
    return block


def _difference(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else _round(a - b)


def gain(with_image: dict, without: dict) -> dict:
    """Accuracy with the image minus without it: overall, per capability and per layer."""
    out: dict = {"overall": _difference(with_image["accuracy"], without["accuracy"])}
    for key in ("by_capability", "by_layer"):
        shared = sorted(set(with_image[key]) & set(without[key]))
        out[key] = {name: _difference(with_image[key][name]["accuracy"],
                                      without[key][name]["accuracy"]) for name in shared}
    return out


def model_metrics(model: str, items: Sequence[Item],
                  scores_by_mode: Mapping[str, Sequence[Score]],
                  predictions_by_mode: Mapping[str, Sequence[Prediction]],
                  extra_by_mode: Mapping[str, int] | None = None) -> dict:
    """The metrics dict of one model over every mode it ran.

    `vision_gain` (image − no_image) and `vision_gain_blank` (image − blank_image) appear
    when both modes ran.
    """
    by_id = {item.id: item for item in items}
    extra_by_mode = extra_by_mode or {}
    out: dict = {"model": model}
    for mode in MODES:
        if mode in scores_by_mode:
            out[mode] = mode_metrics(scores_by_mode[mode], predictions_by_mode.get(mode, ()),
                                     by_id, extra=extra_by_mode.get(mode, 0))
    if "image" in out and "no_image" in out:
        out["vision_gain"] = gain(out["image"], out["no_image"])
    if "image" in out and "blank_image" in out:
        out["vision_gain_blank"] = gain(out["image"], out["blank_image"])
    return out


def plot_rows(metrics: dict) -> list[dict]:
    """Rows `{model, mode, capability, accuracy}` for `dvc plots` (empty groups left out)."""
    rows = []
    for mode in MODES:
        for capability, block in metrics.get(mode, {}).get("by_capability", {}).items():
            if block["accuracy"] is not None:
                rows.append({"model": metrics["model"], "mode": mode, "capability": capability,
                             "accuracy": block["accuracy"]})
    return rows


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def summary_line(metrics: dict) -> str:
    """`image 131/320 = 40.9% (12 parse failures, 0 errors); no_image ...; vision gain +x.x pts`."""
    parts = []
    for mode in MODES:
        if mode in metrics:
            m = metrics[mode]
            extras = [f"{m['parse_failed']} parse failures", f"{m['errors']} errors"]
            extras += [f"{m[k]} {k}" for k in ("missing", "extra") if m[k]]
            parts.append(f"{mode} {m['hits']}/{m['n']} = {_pct(m['accuracy'])} "
                         f"({', '.join(extras)})")
    overall = metrics.get("vision_gain", {}).get("overall")
    if overall is not None:
        parts.append(f"vision gain {100 * overall:+.1f} pts")
    return "; ".join(parts)
