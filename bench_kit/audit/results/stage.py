"""`bench-kit audit results`: every model-based audit over the scores of several models."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from bench_kit.audit.results.blind_panel import (
    BlindVerdict,
    blind_findings,
    blind_verdicts,
    verdict_counts,
    vision_gain,
)
from bench_kit.audit.results.difficulty import (
    difficulty_table,
    mismatch_findings,
    observed_difficulty,
)
from bench_kit.audit.results.disagreement import disagreement_findings
from bench_kit.audit.results.error_layers import (
    error_layer_distribution,
    read_error_layers,
)
from bench_kit.audit.results.expansion import (
    Encoder,
    answer_candidates,
    write_review_sheet,
)
from bench_kit.audit.results.inputs import (
    MODEL_CHECKS,
    ResultsAuditParams,
    ScoreTable,
    read_score_table,
    share,
)
from bench_kit.audit.results.robustness import robustness
from bench_kit.audit.results.sensitivity import extraction_sensitivity
from bench_kit.artifacts import paths
from bench_kit.artifacts.tables import write_audit_summary, write_item_stats
from bench_kit.io import write_json, write_jsonl
from bench_kit.items import read_items
from bench_kit.params import load_params, section
from bench_kit.types import FORMAT_VERSION, SEVERITIES, Finding

FINDINGS_FILE = paths.MODEL_FINDINGS
SUMMARY_FILE = paths.MODEL_SUMMARY
ITEMS_FILE = paths.ITEM_STATS
SHEET_FILE = paths.ANSWER_SHEET


@dataclass(frozen=True)
class ResultsAudit:
    """What `audit_results` wrote."""

    out_dir: Path
    summary: dict
    findings: list[Finding]


def _vision_delta(table: ScoreTable, item_id: str) -> float | None:
    """Accuracy with image − without over the models that ran both (DOMAIN §5.1's Δ)."""
    pairs = [(table.run(m, "image")[item_id].hit, table.run(m, "no_image")[item_id].hit)
             for m in table.models
             if item_id in table.run(m, "image") and item_id in table.run(m, "no_image")]
    if not pairs:
        return None
    return round(sum(a for a, _ in pairs) / len(pairs) - sum(b for _, b in pairs) / len(pairs), 4)


def item_rows(table: ScoreTable, verdicts: dict[str, BlindVerdict], observed: dict) -> list[dict]:
    """One row per item: blind-panel result, vision necessity Δ and observed difficulty."""
    rows = []
    for item in table.items:
        v, o = verdicts[item.id], observed["items"][item.id]
        rows.append({"id": item.id, "capability": item.capability, "task": item.task,
                     "difficulty": item.difficulty, "verdict": v.verdict,
                     "blind_hits": v.hits, "blind_runs": v.n, "blind_fraction": v.fraction,
                     "chance": v.chance, "p_value": v.p_value, "runs": v.runs,
                     "vision_delta": _vision_delta(table, item.id),
                     "accuracy": o["accuracy"], "n_models": o["n_models"],
                     "rasch_difficulty": o.get("rasch_difficulty")})
    return rows


def finding_counts(findings: Sequence[Finding]) -> dict:
    """Per model check: findings per severity and items (every registered check listed)."""
    counts = {name: {**{s: 0 for s in SEVERITIES}, "items": 0} for name in MODEL_CHECKS.names()}
    for finding in findings:
        counts[finding.check][finding.severity] += 1
        counts[finding.check]["items"] += 1
    return counts


def model_audit_metrics(summary: dict) -> dict:
    """The compact DVC metrics document: MG/ML per model, verdict counts, finding counts."""
    return {
        "format_version": FORMAT_VERSION,
        "models": {model: {"mg": g["mg"], "mg_blank": g["mg_blank"], "ml": g["ml"],
                           "base_model": g["base_model"],
                           "by_capability": g["by_capability"]}
                   for model, g in summary["vision_gain"].items()},
        "blind_panel": summary["blind_panel"]["overall"],
        "findings": {name: c["items"] for name, c in summary["findings"].items()},
        "extractor_dependent_items": summary["extraction_sensitivity"]["extractor_dependent_items"],
    }


def audit_results(items_path: str | Path, scores_dir: str | Path, out_dir: str | Path, *,
                  params_path: str | Path = "params.yaml", metrics_path: str | Path | None = None,
                  error_layers_path: str | Path | None = None,
                  encode: Encoder | None = None) -> ResultsAudit:
    """Run every model-based audit and write the findings, summary and per-item table.

    Args:
        items_path: the items (split) file the models were scored on.
        scores_dir: `scores/<bench>`, holding `<model>/<mode>.jsonl` Score rows.
        out_dir: folder for model_findings.jsonl, model_summary.json, item_stats.jsonl and
            answer_candidates.csv (all written atomically).
        params_path: params.yaml with the `audit_results:` section.
        metrics_path: optional compact metrics JSON for `dvc metrics`.
        error_layers_path: optional error-layers JSONL (`bench-kit audit import-error-layers`).
        encode: text -> unit vectors for answer expansion (default: the bundled encoder).
    """
    params = section(load_params(params_path), "audit_results", ResultsAuditParams,
                     source=str(params_path))
    items = read_items(items_path)
    table = read_score_table(items, scores_dir)
    verdicts = blind_verdicts(table, params)
    observed = observed_difficulty(table, params)
    findings = [*blind_findings(verdicts), *disagreement_findings(table, params),
                *mismatch_findings(table, observed, params)]
    findings.sort(key=lambda f: (f.id, f.check))
    candidates = answer_candidates(table, params.expansion_threshold, encode=encode) \
        if params.expansion else []
    labels = read_error_layers(error_layers_path) if error_layers_path else []
    summary = {
        "format_version": FORMAT_VERSION,
        "items": len(items),
        "models": table.models,
        "runs": {f"{m}/{mode}": {"scored": len(table.run(m, mode)), "errors": table.errors[(m, mode)]}
                 for m, mode in table.runs_in(("image", "no_image", "blank_image"))},
        "blind_modes": list(params.blind_modes),
        "blind_panel": verdict_counts(verdicts, items),
        "vision_gain": vision_gain(table, params),
        "findings": finding_counts(findings),
        "flagged_items": len({f.id for f in findings if f.severity != "info"}),
        "difficulty": {"rasch_fitted": observed["rasch_fitted"],
                       "rasch_min_models": params.rasch_min_models,
                       "abilities": observed["abilities"],
                       "by_capability": difficulty_table(table, observed)},
        "robustness": robustness(table),
        "extraction_sensitivity": extraction_sensitivity(table),
        "error_layers": error_layer_distribution(table, labels) if labels else None,
        "answer_expansion": {"enabled": params.expansion,
                             "threshold": params.expansion_threshold,
                             "candidates": len(candidates),
                             "items": len({row["id"] for row in candidates}),
                             "sheet": SHEET_FILE},
    }
    summary["blind_panel"]["hits_by_run"] = _blind_hits_by_run(verdicts)
    out = Path(out_dir)
    write_jsonl(out / FINDINGS_FILE, findings)
    write_item_stats(out / ITEMS_FILE, item_rows(table, verdicts, observed))
    write_review_sheet(out / SHEET_FILE, candidates)
    write_audit_summary(out / SUMMARY_FILE, summary)
    if metrics_path is not None:
        write_json(metrics_path, model_audit_metrics(summary))
    return ResultsAudit(out_dir=out, summary=summary, findings=findings)


def _blind_hits_by_run(verdicts: dict[str, BlindVerdict]) -> dict[str, dict]:
    """Per blind run: items scored, blind hits and their share (the per-item hits are in
    item_stats.jsonl)."""
    hits: Counter = Counter()
    runs: Counter = Counter()
    for v in verdicts.values():
        for run, hit in v.runs.items():
            runs[run] += 1
            hits[run] += hit
    return {run: {"items": runs[run], "hits": hits[run], "share": share(hits[run], runs[run])}
            for run in sorted(runs)}
