"""`bench-kit audit results`: every model-based audit over the scores of several models."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

from bench_kit.artifacts import paths
from bench_kit.artifacts.tables import write_audit_summary, write_item_stats
from bench_kit.audit.results.blind_panel import (
    BlindVerdict,
    blind_findings,
    blind_verdicts,
    panel_summary,
    verdict_counts,
    vision_gain,
)
from bench_kit.audit.results.chance import (
    PriorVerdict,
    prior_by_template,
    prior_findings,
    prior_groups,
    prior_verdicts,
)
from bench_kit.audit.results.difficulty import (
    difficulty_table,
    mismatch_findings,
    observed_difficulty,
)
from bench_kit.audit.results.disagreement import (
    disagreement_findings,
    gold_reviews,
    label_tests_summary,
)
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
from bench_kit.audit.results.significance import false_call_bound
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
    """Accuracy with image − without over the models that ran both (the vision gain Δ,
    docs/AUDIT_METHODS.md#vision-gain)."""
    pairs = [(table.run(m, "image")[item_id].hit, table.run(m, "no_image")[item_id].hit)
             for m in table.models
             if item_id in table.run(m, "image") and item_id in table.run(m, "no_image")]
    if not pairs:
        return None
    return round(sum(a for a, _ in pairs) / len(pairs) - sum(b for _, b in pairs) / len(pairs), 4)


def item_rows(table: ScoreTable, verdicts: dict[str, BlindVerdict], observed: dict,
              prior: dict[str, PriorVerdict] | None = None) -> list[dict]:
    """One row per item: blind-panel result, prior test, vision necessity Δ and observed
    difficulty."""
    rows = []
    for item in table.items:
        v, o = verdicts[item.id], observed["items"][item.id]
        p = prior.get(item.id) if prior else None
        rows.append({"id": item.id, "capability": item.capability, "task": item.task,
                     "difficulty": item.difficulty, "verdict": v.verdict,
                     "blind_hits": v.hits, "blind_runs": v.n, "blind_fraction": v.fraction,
                     "chance": v.chance, "gain": v.gain, "p_value": v.p_value,
                     "q_value": v.q_value, "parse_failed": v.parse_failed, "runs": v.runs,
                     "blind_ties": v.ties, "members": v.members,
                     "panel_needed": v.panel_needed,
                     "vision_delta": _vision_delta(table, item.id),
                     "accuracy": o["accuracy"], "n_models": o["n_models"],
                     "rasch_difficulty": o.get("rasch_difficulty"),
                     "prior_share": p.group.share if p and p.majority_gold else None,
                     "prior_p_value": p.p_value if p else None,
                     "prior_q_value": p.q_value if p else None})
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


def load_audit_params(params_path: str | Path | None,
                      base_models: Mapping[str, str] | None = None) -> ResultsAuditParams:
    """The `audit_results:` settings: params.yaml's section (defaults when `params_path` is
    None), with `base_models` pairs added on top (e.g. from `--base-model VL=LM`)."""
    data = load_params(params_path) if params_path is not None else {}
    params = section(data, "audit_results", ResultsAuditParams, source=str(params_path))
    if base_models:
        params = params.model_copy(update={"base_models": {**params.base_models,
                                                           **base_models}})
    return params


def false_calls(findings: Sequence[Finding]) -> dict:
    """Per statistical check: calls, the largest q among them, and the bound on the expected
    number of false calls (calls × max q; Benjamini–Hochberg)."""
    out = {}
    for check in ("redundancy.text_answerable", "redundancy.prior_answerable",
                  "label.suspect_gold", "ambiguity.model_split"):
        qs = [f.evidence["q_value"] for f in findings if f.check == check]
        out[check] = {"calls": len(qs), "max_q": max(qs) if qs else None,
                      "expected_false_at_most": false_call_bound(qs)}
    return out


def language_models(raw_params: dict, params: ResultsAuditParams) -> list[str]:
    """Models that are language models: `language_models` in params, and every model of
    the `models:` section whose adapter is not an in-process baseline (random, prior,
    text-only, ocr: bench_kit.models.adapters.local_common.LocalAdapter)."""
    from bench_kit.models.adapters import ADAPTERS
    from bench_kit.models.adapters.local_common import LocalAdapter

    found = set(params.language_models)
    for name, config in (raw_params.get("models") or {}).items():
        adapter = config.get("adapter") if isinstance(config, dict) else None
        if adapter in ADAPTERS.names():
            factory = ADAPTERS.get(adapter)
            if not (isinstance(factory, type) and issubclass(factory, LocalAdapter)):
                found.add(str(name))
    return sorted(found)


def audit_results(items_path: str | Path, scores_dir: str | Path, out_dir: str | Path, *,
                  params_path: str | Path | None = "params.yaml",
                  metrics_path: str | Path | None = None,
                  error_layers_path: str | Path | None = None,
                  encode: Encoder | None = None,
                  base_models: Mapping[str, str] | None = None,
                  prior_items_path: str | Path | None = None) -> ResultsAudit:
    """Run every model-based audit and write the findings, summary and per-item table.

    Args:
        items_path: the items (split) file the models were scored on.
        scores_dir: `scores/<bench>`, holding `<model>/<mode>.jsonl` Score rows.
        out_dir: folder for model_findings.jsonl, model_summary.json, item_stats.jsonl and
            answer_candidates.csv (all written atomically).
        params_path: params.yaml with the `audit_results:` section; None: the defaults.
        metrics_path: optional compact metrics JSON for `dvc metrics`.
        error_layers_path: optional error-layers JSONL (`bench-kit audit import-error-layers`).
        encode: text -> unit vectors for answer expansion (default: the bundled encoder).
        base_models: model -> text-only base model, added to params' `base_models`.
        prior_items_path: items whose golds are the answer prior (e.g. the train or dev
            split); None: the audited items.
    """
    params = load_audit_params(params_path, base_models)
    raw_params = load_params(params_path) if params_path is not None else {}
    items = read_items(items_path)
    table = read_score_table(items, scores_dir)
    prior_items = read_items(prior_items_path) if prior_items_path is not None else None
    prior = prior_verdicts(items, params, prior_items)
    verdicts = blind_verdicts(table, params, prior)
    observed = observed_difficulty(table, params)
    reviews = gold_reviews(table, params)
    findings = [*blind_findings(verdicts), *prior_findings(prior, verdicts),
                *disagreement_findings(table, params, reviews),
                *mismatch_findings(table, observed, params)]
    findings.sort(key=lambda f: (f.id, f.check))
    if encode is None and params.expansion:
        from bench_kit.embed import embedder_from_params

        encode = embedder_from_params(raw_params, str(params_path)).encode
    candidates = answer_candidates(table, params.expansion_threshold, encode=encode) \
        if params.expansion else []
    labels = read_error_layers(error_layers_path) if error_layers_path else []
    summary: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "items": len(items),
        "models": table.models,
        "runs": {f"{m}/{mode}": {"scored": len(table.run(m, mode)), "errors": table.errors[(m, mode)]}
                 for m, mode in table.runs_in(("image", "no_image", "blank_image"))},
        "blind_modes": list(params.blind_modes),
        "prior_items": str(prior_items_path) if prior_items_path is not None else None,
        "blind_panel": verdict_counts(verdicts, items),
        "panel": panel_summary(table, params, verdicts, language_models(raw_params, params)),
        "thresholds": {"fdr": params.fdr, "text_answerable_gain": params.text_answerable_gain,
                       "vision_required_p": params.vision_required_p,
                       "min_blind_runs": params.min_blind_runs,
                       "chance_models": list(params.chance_models),
                       "prior_share": params.prior_share,
                       "open_min_options": params.open_min_options},
        "prior_by_template": prior_by_template(prior_groups(items, params, prior_items),
                                               verdicts, items,
                                               params),
        "label_tests": label_tests_summary(params, table, reviews, findings),
        "false_calls": false_calls(findings),
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
    write_item_stats(out / ITEMS_FILE, item_rows(table, verdicts, observed, prior))
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
