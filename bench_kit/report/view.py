"""Assembling the report's tables from `ReportInputs`: plain dicts, sorted, ready to render.

Nothing here formats HTML or Markdown; both templates render the same view.
"""

from __future__ import annotations

import base64
import io
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_kit.errors import BenchKitWarning, InputError, param
from bench_kit.io import file_sha256, open_image, resolve_image
from bench_kit.report import panels
from bench_kit.report.answer import first_answer
from bench_kit.report.clipped import clipped
from bench_kit.report.inputs import AuditData, ModelRun, ReportInputs, ReportSettings
from bench_kit.report.model_audit import model_audit_view
from bench_kit.report.once import run_labels, sees_image, shown_modes, visible_columns
from bench_kit.report.panels import calls, cost_per_1k
from bench_kit.report.statistics import macro_interval, pairwise, power_note
from bench_kit.types import MODES, SEVERITY_RANK, Finding, Item

PLACEHOLDER_GREY = (200, 200, 200)  # the thumbnail of an image that cannot be decoded
# The benchmark-summary tables: title -> what each item is counted by.
ITEM_COUNTS: dict[str, Callable[[Item], str]] = {
    "layer": lambda item: item.layer,
    "task": lambda item: item.task,
    "difficulty": lambda item: item.difficulty,
    "variant_kind": lambda item: item.variant_kind,
    # `template:<id>` / `import:<format>` -> template / import: one row per kind of source.
    "source": lambda item: item.source.split(":", 1)[0],
}


# Leaderboard columns after model, mode and the two accuracies; `optional` ones are hidden
# when they say nothing for every row (once.visible_columns).
LEADERBOARD_COLUMNS: list[dict[str, Any]] = [
    {"key": "score_mean", "header": "score mean", "kind": "pct", "optional": True,
     "same_as": "accuracy"},
    {"key": "n", "header": "n", "kind": "int"},
    {"key": "hits", "header": "hits", "kind": "int"},
    *({"key": key, "header": header, "kind": "int", "optional": True} for key, header in (
        ("parse_failed", "parse failed"), ("parse_lenient", "lenient"), ("errors", "errors"),
        ("missing", "missing"), ("extra", "extra"), ("truncated", "truncated"))),
    {"key": "cost", "header": "cost", "kind": "money", "optional": True},
    {"key": "cost_per_1k", "header": "cost / 1k calls", "kind": "money", "optional": True},
    {"key": "latency_s_mean", "header": "latency (mean)", "kind": "seconds", "optional": True},
]
EXTRACTION_COLUMNS: list[dict[str, Any]] = [
    {"key": "ok", "header": "ok", "kind": "int"},
    *({"key": key, "header": header, "kind": "int", "optional": True} for key, header in (
        ("lenient", "lenient"), ("judge", "judge"), ("failed", "failed"),
        ("error", "request errors"))),
    {"key": "failed_share", "header": "failure rate", "kind": "pct", "optional": True},
    {"key": "judge_share", "header": "judge share", "kind": "pct", "optional": True},
    {"key": "truncated", "header": "truncated", "kind": "int", "optional": True},
]


def count_items(items: list[Item], key: Callable[[Item], str]) -> list[tuple[str, int]]:
    """(value, count) pairs of `key(item)`, sorted by value."""
    return sorted(Counter(key(item) for item in items).items())


def gold_text(item: Item) -> str:
    """The gold answer(s) as one line: `B (red circle)`, `yes`, `3 | three`, checklist checks."""
    if item.task == "checklist" and item.checks:
        return "; ".join(f"{c.name}: {'yes' if c.answer else 'no'}" for c in item.checks)
    if item.task == "mc" and item.choices:
        return " | ".join(f"{a} ({item.choices.get(a, '?')})" for a in item.answers)
    return " | ".join(item.answers)


def question_text(item: Item) -> str:
    """The question with its options (`A. red  B. blue`) for mc items."""
    if item.choices:
        options = "  ".join(f"{k}. {v}" for k, v in sorted(item.choices.items()))
        return f"{item.question}  [{options}]"
    return item.question


