"""Reading the report's inputs: metrics, per-item scores, raw responses and audit findings.

Loading is kept apart from assembly (`report_view`) and rendering (`report`), so later
panels read the same `ReportInputs`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.artifacts import paths
from bench_kit.artifacts.predictions import load_predictions
from bench_kit.artifacts.tables import (
    read_audit_summary,
    read_findings,
    read_metrics,
    read_scores,
)
from bench_kit.errors import InputError, param
from bench_kit.items import read_items
from bench_kit.report.model_audit import ModelAuditData, load_model_audit
from bench_kit.types import MODES, Finding, Item, Prediction, Score


class ReportSettings(BaseModel):
    """The `report:` section of params.yaml."""

    model_config = ConfigDict(extra="forbid")

    worst_items: int = Field(10, ge=0, description="worst items listed per model and mode")
    flagged_items: int = Field(20, ge=0, description="audit-flagged items listed")
    response_chars: int = Field(500, ge=20, description="raw response shown, in characters")
    thumbnail_px: int = Field(96, ge=0, description="thumbnail edge in pixels; 0 = none")
    bootstrap_resamples: int = Field(1000, ge=100, description="bootstrap replicates per CI")
    seed: int = Field(0, description="seed of every bootstrap (byte-stable reports)")
    alpha: float = Field(0.05, gt=0, lt=1, description="significance level (Holm-corrected)")
    power: float = Field(0.8, gt=0, lt=1, description="power of the minimum detectable difference")
    plots: bool = Field(True, description="embed matplotlib SVG plots in report.html")


@dataclass(frozen=True)
class ModelRun:
    """One model's metrics, per-mode scores by id and (if given) per-mode predictions by id."""

    model: str
    metrics: dict
    scores: dict[str, dict[str, Score]]
    predictions: dict[str, dict[str, Prediction]] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)

    @property
    def modes(self) -> list[str]:
        """The modes this model was scored in, in canonical order."""
        return [m for m in MODES if m in self.scores]


@dataclass(frozen=True)
class AuditData:
    """Audit findings (`findings.jsonl`) and the audit's own `summary.json`, if any."""

    findings: list[Finding]
    summary: dict


@dataclass(frozen=True)
class ReportInputs:
    """Everything the report is built from."""

    bench: str
    items_path: Path
    items: list[Item]
    runs: list[ModelRun]
    audit: AuditData | None = None
    model_audit: ModelAuditData | None = None


def load_run(model: str, metrics_path: Path, scores_dir: Path,
             results_dir: Path | None) -> ModelRun:
    """Load one model's metrics JSON, scores folder and (optionally) results folder."""
    metrics = read_metrics(metrics_path, model)
    folder = scores_dir / model
    files = paths.mode_files(folder)
    if not files:
        raise InputError(f"no scores for model '{model}' (run `bench-kit eval score`)",
                         path=str(folder))
    scores = {mode: {s.id: s for s in read_scores(path)} for mode, path in files.items()}
    predictions: dict[str, dict[str, Prediction]] = {}
    calls: dict[str, int] = {}
    if results_dir is not None:
        result_files = paths.mode_files(results_dir / model)
        for mode in scores:
            if mode not in result_files:
                raise InputError(f"no {mode} predictions for model '{model}' (scored but "
                                 f"not in {param('results_dir')})", path=str(results_dir / model))
            rows = load_predictions(result_files[mode], model=model, mode=mode).predictions
            calls[mode] = len(rows)
            # CircularEval rows: show the response to the unrotated question (rotation 0).
            predictions[mode] = {p.id: p for p in sorted(rows, key=lambda p: -p.rotation)}
    return ModelRun(model=model, metrics=metrics, scores=scores, predictions=predictions,
                    calls=calls)


def load_audit(audit_dir: Path) -> AuditData:
    """Load `findings.jsonl` (required) and `summary.json` (optional) from an audit folder."""
    findings_path = audit_dir / paths.DATA_FINDINGS
    if not findings_path.is_file():
        raise InputError("no findings.jsonl (run `bench-kit audit` first)", path=str(audit_dir))
    summary_path = audit_dir / paths.DATA_SUMMARY
    summary = read_audit_summary(summary_path) if summary_path.is_file() else {}
    return AuditData(findings=read_findings(findings_path), summary=summary)


def load_inputs(items_path: str | Path, scores_dir: str | Path, metrics_dir: str | Path, *,
                results_dir: str | Path | None = None,
                audit_dir: str | Path | None = None,
                model_audit_dir: str | Path | None = None) -> ReportInputs:
    """Read every input of the report; models are the `<model>.json` files in `metrics_dir`.

    Raises:
        InputError: a folder or file is missing or has a bad row (named with its line).
    """
    metrics_dir, scores_dir = Path(metrics_dir), Path(scores_dir)
    for folder in (metrics_dir, scores_dir):
        if not folder.is_dir():
            raise InputError("folder not found", path=str(folder))
    metric_files = sorted(metrics_dir.glob("*.json"))
    if not metric_files:
        raise InputError("no <model>.json metrics files (run `bench-kit eval score`)",
                         path=str(metrics_dir))
    results = Path(results_dir) if results_dir is not None else None
    runs = [load_run(path.stem, path, scores_dir, results) for path in metric_files]
    items = read_items(items_path)
    known = {item.id for item in items}
    for run in runs:
        for mode, scores in run.scores.items():
            unknown = sorted(set(scores) - known)
            if unknown:
                raise InputError(f"scores of '{run.model}' ({mode}) for ids not in the items, "
                                 f"e.g. '{unknown[0]}' (scored against another items file?)",
                                 path=str(items_path))
    audit = load_audit(Path(audit_dir)) if audit_dir is not None else None
    model_audit = load_model_audit(model_audit_dir) if model_audit_dir is not None else None
    return ReportInputs(bench=scores_dir.name, items_path=Path(items_path), items=items,
                        runs=runs, audit=audit, model_audit=model_audit)

