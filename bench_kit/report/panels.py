"""The report's analysis panels: per-source sections, capability heatmap, difficulty
curves, vision gain per capability, variant robustness, extraction and cost–accuracy.

Each function returns plain dicts (tables) and, when plots are on, a plot data URI.
"""

from __future__ import annotations

from collections import defaultdict

from bench_kit.report import plots
from bench_kit.report.inputs import ModelRun
from bench_kit.report.once import sees_image, shown_modes
from bench_kit.stats.accuracy import accuracy_block
from bench_kit.types import (
    DIFFICULTIES,
    MARKED_DEIXIS,
    MODES,
    OTHER_DEIXIS,
    Item,
    Score,
    robustness_kind,
)


def primary_mode(runs: list[ModelRun]) -> str:
    """`image` when any model ran it, else the first mode any model ran."""
    present = [m for m in MODES if any(m in run.scores for run in runs)]
    return "image" if "image" in present else (present[0] if present else "image")


def calls(run: ModelRun, mode: str) -> int:
    """Model calls made in `mode` (every CircularEval rotation counts), else items scored."""
    made = run.calls.get(mode)
    return made if made is not None else len(run.scores.get(mode, {}))


def cost_per_1k(run: ModelRun, mode: str) -> float | None:
    """USD per 1,000 calls in `mode` (None without calls)."""
    made = calls(run, mode)
    cost = run.metrics.get(mode, {}).get("cost")
    return None if not made or cost is None else round(1000 * cost / made, 6)


def subsets(items: list[Item]) -> list[tuple[str, str, set[str]]]:
    """(kind, name, item ids): one per source kind (`template:x` -> `template`) and one per
    `meta.subset` value when items carry one."""
    groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    for item in items:
        groups[("source", item.source.split(":", 1)[0])].add(item.id)
        subset = item.meta.get("subset") if isinstance(item.meta, dict) else None
        if subset is not None:
            groups[("subset", str(subset))].add(item.id)
    return [(kind, name, ids) for (kind, name), ids in sorted(groups.items())]


def source_sections(runs: list[ModelRun], items: list[Item]) -> list[dict]:
    """Per source kind / subset: each model's accuracy (Wilson CI) in each mode (a mode that
    answered exactly like another once, labelled with both)."""
    labels = {run.model: dict(shown_modes(run)) for run in runs}
    sections = []
    for kind, name, ids in subsets(items):
        rows = []
        for mode in MODES:
            for run in sorted(runs, key=lambda r: r.model):
                if mode in labels[run.model]:
                    block = accuracy_block(s for i, s in run.scores[mode].items() if i in ids)
                    rows.append({"model": run.model, "mode": labels[run.model][mode], **block})
        sections.append({"kind": kind, "name": name, "items": len(ids), "rows": rows})
    return sections


def _accuracy(run: ModelRun, mode: str, key: str, name: str) -> float | None:
    return run.metrics.get(mode, {}).get(key, {}).get(name, {}).get("accuracy")


def capability_heatmap(runs: list[ModelRun], capabilities: list[str], with_plot: bool) -> dict:
    """Capability × model accuracy in the primary mode (table + heatmap)."""
    mode = primary_mode(runs)
    ran = [run for run in runs if mode in run.scores]
    models = [run.model for run in ran]
    values = [[_accuracy(run, mode, "by_capability", c) for run in ran] for c in capabilities]
    plot = plots.heatmap(capabilities, models, values, f"accuracy by capability ({mode})") \
        if with_plot and ran and capabilities else None
    return {"mode": mode, "models": models,
            "rows": [{"capability": c, "values": v} for c, v in zip(capabilities, values)],
            "plot": plot}


def difficulty_curves(runs: list[ModelRun], items: list[Item], with_plot: bool) -> dict:
    """Observed accuracy per authored difficulty level, per model and over all models."""
    mode = primary_mode(runs)
    ran = [run for run in runs if mode in run.scores]
    levels = [d for d in DIFFICULTIES if any(i.difficulty == d for i in items)]
    series = {run.model: [_accuracy(run, mode, "by_difficulty", d) for d in levels]
              for run in ran}
    # Observed difficulty: each item's hit rate over the models, averaged per authored level.
    per_level: dict[str, list[float]] = defaultdict(list)
    for item in items:
        hits = [run.scores[mode][item.id].hit for run in ran
                if item.id in run.scores[mode] and run.scores[mode][item.id].error is None]
        if hits:
            per_level[item.difficulty].append(sum(hits) / len(hits))
    pooled = [round(sum(per_level[d]) / len(per_level[d]), 6) if per_level[d] else None
              for d in levels]
    if ran:
        series["all models (item mean)"] = pooled
    plot = plots.lines(levels, series, f"observed accuracy by authored difficulty ({mode})") \
        if with_plot and levels and ran else None
    return {"mode": mode, "levels": levels,
            "rows": [{"series": name, "values": values} for name, values in series.items()],
            "plot": plot}


def vision_panel(runs: list[ModelRun], capabilities: list[str], with_plot: bool) -> dict | None:
    """Accuracy per capability in image / no_image / blank_image, per model with 2+ modes."""
    multi = [run for run in runs if sees_image(run) and len(run.modes) > 1]
    if not multi:
        return None
    panels = {run.model: {mode: [_accuracy(run, mode, "by_capability", c)
                                 for c in capabilities] for mode in run.modes}
              for run in multi}
    plot = plots.vision_dots(capabilities, panels, "accuracy per capability by input mode") \
        if with_plot else None
    return {"plot": plot, "models": [run.model for run in multi]}