class Thumbnails:
    """Small PNG data URIs of item images, made once per image (0 px = no thumbnails).

    An image that exists but cannot be decoded (corrupt, a decompression bomb) gets a grey
    placeholder and is listed in `unreadable`; a missing one is an error (a wrong --root).
    """

    def __init__(self, root: Path, px: int, items_path: Path) -> None:
        self.root, self.px, self.items_path = root, px, items_path
        self._cache: dict[str, str] = {}
        self.unreadable: dict[str, dict[str, str]] = {}

    def of(self, item: Item) -> str | None:
        """A `data:image/png;base64,...` URI of the item's first image, or None."""
        if not self.px or not item.images:
            return None
        rel = item.images[0]
        if rel not in self._cache:
            try:
                path = resolve_image(self.root, rel)
                if not path.is_file():
                    raise ValueError(f"image file '{path}' not found")
            except ValueError as exc:
                raise InputError(f"item '{item.id}': {exc} (is {param('root')} right?)",
                                 path=str(self.items_path), field="image") from exc
            try:
                img = open_image(path)
            except ValueError as exc:
                self.unreadable[rel] = {"item": item.id, "image": rel, "reason": str(exc)}
                from PIL import Image

                img = Image.new("RGB", (self.px, self.px), PLACEHOLDER_GREY)
            img.thumbnail((self.px, self.px))
            buffer = io.BytesIO()
            img.save(buffer, format="PNG", optimize=True)
            self._cache[rel] = ("data:image/png;base64,"
                                + base64.b64encode(buffer.getvalue()).decode("ascii"))
        return self._cache[rel]

    def warn_unreadable(self) -> None:
        """One warning line naming the unreadable images (also listed in the report)."""
        if self.unreadable:
            first = next(iter(self.unreadable.values()))
            warnings.warn(BenchKitWarning(
                f"{self.items_path}: {len(self.unreadable)} image(s) could not be read and "
                f"show a grey placeholder, listed under 'Unreadable images' in the report "
                f"(first: item '{first['item']}': {first['reason']})"), stacklevel=2)


def leaderboard(runs: list[ModelRun], items: dict[str, Item] | None = None,
                settings: ReportSettings | None = None) -> list[dict]:
    """One row per (model, mode): mode order first, then accuracy (best first), then name.

    With `items` and `settings`, rows also carry the clustered bootstrap CIs of macro and
    micro accuracy and the cost per 1,000 calls.
    """
    rows = []
    for run in runs:
        for mode in run.modes:
            m = run.metrics.get(mode)
            if m is None:
                raise InputError(f"metrics of '{run.model}' have no '{mode}' section but "
                                 f"scores/{run.model}/{mode}.jsonl exists (stale metrics?)")
            extra = {}
            if items is not None and settings is not None:
                extra = {**macro_interval(run, mode, items, settings),
                         "cost_per_1k": cost_per_1k(run, mode), "calls": calls(run, mode)}
            rows.append({"model": run.model, "mode": mode, **m, **extra})
    return sorted(rows, key=lambda r: (MODES.index(r["mode"]),
                                       -(r["accuracy"] if r["accuracy"] is not None else -1),
                                       r["model"]))


def board(rows: list[dict], runs: list[ModelRun], columns: list[dict]) -> dict:
    """Rows of (model, mode) tables with a mode shown once per model when it answered exactly
    like an earlier one (`mode_label`), and the columns with something to say."""
    labels = {(run.model, mode): label for run in runs for mode, label in shown_modes(run)}
    shown = [{**row, "mode_label": labels[(row["model"], row["mode"])]} for row in rows
             if (row["model"], row["mode"]) in labels]
    return {"rows": shown, "columns": visible_columns(shown, columns)}


def vision_gain_view(runs: list[ModelRun], capabilities: list[str],
                     audit_summary: dict | None = None) -> dict:
    """Per model: accuracy per mode and the gains (and, from the model audit, the text-only
    base model and the leakage ML); per capability: each model's gain."""
    overall, matrix = [], []
    leakage = (audit_summary or {}).get("vision_gain") or {}
    blind = []
    for run in runs:
        gain = run.metrics.get("vision_gain")
        if gain is None:
            continue
        if not sees_image(run):  # same answers with and without the image: 0 by construction
            blind.append(run.model)
            continue
        overall.append({"model": run.model,
                        **{mode: run.metrics.get(mode, {}).get("accuracy") for mode in MODES},
                        "gain": gain["overall"],
                        "gain_blank": run.metrics.get("vision_gain_blank", {}).get("overall"),
                        "ml": (leakage.get(run.model) or {}).get("ml"),
                        "base_model": (leakage.get(run.model) or {}).get("base_model")})
    models = [row["model"] for row in overall]
    by_model = {run.model: run.metrics.get("vision_gain", {}).get("by_capability", {})
                for run in runs}
    for capability in capabilities:
        matrix.append({"capability": capability,
                       "gains": [by_model[m].get(capability) for m in models]})
    return {"models": models, "overall": overall, "by_capability": matrix,
            "leakage": any(row["ml"] is not None for row in overall), "blind": blind}


