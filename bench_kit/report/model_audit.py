"""The report's "Model-based audit" section, read from `bench-kit audit results` output.

Reads `model_summary.json`, `item_stats.jsonl` and `model_findings.jsonl` from the
audit-results folder and turns them into plain, sorted tables for both templates.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bench_kit.artifacts import paths
from bench_kit.artifacts.tables import (
    read_audit_summary,
    read_findings,
    read_item_stats,
)
from bench_kit.errors import InputError
from bench_kit.report.clipped import clipped
from bench_kit.report.once import merge_runs
from bench_kit.types import DIFFICULTIES, Finding, Item

SUMMARY_FILE = paths.MODEL_SUMMARY
ITEMS_FILE = paths.ITEM_STATS
FINDINGS_FILE = paths.MODEL_FINDINGS
VERDICTS = ("text_answerable", "prior_answerable", "vision_required", "review", "undetermined",
            "no_image", "no_blind_runs")
FLAGGED = ("text_answerable", "prior_answerable", "review")
# Verdicts of items the blind panel could not judge, and why.
UNJUDGED = {"undetermined": "even a unanimous panel of its size could not beat chance",
            "no_image": "the item has no image",
            "no_blind_runs": "no member answered it without the image"}
# The label-quality checks whose top items the report lists.
LISTED_CHECKS = ("label.suspect_gold", "ambiguity.model_split", "label.difficulty_mismatch")
TOP_FINDINGS = 5
# Items listed per review list on the first screen, and templates in the prior table.
FIRST_SCREEN_ITEMS = 10
PRIOR_TEMPLATES = 15


@dataclass(frozen=True)
class ModelAuditData:
    """The audit-results folder's summary, per-item rows and findings."""

    folder: Path
    summary: dict
    item_stats: list[dict]
    findings: list[Finding]


def load_model_audit(folder: str | Path) -> ModelAuditData:
    """Read an `audit results --out` folder (summary and item_stats required).

    Raises:
        InputError: the folder or a required file is missing or malformed.
    """
    folder = Path(folder)
    summary_path, items_path = folder / SUMMARY_FILE, folder / ITEMS_FILE
    for path in (summary_path, items_path):
        if not path.is_file():
            raise InputError(f"no {path.name} (run `bench-kit audit results` first)",
                             path=str(folder))
    summary = read_audit_summary(summary_path)
    if not isinstance(summary.get("blind_panel"), dict):
        raise InputError("not a model-audit summary (no \"blind_panel\" object)",
                         path=str(summary_path))
    rows = read_item_stats(items_path)
    findings_path = folder / FINDINGS_FILE
    findings = read_findings(findings_path) if findings_path.is_file() else []
    return ModelAuditData(folder=folder, summary=summary, item_stats=rows, findings=findings)


def _verdict_row(name: str, block: dict) -> dict:
    return {"name": name, **{k: block.get(k, 0) for k in VERDICTS},
            **{f"{k}_share": block.get(f"{k}_share")
               for k in ("text_answerable", "prior_answerable", "vision_required")}}


def _blind_items(data: ModelAuditData, items: dict[str, Item], limit: int) -> list[dict]:
    """Items the panel flags (text_answerable first), most blind hits first."""
    flagged = [r for r in data.item_stats if r.get("verdict") in FLAGGED]
    flagged.sort(key=lambda r: (FLAGGED.index(r["verdict"]),
                                -(r.get("blind_fraction") or 0.0), r["id"]))
    rows = []
    for r in flagged[:limit]:
        item = items.get(r["id"])
        runs = r.get("runs") or {}
        rows.append({"id": r["id"], "question": clipped(item.question) if item else None,
                     "capability": r.get("capability"), "verdict": r["verdict"],
                     "hits": r.get("blind_hits"), "n": r.get("blind_runs"),
                     "fraction": r.get("blind_fraction"), "chance": r.get("chance"),
                     "p_value": r.get("p_value"), "q_value": r.get("q_value"),
                     "vision_delta": r.get("vision_delta"),
                     "hit_runs": sorted(run for run, hit in runs.items() if hit),
                     "miss_runs": sorted(run for run, hit in runs.items() if not hit)})
    return rows


