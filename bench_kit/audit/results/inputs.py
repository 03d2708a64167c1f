"""Inputs of the model-based audits: settings, the score table of every model and mode."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict, Field, model_validator

from bench_kit.artifacts.paths import mode_file
from bench_kit.artifacts.tables import iter_scores
from bench_kit.audit.registry import SEVERITY_SCORE
from bench_kit.errors import InputError, param
from bench_kit.registry import Registry
from bench_kit.types import MODES, Finding, Item, Mode, Score, Severity

# modes whose runs form the blind panel unless `blind_modes` says otherwise
BLIND_MODES: tuple[Mode, ...] = ("no_image", "blank_image")


class ResultsAuditParams(BaseModel):
    """The `audit_results:` section of params.yaml (defaults follow docs/AUDIT_METHODS.md)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # model -> its text-only base model, for multi-modal leakage ML.
    base_models: dict[str, str] = Field(default_factory=dict)
    blind_modes: list[Mode] = Field(default_factory=lambda: list(BLIND_MODES))
    # Models that guess by construction: not members of the blind panel (no evidence).
    chance_models: list[str] = Field(default_factory=lambda: ["random"])
    # Panel members that are language models (besides those whose adapter in the
    # `models:` section is an API / ollama model), for the summary's "holds a language model".
    language_models: list[str] = Field(default_factory=list)
    # Blind-panel verdicts relative to chance (docs/MODEL_AUDITS.md, "Statistics").
    fdr: float = Field(0.05, gt=0.0, lt=1.0)           # BH level, redundancy verdicts
    text_answerable_gain: float = Field(0.4, ge=0.0, le=1.0)  # (f - chance) / (1 - chance)
    vision_required_p: float = Field(0.1, gt=0.0, lt=1.0)     # p above chance > this
    min_blind_runs: int = Field(3, ge=1)  # fewer answering panel models -> undetermined
    open_min_options: int = Field(4, ge=2)             # answer space floor, numeric/open
    prior_share: float = Field(0.7, gt=0.0, le=1.0)    # majority gold share of a template
    prior_min_items: int = Field(5, ge=2)
    # Source fields (in meta or meta.source) that group imported items for the prior.
    prior_group_fields: list[str] = Field(default_factory=lambda: ["skill", "category"])
    label_fdr: float = Field(0.1, gt=0.0, lt=1.0)      # BH level, suspect gold and split
    min_panel: int = Field(3, ge=1)
    split_share: float = Field(0.35, gt=0.0, le=0.5)
    suspect_gold: float = Field(0.6, gt=0.0, le=1.0)
    suspect_gold_error: float = Field(0.9, gt=0.0, le=1.0)
    rasch_min_models: int = Field(5, ge=2)
    mismatch_high: float = Field(0.9, ge=0.0, le=1.0)
    mismatch_low: float = Field(0.1, ge=0.0, le=1.0)
    expansion: bool = True
    expansion_threshold: float = Field(0.8, gt=0.0, le=1.0)

    @model_validator(mode="after")
    def _ordered(self) -> "ResultsAuditParams":
        if "image" in self.blind_modes:
            raise ValueError("blind_modes must not contain 'image'")
        return self


@dataclass(frozen=True)
class ScoreTable:
    """Every model's Score rows per mode, keyed by item id (error rows dropped).

    Attributes:
        items: the items the models were scored on, in file order.
        runs: (model, mode) -> item id -> Score, for the runs present.
        errors: (model, mode) -> number of error rows (failed requests) left out.
    """

    items: Sequence[Item]
    runs: Mapping[tuple[str, str], Mapping[str, Score]]
    errors: Mapping[tuple[str, str], int]

    @cached_property
    def by_id(self) -> dict[str, Item]:
        """Item id -> item."""
        return {item.id: item for item in self.items}

    @cached_property
    def models(self) -> list[str]:
        """Every model with at least one run, sorted."""
        return sorted({model for model, _ in self.runs})

    def modes_of(self, model: str) -> list[str]:
        """The modes `model` ran, in MODES order."""
        return [mode for mode in MODES if (model, mode) in self.runs]

    def run(self, model: str, mode: str) -> Mapping[str, Score]:
        """id -> Score of one run (empty when the run is absent)."""
        return self.runs.get((model, mode), {})

    def runs_in(self, modes: Iterable[str]) -> list[tuple[str, str]]:
        """The (model, mode) runs in any of `modes`, sorted by model then mode order."""
        wanted = set(modes)
        return sorted((key for key in self.runs if key[1] in wanted),
                      key=lambda key: (key[0], MODES.index(key[1])))