def capability_table(run: ModelRun, capabilities: list[str],
                     modes: list[str] | None = None) -> list[dict]:
    """Rows per capability with, per mode of the model (or `modes`), its accuracy block (or
    None)."""
    rows = []
    for capability in capabilities:
        cells = [run.metrics.get(mode, {}).get("by_capability", {}).get(capability)
                 for mode in (run.modes if modes is None else modes)]
        if any(cells):
            rows.append({"capability": capability, "cells": cells})
    return rows


def _hits_by_model(runs: list[ModelRun], mode: str, item_id: str) -> dict[str, bool]:
    """Which models (scored without error in `mode`) got `item_id` right."""
    out = {}
    for run in runs:
        score = run.scores.get(mode, {}).get(item_id)
        if score is not None and score.error is None:
            out[run.model] = score.hit
    return out


def _item_card(item: Item, thumbs: Thumbnails) -> dict:
    return {"id": item.id, "question": clipped(question_text(item)),
            "gold": clipped(gold_text(item)),
            "capability": item.capability, "task": item.task, "difficulty": item.difficulty,
            "thumbnail": thumbs.of(item)}


def worst_items(run: ModelRun, mode: str, runs: list[ModelRun], items: dict[str, Item],
                thumbs: Thumbnails, settings: ReportSettings) -> list[dict]:
    """The items this model got wrong in `mode`, those most other models got right first."""
    wrong = [s for s in run.scores[mode].values() if s.error is None and not s.hit]
    others_right = {s.id: sum(hit for model, hit in _hits_by_model(runs, mode, s.id).items()
                              if model != run.model) for s in wrong}
    ranked = sorted(wrong, key=lambda s: (-others_right[s.id], s.score, s.id))
    rows = []
    for score in ranked[:settings.worst_items]:
        prediction = run.predictions.get(mode, {}).get(score.id)
        rows.append({**_item_card(items[score.id], thumbs),
                     "others_right": others_right[score.id],
                     "response": clipped(prediction.response, settings.response_chars)
                     if prediction is not None else None,
                     "have_response": prediction is not None,
                     "extracted": clipped(score.extracted) if isinstance(score.extracted, str)
                     else score.extracted, "parse": score.parse, "metric": score.metric})
    return rows


def hardest_items(runs: list[ModelRun], items: list[Item], thumbs: Thumbnails,
                  limit: int) -> dict:
    """Items most models get wrong in the image mode (or the first mode any model ran);
    items every model got right are left out."""
    mode = panels.primary_mode(runs)
    ranked = []
    for item in items:
        hits = _hits_by_model(runs, mode, item.id)
        if hits and not all(hits.values()):
            ranked.append((sum(hits.values()) / len(hits), -len(hits), item.id, hits))
    ranked.sort(key=lambda entry: entry[:3])
    by_id = {item.id: item for item in items}
    rows = [{**_item_card(by_id[item_id], thumbs), "hit_rate": rate,
             "results": [{"model": m, "hit": h} for m, h in sorted(hits.items())]}
            for rate, _, item_id, hits in ranked[:limit]]
    return {"mode": mode, "rows": rows}


def _audit_checks(audit: AuditData, findings_per_check: dict[str, Counter]) -> list[dict]:
    """Per check: findings by severity; checks that ran clean and checks skipped included."""
    ran = audit.summary.get("checks_run")
    names = set(findings_per_check)
    if isinstance(ran, list):
        names |= {name for name in ran if isinstance(name, str)}
    rows = [{"check": name, "findings": sum(findings_per_check.get(name, Counter()).values()),
             **{s: findings_per_check.get(name, Counter())[s] for s in SEVERITY_RANK},
             "skipped": None} for name in sorted(names)]
    skipped = audit.summary.get("checks_skipped")
    for entry in skipped if isinstance(skipped, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("check"), str):
            rows.append({"check": entry["check"], "findings": 0, "info": 0, "warn": 0,
                         "error": 0, "skipped": str(entry.get("reason", "skipped"))})
    return rows