def _findings(data: ModelAuditData, items: dict[str, Item]) -> dict:
    """Counts per model check and the top findings (highest score first) of LISTED_CHECKS."""
    counts = data.summary.get("findings") or {}
    rows = [{"check": name, "items": c.get("items", 0), "error": c.get("error", 0),
             "warn": c.get("warn", 0), "info": c.get("info", 0)}
            for name, c in sorted(counts.items()) if isinstance(c, dict)]
    top = []
    for check in LISTED_CHECKS:
        found = sorted((f for f in data.findings if f.check == check),
                       key=lambda f: (-f.score, f.id))
        if found:
            top.append({"check": check, "total": len(found), "rows": [
                {"id": f.id, "severity": f.severity, "message": clipped(f.message),
                 "question": clipped(items[f.id].question) if f.id in items else None}
                for f in found[:TOP_FINDINGS]]})
    return {"counts": rows, "top": top}


def _level_rank(level: str) -> tuple[int, str]:
    """easy < medium < hard, unknown levels last (by name)."""
    order = DIFFICULTIES.index(level) if level in DIFFICULTIES else len(DIFFICULTIES)
    return order, level


def _difficulty(summary: dict) -> dict:
    block = summary.get("difficulty") or {}
    rows = [{"capability": cap, "level": level, **stats}
            for cap, levels in sorted((block.get("by_capability") or {}).items())
            for level, stats in sorted(levels.items(), key=lambda kv: _level_rank(kv[0]))]
    return {"rasch_fitted": bool(block.get("rasch_fitted")),
            "rasch_min_models": block.get("rasch_min_models"),
            "abilities": sorted((block.get("abilities") or {}).items()), "rows": rows}


def _error_layers(summary: dict) -> list[dict]:
    """Reviewer-labelled error layers per model, with both denominators (MMMU style)."""
    rows = []
    for model, block in sorted((summary.get("error_layers") or {}).items()):
        layers = [{"layer": name, **stats} for name, stats in block.get("layers", {}).items()
                  if stats.get("count")]
        rows.append({"model": model, "failures": block.get("failures"),
                     "items": block.get("items"), "labelled": block.get("labelled"),
                     "unlabelled": block.get("unlabelled_failures"), "layers": layers})
    return rows


def model_audit_view(data: ModelAuditData, items: dict[str, Item], limit: int,
                     runs: dict[str, str | None] | None = None) -> dict:
    """Every table of the "Model-based audit" section; `limit` caps the blind-hit items;
    `runs` (once.run_labels) shows a model's identical modes once in per-run tables."""
    labels = runs or {}
    summary = data.summary
    panel = summary["blind_panel"]
    flagged = sum(r.get("verdict") in FLAGGED for r in data.item_stats)
    sensitivity = summary.get("extraction_sensitivity") or {}
    return {
        "folder": data.folder.as_posix(),
        "items": summary.get("items", len(data.item_stats)),
        "models": summary.get("models", []),
        "blind_modes": summary.get("blind_modes", []),
        "verdicts": _verdict_row("all", panel.get("overall") or {}),
        "judged": panel.get("judged"),
        "verdicts_by_capability": [_verdict_row(cap, block) for cap, block in
                                   sorted((panel.get("by_capability") or {}).items())],
        "hits_by_run": merge_runs([{"run": run, **v} for run, v in
                                   sorted((panel.get("hits_by_run") or {}).items())], labels),
        "blind_items": _blind_items(data, items, limit),
        "blind_flagged": flagged,
        "findings": _findings(data, items),
        "difficulty": _difficulty(summary),
        "extraction": merge_runs([{"run": run, **v} for run, v in
                                  sorted((sensitivity.get("by_run") or {}).items())], labels),
        "extractor_dependent_items": sensitivity.get("extractor_dependent_items", 0),
        "error_layers": _error_layers(summary),
        "expansion": summary.get("answer_expansion") or {},
        "prior_templates": (summary.get("prior_by_template") or [])[:PRIOR_TEMPLATES],
        "prior_templates_total": len(summary.get("prior_by_template") or []),
        "first_screen": first_screen(data, items),
    }