def read_score_table(items: Sequence[Item], scores_dir: str | Path) -> ScoreTable:
    """Read `scores_dir/<model>/<mode>.jsonl` for every model folder.

    Raises:
        InputError: the folder is missing or empty, a row is malformed, a row belongs to
            another model or mode, or names an id that is not among the items.
    """
    folder = Path(scores_dir)
    if not folder.is_dir():
        raise InputError("scores folder not found (run `bench-kit eval score` first)",
                         path=str(folder))
    known = {item.id for item in items}
    runs: dict[tuple[str, str], dict[str, Score]] = {}
    errors: dict[tuple[str, str], int] = {}
    for model_dir in sorted(p for p in folder.iterdir() if p.is_dir()):
        for mode in MODES:
            path = mode_file(model_dir, mode)
            if not path.is_file():
                continue
            rows: dict[str, Score] = {}
            failed = 0
            for line, score in iter_scores(path):
                if score.model != model_dir.name or score.mode != mode:
                    raise InputError(f"row of {score.model}/{score.mode} in the scores of "
                                     f"{model_dir.name}/{mode}", path=str(path), line=line)
                if score.id not in known:
                    raise InputError(f"id '{score.id}' is not among the items "
                                     f"(wrong {param('items')}?)",
                                     path=str(path), line=line, field="id")
                if score.error is not None:
                    failed += 1
                    continue
                rows[score.id] = score
            runs[(model_dir.name, mode)] = rows
            errors[(model_dir.name, mode)] = failed
    if not runs:
        raise InputError("no <model>/<mode>.jsonl score files", path=str(folder))
    return ScoreTable(items=list(items), runs=runs, errors=errors)


@dataclass(frozen=True)
class ModelCheck:
    """A model-based check: its name (`family.name`), default severity and description."""

    name: str
    severity: Severity
    description: str

    def finding(self, item_id: str, message: str, evidence: dict, *,
                severity: Severity | None = None, score: float | None = None) -> Finding:
        """A Finding of this check; score defaults to the severity's score."""
        severity = severity or self.severity
        value = SEVERITY_SCORE[severity] if score is None else min(1.0, max(0.0, score))
        return Finding(id=item_id, check=self.name, severity=severity, score=round(value, 4),
                       message=message, evidence=evidence)


# Kept apart from the data-audit registry so `bench-kit audit data` never runs these.
MODEL_CHECKS: Registry[ModelCheck] = Registry("model check")


def model_check(name: str, severity: Severity, description: str) -> ModelCheck:
    """Register and return a model-based check."""
    spec = ModelCheck(name=name, severity=severity, description=description)
    MODEL_CHECKS.register(name)(spec)
    return spec


def share(part: float, whole: float) -> float | None:
    """part / whole rounded to 4 places; None when whole is 0."""
    return round(part / whole, 4) if whole else None


def read_csv_rows(path: str | Path, required: Sequence[str],
                  hint: str = "") -> list[tuple[int, dict[str, str]]]:
    """(line, row) for each row of a reviewer CSV (UTF-8, BOM allowed), values stripped.

    Raises:
        InputError: the file is missing or lacks one of the `required` columns.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError as exc:
        raise InputError("file not found", path=str(path)) from exc
    reader = csv.DictReader(io.StringIO(text, newline=""))
    missing = [c for c in required if c not in (reader.fieldnames or [])]
    if missing:
        raise InputError(f"missing column(s) {missing}{hint}", path=str(path), line=1)
    return [(reader.line_num, {k: (v or "").strip() for k, v in row.items() if k is not None})
            for row in reader]
