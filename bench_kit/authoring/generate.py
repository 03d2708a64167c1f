"""`bench-kit author generate`: templates x annotations -> items, a coverage table and the
quota check (docs/AUTHORING.md#1-templates-and-coverage-quotas); `coverage_of_file` reports
the same for any items file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench_kit.authoring.audit_gate import gate_generated
from bench_kit.authoring.coverage import Coverage, batch_of, format_coverage
from bench_kit.authoring.quotas import QuotaParams, QuotaViolation, check_quotas
from bench_kit.authoring.scenes import read_annotations
from bench_kit.authoring.templates import (
    GenerateParams,
    generate_items,
    load_taxonomy,
    load_templates,
)
from bench_kit.io import write_jsonl
from bench_kit.items import read_items
from bench_kit.params import load_params, section


@dataclass
class GenerateSummary:
    """What `run_generate` wrote and the quotas it broke."""

    out_path: Path
    coverage: Coverage
    violations: list[QuotaViolation] = field(default_factory=list)
    rejected: int = 0
    answerability: list[dict[str, Any]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Coverage + violations as one JSON object."""
        return {"items": str(self.out_path), "coverage": self.coverage.as_dict(),
                "violations": [v.as_dict() for v in self.violations],
                "rejected": self.rejected, "answerability": self.answerability}


def run_generate(params_path: str | Path, annotations: str | Path,
                 templates: str | Path | None, out: str | Path,
                 rejects: str | Path | None = None, keep_flagged: bool = False
                 ) -> GenerateSummary:
    """Fill the templates (default: params `generate.templates`) from the annotations, write
    the items atomically to `out` and check the quotas of `generate.quotas`.

    Items are written even when a quota is broken (the violations are returned; the CLI's
    `--strict` turns them into a failing exit); nothing is written when a template is bad.
    Item image paths are those of the annotations (relative to the annotations' folder), so
    `out` belongs in that folder. With `rejects`, the gate runs first: items the
    round-trip answerability oracle cannot answer with their gold, and (unless
    `keep_flagged`) items the audit's ambiguity/label checks flag warn+, go there instead.
    """
    params = load_params(params_path)
    settings = section(params, "generate", GenerateParams, source=str(params_path))
    taxonomy = load_taxonomy(params, source=str(params_path))
    specs = load_templates(templates or settings.templates, taxonomy)
    scenes = read_annotations(annotations)
    items = generate_items(scenes, specs, taxonomy, settings)
    gated = None
    if rejects is not None:
        gated = gate_generated(items, specs, scenes, params, Path(out).parent,
                               str(params_path), keep_flagged)
        items = gated.items
        write_jsonl(rejects, gated.rejects)
    write_jsonl(out, items)
    coverage = Coverage.of(items, taxonomy, [s.id for s in specs], settings.fresh_after)
    violations = check_quotas(coverage, settings.quotas, settings.fresh_after)
    return GenerateSummary(out_path=Path(out), coverage=coverage, violations=violations,
                           rejected=len(gated.rejects) if gated else 0,
                           answerability=gated.rates if gated else [])


def coverage_of_file(params_path: str | Path, items_path: str | Path) -> GenerateSummary:
    """Coverage and quota check of an existing items file (e.g. v0 + variants, imports)."""
    params = load_params(params_path)
    settings = section(params, "generate", GenerateParams, source=str(params_path))
    taxonomy = load_taxonomy(params, source=str(params_path))
    items = read_items(items_path)
    coverage = Coverage.of(items, taxonomy, [], settings.fresh_after)
    violations = check_quotas(coverage, settings.quotas, settings.fresh_after)
    return GenerateSummary(out_path=Path(items_path), coverage=coverage, violations=violations)


__all__ = ["Coverage", "GenerateSummary", "QuotaParams", "batch_of", "coverage_of_file",
           "format_coverage", "run_generate"]