def audit_overview(audit: AuditData, items: dict[str, Item], limit: int) -> dict:
    """Counts per check and severity, flagged shares per capability (from summary.json),
    and the flagged items (a warn or error finding), worst first."""
    per_check: dict[str, Counter] = {}
    per_item: dict[str, list[Finding]] = {}
    # the report's population is its split: findings on other items are counted apart
    findings = [f for f in audit.findings if f.id in items]
    for finding in findings:
        per_check.setdefault(finding.check, Counter())[finding.severity] += 1
        if finding.severity != "info":
            per_item.setdefault(finding.id, []).append(finding)

    def rank(entry: tuple[str, list[Finding]]) -> tuple:
        item_id, found = entry
        return (-max(SEVERITY_RANK[f.severity] for f in found), -len(found),
                -max(f.score for f in found), item_id)

    flagged = []
    for item_id, found in sorted(per_item.items(), key=rank)[:limit]:
        found = sorted(found, key=lambda f: (-SEVERITY_RANK[f.severity], f.check))
        item = items.get(item_id)
        flagged.append({"id": item_id, "question": clipped(item.question) if item else None,
                        "findings": [{"check": f.check, "severity": f.severity,
                                      "message": clipped(f.message)} for f in found]})
    by_capability = []
    for capability, total in sorted(Counter(i.capability for i in items.values()).items()):
        flagged_here = sum(items[i].capability == capability for i in per_item)
        by_capability.append({"capability": capability, "items": total,
                              "flagged": flagged_here, "flagged_share": flagged_here / total})
    scalars = {k: v for k, v in sorted(audit.summary.items()) if k != "format_version"
               and (isinstance(v, (str, int, float, bool)) or v is None)}
    return {"n_findings": len(findings), "n_flagged": len(per_item),
            "n_outside": len(audit.findings) - len(findings),
            "checks": _audit_checks(audit, per_check), "flagged": flagged,
            "by_capability": by_capability, "summary": scalars}


def build_view(inputs: ReportInputs, settings: ReportSettings, root: str | Path) -> dict:
    """The template context: every table of the report, deterministic for equal inputs."""
    items = inputs.items
    by_id = {item.id: item for item in items}
    thumbs = Thumbnails(Path(root), settings.thumbnail_px, inputs.items_path)
    capabilities = sorted({item.capability for item in items})
    layer_of = {item.capability: item.layer for item in items}
    pairs = pairwise(inputs.runs, by_id, settings)
    ranked = leaderboard(inputs.runs, by_id, settings)
    models = []
    for run in inputs.runs:
        shown = shown_modes(run)
        models.append({
            "model": run.model, "modes": run.modes, "mode_labels": [label for _, label in shown],
            # mode -> its column in `capabilities` (a mode shown once under another's label)
            "cell_index": {m: k for k, (_, label) in enumerate(shown) for m in label.split(" = ")},
            "capabilities": capability_table(run, capabilities, [mode for mode, _ in shown]),
            "worst": [{"mode": label, "rows": worst_items(run, mode, inputs.runs, by_id, thumbs,
                                                          settings)}
                      for mode, label in shown],
            "have_responses": bool(run.predictions),
        })
    view = {
        "bench": inputs.bench,
        "items_file": inputs.items_path.name,
        "items_sha": file_sha256(inputs.items_path)[:12],
        "n_items": len(items),
        "counts": {title: count_items(items, key) for title, key in ITEM_COUNTS.items()},
        "capabilities": [(c, layer_of[c], sum(i.capability == c for i in items))
                         for c in capabilities],
        "leaderboard": ranked,
        "board": board(ranked, inputs.runs, LEADERBOARD_COLUMNS),
        "answer": first_answer(inputs.runs, items, inputs.items_path.name,
                               inputs.model_audit.summary if inputs.model_audit else None,
                               inputs.model_audit.item_stats if inputs.model_audit else None),
        "split": inputs.items_path.name.rsplit(".", 1)[0],
        "pairwise": pairs,
        "power": power_note(inputs.runs, pairs, settings),
        "sources": panels.source_sections(inputs.runs, items),
        "heatmap": panels.capability_heatmap(inputs.runs, capabilities, settings.plots),
        "difficulty": panels.difficulty_curves(inputs.runs, items, settings.plots),
        "vision_plot": panels.vision_panel(inputs.runs, capabilities, settings.plots),
        "variants": panels.variant_robustness(inputs.runs, items),
        "extraction": board(panels.extraction_panel(inputs.runs), inputs.runs,
                            EXTRACTION_COLUMNS),
        "cost": panels.cost_panel(inputs.runs, settings.plots),
        "vision_gain": vision_gain_view(inputs.runs, capabilities, inputs.model_audit.summary
                                        if inputs.model_audit else None),
        "prior_templates": panels.prior_by_template(inputs.runs, items),
        "models": models,
        "hardest": hardest_items(inputs.runs, items, thumbs, settings.worst_items),
        "audit": audit_overview(inputs.audit, by_id, settings.flagged_items)
        if inputs.audit is not None else None,
        "model_audit": model_audit_view(inputs.model_audit, by_id, settings.flagged_items,
                                        run_labels(inputs.runs))
        if inputs.model_audit is not None else None,
        "settings": settings.model_dump(),
        "unreadable_images": list(thumbs.unreadable.values()),
    }
    thumbs.warn_unreadable()
    return view

