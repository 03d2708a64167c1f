"""Per-item scores -> the metrics dict of docs/ITEMS.md#metrics-json (`metrics/<bench>/<model>.json`).

Rules (docs/METRICS.md#evaluation-rules): a prediction with `error` set is excluded from every denominator and
counted in `errors` (or in `unsupported` when its adapter cannot take the item); a parse
failure is a wrong answer counted in `parse_failed`; items without a prediction are
`missing`, predictions for unknown ids are `extra` and repeated rows `duplicated`, so `n`
never changes silently. `accuracy_strict` counts only hits whose answer parsed strictly
(`parse` ok), next to `accuracy` (ok + lenient): the gap is what the extractor's fallbacks
decide. Corpus-level metrics (macro-F1, paired, AP/mAP, masks, defect maps, CircularEval)
sit under `corpus`. Keys are stable and floats rounded so `dvc metrics diff` reads well.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable, Mapping, Sequence

from bench_kit.artifacts.predictions import is_unsupported
from bench_kit.stats.intervals import Z_95, mean_or_none, proportion, z_for_alpha
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


def accuracy_block(scores: Iterable[Score], z: float = Z_95) -> dict:
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
        "accuracy": _round(rate.value) if rate else None,
        "ci_low": _round(rate.low) if rate else None,
        "ci_high": _round(rate.high) if rate else None,
        "n": n,
        "hits": hits,
        "parse_failed": parse_failed,
        "errors": errors,
        "unsupported": unsupported,
    }


def breakdown(scores: Sequence[Score], items: Mapping[str, Item], field: str,
              z: float = Z_95) -> dict:
    """`accuracy_block` per value of an item field (e.g. capability), keys sorted."""
    groups: dict[str, list[Score]] = defaultdict(list)
    for score in scores:
        groups[str(getattr(items[score.id], field))].append(score)
    return {key: accuracy_block(groups[key], z) for key in sorted(groups)}


def mode_metrics(scores: Sequence[Score], predictions: Sequence[Prediction],
                 items: Mapping[str, Item], *, extra: int = 0, duplicated: int = 0,
                 corpus: Mapping[str, dict] | None = None, z: float = Z_95) -> dict:
    """Metrics of one model in one mode.

    Args:
        scores: one Score per scored prediction (error rows included), ids all in `items`.
        predictions: the predictions behind `scores` (for cost, latency and truncation).
        items: every item of the split, by id; those without a score count as `missing`.
        extra: predictions whose id is not an item (not scored, reported).
        duplicated: prediction rows repeating an (id, rotation) (ignored, reported).
        corpus: corpus-level metric blocks (`bench_kit.scoring.corpus`), if any.
        z: the normal quantile of the Wilson intervals (`z_for_alpha(report.alpha)`).
    """
    block = accuracy_block(scores, z)
    valid = [s for s in scores if s.error is None]
    by_capability = breakdown(scores, items, "capability", z)
    capability_rates = [g["accuracy"] for g in by_capability.values() if g["accuracy"] is not None]
    latencies = [p.latency_s for p in predictions if p.error is None]
    strict_hits = sum(s.hit and s.parse == "ok" for s in valid)
    scored = len({s.id for s in scores})
    block.update({
        "accuracy_strict": _round(strict_hits / block["n"]) if block["n"] else None,
        "hits_strict": strict_hits,
        "hits_lenient": sum(s.hit and s.parse == "lenient" for s in valid),
        "accuracy_macro": _round(mean_or_none(capability_rates)),
        "score_mean": _round(mean_or_none([s.score for s in valid])),
        "parse_lenient": sum(s.parse == "lenient" for s in valid),
        "items": len(items),
        "missing": len(items) - scored,
        "extra": extra,
        "duplicated": duplicated,
        "coverage": _round(scored / len(items)) if items else None,
        "truncated": sum(bool(p.truncated) for p in predictions),
        "cost": _round(sum(p.cost for p in predictions)),
        "latency_s_mean": _round(mean_or_none(latencies)),
    })
    for field, key in BREAKDOWNS.items():
        block[key] = by_capability if field == "capability" else breakdown(scores, items, field, z)
    if corpus:
        block["corpus"] = dict(corpus)
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
                  extra_by_mode: Mapping[str, int] | None = None, *,
                  duplicated_by_mode: Mapping[str, int] | None = None,
                  corpus_by_mode: Mapping[str, Mapping[str, dict]] | None = None,
                  alpha: float = 0.05) -> dict:
    """The metrics dict of one model over every mode it ran.

    `vision_gain` (image − no_image) and `vision_gain_blank` (image − blank_image) appear
    when both modes ran. Wilson intervals are (1 - `alpha`) intervals (`report.alpha`);
    `ci_level` records the level.
    """
    z = z_for_alpha(alpha)
    by_id = {item.id: item for item in items}
    extra_by_mode = extra_by_mode or {}
    duplicated_by_mode = duplicated_by_mode or {}
    corpus_by_mode = corpus_by_mode or {}
    out: dict = {"model": model, "ci_level": round(1.0 - alpha, 6)}
    for mode in MODES:
        if mode in scores_by_mode:
            out[mode] = mode_metrics(scores_by_mode[mode], predictions_by_mode.get(mode, ()),
                                     by_id, extra=extra_by_mode.get(mode, 0),
                                     duplicated=duplicated_by_mode.get(mode, 0),
                                     corpus=corpus_by_mode.get(mode), z=z)
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


SUMMARY_KEYS = ("accuracy", "ci_low", "ci_high", "accuracy_strict", "n", "hits",
                "hits_strict", "parse_failed", "parse_lenient", "errors", "unsupported",
                "items", "missing", "extra", "duplicated", "coverage", "cost")


def summary_dict(metrics: dict, metrics_path: str | None = None) -> dict:
    """The headline numbers of a metrics dict (what `eval score --format json` prints):
    per mode the `SUMMARY_KEYS` and any corpus blocks, plus the vision gain."""
    out: dict = {"model": metrics.get("model"), "metrics_path": metrics_path, "modes": {}}
    for mode in MODES:
        if mode in metrics:
            block = {key: metrics[mode].get(key) for key in SUMMARY_KEYS}
            if metrics[mode].get("corpus"):
                block["corpus"] = metrics[mode]["corpus"]
            out["modes"][mode] = block
    out["vision_gain"] = metrics.get("vision_gain", {}).get("overall")
    return out


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def summary_line(metrics: dict) -> str:
    """`image 131/320 = 40.9% (12 parse failures, 0 errors); no_image ...; vision gain +x.x pts`."""
    parts = []
    for mode in MODES:
        if mode in metrics:
            m = metrics[mode]
            extras = [f"{m['parse_failed']} parse failures", f"{m['errors']} errors"]
            extras += [f"{m[k]} {k}" for k in ("unsupported", "missing", "extra", "duplicated")
                       if m.get(k)]
            parts.append(f"{mode} {m['hits']}/{m['n']} = {_pct(m['accuracy'])} "
                         f"({', '.join(extras)})")
    overall = metrics.get("vision_gain", {}).get("overall")
    if overall is not None:
        parts.append(f"vision gain {100 * overall:+.1f} pts")
    return "; ".join(parts)
