"""`bench-kit author generate`: templates x annotations -> items, a coverage table and the
quota check (DOMAIN §5.4); `coverage_of_file` reports the same for any items file."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bench_kit.authoring.quotas import QuotaParams, QuotaViolation, check_quotas, is_fresh
from bench_kit.authoring.scenes import read_annotations
from bench_kit.authoring.templates import (GenerateParams, generate_items, load_taxonomy,
                                           load_templates)
from bench_kit.io import write_jsonl
from bench_kit.items import read_items
from bench_kit.params import load_params, section
from bench_kit.types import DIFFICULTIES, LAYERS, TASKS, Item


def batch_of(item: Item) -> str:
    """The batch an item belongs to: its template id, else its whole `source`."""
    return item.source.removeprefix("template:")


@dataclass
class Coverage:
    """Item counts by capability x difficulty, template (batch), task, layer; fresh items."""

    taxonomy: dict[str, str]
    templates: list[str]
    by_capability: dict[str, Counter] = field(default_factory=dict)
    by_template: Counter = field(default_factory=Counter)
    by_task: Counter = field(default_factory=Counter)
    by_layer: Counter = field(default_factory=Counter)
    total: int = 0
    fresh: int = 0
    fresh_after: datetime | None = None

    @classmethod
    def of(cls, items: list[Item], taxonomy: dict[str, str], templates: list[str],
           fresh_after: datetime | None = None) -> "Coverage":
        """Count `items`; every taxonomy capability and template gets a row, even at zero."""
        cov = cls(taxonomy=taxonomy, templates=list(templates),
                  by_capability={c: Counter() for c in taxonomy}, fresh_after=fresh_after)
        for item in items:
            cov.by_capability.setdefault(item.capability, Counter())[item.difficulty] += 1
            cov.by_template[batch_of(item)] += 1
            cov.by_task[item.task] += 1
            cov.by_layer[item.layer] += 1
            cov.fresh += is_fresh(item.created_at, fresh_after)
        cov.templates += sorted(set(cov.by_template) - set(cov.templates))
        cov.total = len(items)
        return cov

    @property
    def missing_capabilities(self) -> list[str]:
        """Taxonomy capabilities with no item."""
        return [c for c, counts in self.by_capability.items() if not sum(counts.values())]

    def difficulty_shares(self) -> dict[str, float]:
        """Share of the items at each difficulty."""
        totals = Counter()
        for counts in self.by_capability.values():
            totals.update(counts)
        return {d: totals[d] / self.total if self.total else 0.0 for d in DIFFICULTIES}

    def as_dict(self) -> dict[str, Any]:
        """JSON form (`--format json`): plain counts and shares, stable keys."""
        return {
            "total": self.total,
            "capability": {c: {d: counts[d] for d in DIFFICULTIES}
                           for c, counts in self.by_capability.items()},
            "template": {t: self.by_template[t] for t in self.templates},
            "task": {t: self.by_task[t] for t in TASKS if self.by_task[t]},
            "layer": {layer: self.by_layer[layer] for layer in LAYERS},
            "difficulty_share": {d: round(v, 4) for d, v in self.difficulty_shares().items()},
            "fresh": self.fresh,
            "fresh_share": round(self.fresh / self.total, 4) if self.total else 0.0,
            "fresh_after": self.fresh_after,
            "missing_capabilities": self.missing_capabilities,
        }


@dataclass
class GenerateSummary:
    """What `run_generate` wrote and the quotas it broke."""

    out_path: Path
    coverage: Coverage
    violations: list[QuotaViolation] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """Coverage + violations as one JSON object."""
        return {"items": str(self.out_path), "coverage": self.coverage.as_dict(),
                "violations": [v.as_dict() for v in self.violations]}


def format_coverage(cov: Coverage) -> str:
    """The coverage tables as plain text (capability x difficulty, template, task, layer)."""
    width = max([len(c) for c in cov.by_capability] + [len(t) for t in cov.templates] + [10])
    head = f"{'capability':<{width}}" + "".join(f"{d:>8}" for d in DIFFICULTIES) + f"{'total':>8}"
    lines = [head, "-" * len(head)]
    for capability, counts in cov.by_capability.items():
        row = "".join(f"{counts[d]:>8}" for d in DIFFICULTIES)
        lines.append(f"{capability:<{width}}{row}{sum(counts.values()):>8}")
    shares = cov.difficulty_shares()
    lines.append(f"{'share':<{width}}" + "".join(f"{shares[d]:>8.1%}" for d in DIFFICULTIES))
    lines += ["", f"{'template':<{width}}{'items':>8}{'share':>8}", "-" * (width + 16)]
    for name in cov.templates:
        share = cov.by_template[name] / cov.total if cov.total else 0.0
        lines.append(f"{name:<{width}}{cov.by_template[name]:>8}{share:>8.1%}")
    lines.append("")
    lines.append("task:  " + "  ".join(f"{t} {cov.by_task[t]}" for t in TASKS if cov.by_task[t]))
    lines.append("layer: " + "  ".join(f"{layer} {cov.by_layer[layer]}" for layer in LAYERS))
    if cov.fresh_after is not None:
        share = cov.fresh / cov.total if cov.total else 0.0
        lines.append(f"fresh: {cov.fresh} items ({share:.1%}) created after "
                     f"{cov.fresh_after.isoformat().replace('+00:00', 'Z')}")
    lines.append(f"total: {cov.total} items")
    if cov.missing_capabilities:
        lines.append("no items for: " + ", ".join(cov.missing_capabilities))
    return "\n".join(lines)


def run_generate(params_path: str | Path, annotations: str | Path,
                 templates: str | Path | None, out: str | Path) -> GenerateSummary:
    """Fill the templates (default: params `generate.templates`) from the annotations, write
    the items atomically to `out` and check the quotas of `generate.quotas`.

    Items are written even when a quota is broken (the violations are returned; the CLI's
    `--strict` turns them into a failing exit); nothing is written when a template is bad.
    Item image paths are those of the annotations (relative to the annotations' folder), so
    `out` belongs in that folder.
    """
    params = load_params(params_path)
    settings = section(params, "generate", GenerateParams, source=str(params_path))
    taxonomy = load_taxonomy(params, source=str(params_path))
    specs = load_templates(templates or settings.templates, taxonomy)
    scenes = read_annotations(annotations)
    items = generate_items(scenes, specs, taxonomy, settings)
    write_jsonl(out, items)
    coverage = Coverage.of(items, taxonomy, [s.id for s in specs], settings.fresh_after)
    violations = check_quotas(coverage, settings.quotas, settings.fresh_after)
    return GenerateSummary(out_path=Path(out), coverage=coverage, violations=violations)


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