def _queue_message(finding: Finding) -> str:
    """A suspect gold's votes against its gold (its rank, P(gold wrong) and q have their own
    columns); other findings: their message."""
    ev = finding.evidence
    if ev.get("rank") is None or ev.get("popular_answer") is None:
        return finding.message
    popular = ev["popular_answer"]
    votes = (ev.get("votes") or {}).get(popular)
    ratio = ev.get("likelihood_ratio")
    return (f"{votes}/{ev.get('panel')} models answer {popular!r}; gold is {ev.get('gold')}"
            + (f" (likelihood ratio {ratio:.3g})" if ratio is not None else ""))


def _review_list(data: ModelAuditData, items: dict[str, Item], check: str) -> dict:
    """One check's findings on the report's items: only statistical calls (warn/error) are
    listed, in queue rank (suspect golds) or lowest q first, and none when the check's
    expected false calls (calls × largest q) reach the number of calls: the page would list
    what it expects to be false."""
    found = sorted((f for f in data.findings if f.check == check and f.id in items),
                   key=lambda f: (f.evidence.get("rank") or 0, f.evidence.get("q_value", 1.0),
                                  f.id))
    calls = [f for f in found if f.severity != "info"]
    qs = [f.evidence.get("q_value") for f in calls]
    known = [float(q) for q in qs if q is not None]
    expected = len(calls) * max(known) if calls and len(known) == len(qs) else None
    listed = [] if expected is not None and expected >= len(calls) else calls
    rows = [{"id": f.id, "severity": f.severity, "message": clipped(_queue_message(f)),
             "q_value": f.evidence.get("q_value"), "rank": f.evidence.get("rank"),
             "posterior_wrong": f.evidence.get("posterior_wrong"),
             "question": clipped(items[f.id].question)}
            for f in listed[:FIRST_SCREEN_ITEMS]]
    return {"total": len(found), "calls": len(calls), "rows": rows,
            "ranked": any(r["rank"] is not None for r in rows),
            "expected_false": round(expected, 2) if expected is not None else None}


def _independent_groups(items: dict[str, Item]) -> dict[str, int] | None:
    """Prior group (the audit's `answer_group`) -> its independent clusters (questions about
    one image or scene count once); None when the audit's grouping is not importable."""
    try:
        from bench_kit.audit.results.chance import answer_group
    except ImportError:
        return None
    from bench_kit.report.statistics import cluster_of

    clusters: dict[str, set[str]] = {}
    for item in items.values():
        clusters.setdefault(answer_group(item), set()).add(cluster_of(item))
    return {group: len(members) for group, members in clusters.items()}


def first_screen(data: ModelAuditData, items: dict[str, Item]) -> dict:
    """The blind panel's verdicts on the report's items, the skewed templates (named, with
    their independent groups), the suspect golds and ambiguous items to review, and the
    expected false calls."""
    summary = data.summary
    # the verdicts of the report's own items (the audit may have covered more)
    overall = Counter(r.get("verdict") for r in data.item_stats if r.get("id") in items)
    judged = sum(overall.get(k, 0) for k in FLAGGED + ("vision_required",))
    shares = [{"verdict": k, "count": overall.get(k, 0),
               "share": overall.get(k, 0) / judged if judged else None}
              for k in ("vision_required", "text_answerable", "prior_answerable", "review")]
    groups = _independent_groups(items)
    skewed = [{**r, "groups": groups.get(r.get("group")) if groups else None}
              for r in summary.get("prior_by_template") or [] if r.get("skewed")]
    false_calls = [{"check": check, **block}
                   for check, block in sorted((summary.get("false_calls") or {}).items())]
    unjudged = [{"verdict": k, "count": overall[k], "why": why}
                for k, why in UNJUDGED.items() if overall.get(k)]
    label_tests = summary.get("label_tests") or {}
    queue = label_tests.get("review_queue")
    return {"judged": judged, "shares": shares, "unjudged": unjudged,
            "suspect_gold": _review_list(data, items, "label.suspect_gold"),
            "ambiguous": _review_list(data, items, "ambiguity.model_split"),
            "skewed_templates": skewed, "false_calls": false_calls,
            "review_queue": {**queue, "share": label_tests.get("suspect_gold_share")}
            if isinstance(queue, dict) else None,
            "thresholds": summary.get("thresholds") or {}}
