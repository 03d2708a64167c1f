"""Coverage of an items set: counts by capability x difficulty, template, task, layer and
the fresh share — what the quotas check and `author coverage` prints."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bench_kit.types import DIFFICULTIES, LAYERS, TASKS, Item


def is_fresh(created_at: datetime, fresh_after: datetime | None) -> bool:
    """Whether an item counts as fresh (created strictly after `fresh_after`)."""
    return fresh_after is not None and created_at > fresh_after


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