def variant_robustness(runs: list[ModelRun], items: list[Item]) -> dict:
    """Per model (primary mode): accuracy per variant kind (deixis split into marked-region
    and other), the gap to the originals, and consistency (share of variant families with
    every member right)."""
    mode = primary_mode(runs)
    column = {i.id: robustness_kind(i) for i in items}
    kinds = sorted(set(column.values()) - {"original"})
    if not kinds:
        return {"mode": mode, "kinds": [], "rows": []}
    family = {i.id: i.variant_of or i.id for i in items}
    families_with_variants = {i.variant_of for i in items if i.variant_of}
    rows = []
    for run in sorted((r for r in runs if mode in r.scores), key=lambda r: r.model):
        scores = run.scores[mode]
        by_kind = dict(run.metrics.get(mode, {}).get("by_variant_kind", {}))
        for split in (MARKED_DEIXIS, OTHER_DEIXIS):
            if split in kinds:
                by_kind[split] = accuracy_block([s for item_id, s in scores.items()
                                                 if column.get(item_id) == split])
        original = by_kind.get("original", {}).get("accuracy")
        members: dict[str, list[bool]] = defaultdict(list)
        for item_id, score in scores.items():
            if score.error is None and family[item_id] in families_with_variants:
                members[family[item_id]].append(score.hit)
        consistent = [all(hits) for hits in members.values() if len(hits) > 1]
        cells = []
        for kind in kinds:
            acc = by_kind.get(kind, {}).get("accuracy")
            cells.append({"kind": kind, "accuracy": acc, "n": by_kind.get(kind, {}).get("n", 0),
                          "gap": None if acc is None or original is None
                          else round(acc - original, 6)})
        rows.append({"model": run.model, "original": original, "cells": cells,
                     "families": len(consistent),
                     "consistency": round(sum(consistent) / len(consistent), 6)
                     if consistent else None})
    return {"mode": mode, "kinds": kinds, "rows": rows}


def parse_counts(scores: dict[str, Score]) -> dict[str, int]:
    """How each answer was extracted (ok / lenient / judge / failed), errors apart."""
    counts = {"ok": 0, "lenient": 0, "judge": 0, "failed": 0, "error": 0}
    for score in scores.values():
        counts["error" if score.error is not None else score.parse] += 1
    return counts


def extraction_panel(runs: list[ModelRun]) -> list[dict]:
    """Per model and mode: how answers were extracted, failure rate, judge share, truncations."""
    rows = []
    for run in sorted(runs, key=lambda r: r.model):
        for mode in run.modes:
            counts = parse_counts(run.scores[mode])
            answered = len(run.scores[mode]) - counts["error"]
            rows.append({"model": run.model, "mode": mode, **counts,
                         "failed_share": round(counts["failed"] / answered, 6) if answered else None,
                         "judge_share": round(counts["judge"] / answered, 6) if answered else None,
                         "truncated": run.metrics.get(mode, {}).get("truncated", 0)})
    return rows


def cost_panel(runs: list[ModelRun], with_plot: bool) -> dict:
    """Cost per 1,000 calls against accuracy (primary mode), table + scatter. No points when
    every run was free (local models), no scatter when every point has the same cost."""
    mode = primary_mode(runs)
    points = []
    for run in sorted(runs, key=lambda r: r.model):
        accuracy = run.metrics.get(mode, {}).get("accuracy")
        cost = cost_per_1k(run, mode)
        if mode in run.scores and accuracy is not None and cost is not None:
            points.append({"label": run.model, "cost": cost, "accuracy": accuracy,
                           "calls": calls(run, mode)})
    if all(point["cost"] == 0 for point in points):
        points = []
    spread = len({point["cost"] for point in points}) > 1
    plot = plots.cost_accuracy(points, f"cost vs accuracy ({mode})") \
        if with_plot and spread else None
    return {"mode": mode, "points": points, "plot": plot}


def _answered_by_prior(run: ModelRun) -> bool:
    """Whether the run's responses came from the `prior` adapter (its protocol says so)."""
    return any(p.protocol and "prior" in p.protocol
               for preds in run.predictions.values() for p in preds.values())


def prior_by_template(runs: list[ModelRun], items: list[Item]) -> dict | None:
    """Blind (no_image) accuracy per template (item batch) of every model that ran without
    the image, with the template's top-gold share in these items; templates sorted by the
    `prior` model's accuracy (the blind baseline that learnt the dev split's answers,
    docs/EVAL.md), else by the best blind accuracy. None when no model ran no_image."""
    from bench_kit.authoring.coverage import Coverage, batch_of

    blind = sorted((run for run in runs if "no_image" in run.scores), key=lambda r: r.model)
    if not blind:
        return None
    priors = [run.model for run in blind if _answered_by_prior(run)]
    ids: dict[str, set[str]] = defaultdict(set)
    for item in items:
        ids[batch_of(item)].add(item.id)
    tops: dict[str, float] = {}
    for (name, _), tally in Coverage.of(items, {}, []).gold.items():
        tops[name] = max(tops.get(name, 0.0), tally.majority()[1])
    rows = []
    for name, members in ids.items():
        values = [accuracy_block(s for i, s in run.scores["no_image"].items()
                                 if i in members)["accuracy"] for run in blind]
        rows.append({"template": name, "items": len(members), "top_gold": tops.get(name),
                     "values": values})
    ranked = [k for k, run in enumerate(blind) if run.model in priors]

    def key(row: dict) -> tuple:
        cells = [row["values"][k] for k in ranked] or row["values"]
        best = max((v for v in cells if v is not None), default=-1.0)
        return (-best, row["template"])

    return {"models": [run.model for run in blind], "priors": priors,
            "rows": sorted(rows, key=key)}
