"""`bench-kit author generate`: templates x annotations -> items.jsonl, plus a coverage table."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from bench_kit.authoring.scenes import read_annotations
from bench_kit.authoring.templates import (GenerateParams, generate_items, load_taxonomy,
                                           load_templates)
from bench_kit.io import write_jsonl
from bench_kit.params import load_params, section
from bench_kit.types import DIFFICULTIES, LAYERS, TASKS, Item


@dataclass
class Coverage:
    """Item counts by capability x difficulty, template, task and layer."""

    taxonomy: dict[str, str]
    templates: list[str]
    by_capability: dict[str, Counter] = field(default_factory=dict)
    by_template: Counter = field(default_factory=Counter)
    by_task: Counter = field(default_factory=Counter)
    by_layer: Counter = field(default_factory=Counter)
    total: int = 0

    @classmethod
    def of(cls, items: list[Item], taxonomy: dict[str, str], templates: list[str]) -> "Coverage":
        """Count `items`; every taxonomy capability and template gets a row, even at zero."""
        cov = cls(taxonomy=taxonomy, templates=templates,
                  by_capability={c: Counter() for c in taxonomy})
        for item in items:
            cov.by_capability.setdefault(item.capability, Counter())[item.difficulty] += 1
            cov.by_template[item.source.removeprefix("template:")] += 1
            cov.by_task[item.task] += 1
            cov.by_layer[item.layer] += 1
        cov.total = len(items)
        return cov

    @property
    def missing_capabilities(self) -> list[str]:
        """Taxonomy capabilities with no item."""
        return [c for c, counts in self.by_capability.items() if not sum(counts.values())]


@dataclass
class GenerateSummary:
    """What `run_generate` wrote."""

    out_path: Path
    coverage: Coverage


def format_coverage(cov: Coverage) -> str:
    """The coverage tables as plain text (capability x difficulty, template, task, layer)."""
    width = max([len(c) for c in cov.by_capability] + [len(t) for t in cov.templates] + [10])
    head = f"{'capability':<{width}}" + "".join(f"{d:>8}" for d in DIFFICULTIES) + f"{'total':>8}"
    lines = [head, "-" * len(head)]
    for capability, counts in cov.by_capability.items():
        row = "".join(f"{counts[d]:>8}" for d in DIFFICULTIES)
        lines.append(f"{capability:<{width}}{row}{sum(counts.values()):>8}")
    lines += ["", f"{'template':<{width}}{'items':>8}{'share':>8}", "-" * (width + 16)]
    for name in cov.templates:
        share = cov.by_template[name] / cov.total if cov.total else 0.0
        lines.append(f"{name:<{width}}{cov.by_template[name]:>8}{share:>8.1%}")
    lines.append("")
    lines.append("task:  " + "  ".join(f"{t} {cov.by_task[t]}" for t in TASKS if cov.by_task[t]))
    lines.append("layer: " + "  ".join(f"{layer} {cov.by_layer[layer]}" for layer in LAYERS))
    lines.append(f"total: {cov.total} items")
    if cov.missing_capabilities:
        lines.append("no items for: " + ", ".join(cov.missing_capabilities))
    return "\n".join(lines)


def run_generate(params_path: str | Path, annotations: str | Path,
                 templates: str | Path | None, out: str | Path) -> GenerateSummary:
    """Fill the templates (default: params `generate.templates`) from the annotations and
    write the items atomically to `out`; nothing is written when a template is bad.

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
    coverage = Coverage.of(items, taxonomy, [s.id for s in specs])
    return GenerateSummary(out_path=Path(out), coverage=coverage)
