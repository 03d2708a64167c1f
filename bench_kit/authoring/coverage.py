"""Coverage of an items set: counts by capability x difficulty, template, task, layer, the
fresh share and each template's gold answers — what the quotas check and `author coverage`
prints."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from bench_kit.types import DIFFICULTIES, LAYERS, TASKS, Item

# Tasks whose golds a blind model could learn from their distribution (grounding boxes and
# checklists are never one repeated value).
BALANCED_TASKS = ("mc", "yesno", "numeric", "open")


def is_fresh(created_at: datetime, fresh_after: datetime | None) -> bool:
    """Whether an item counts as fresh (created strictly after `fresh_after`)."""
    return fresh_after is not None and created_at > fresh_after


def batch_of(item: Item) -> str:
    """The batch an item belongs to: its template id, else its whole `source`."""
    return item.source.removeprefix("template:")


def gold_of(item: Item) -> str:
    """The answer a blind guesser would have to hit: the first gold, casefolded and stripped
    (for mc the letter; the option text is `gold_text`)."""
    return item.answers[0].strip().casefold() if item.answers else ""


@dataclass
class GoldTally:
    """The gold answers of one template (batch) and task.

    `golds` counts each item's gold (an mc item with several gold letters, e.g. a negation,
    spreads one count over them); `expected` is, per mc letter, the count a uniform
    position would give (1/n per item with n options), so templates whose items have
    different option counts are judged fairly. `families` are the distinct v0 items (a
    variant counts with its original): how many independent draws the shares rest on.
    """

    task: str
    items: int = 0
    golds: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    expected: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    families: set[str] = field(default_factory=set)

    def add(self, item: Item) -> None:
        """Count one item's gold."""
        self.items += 1
        self.families.add(item.variant_of or item.id)
        if self.task == "mc" and item.choices:
            letters = [a for a in item.answers if a in item.choices] or item.answers[:1]
            for letter in letters:
                self.golds[letter] += 1 / len(letters)
            for letter in item.choices:
                self.expected[letter] += 1 / len(item.choices)
        else:
            self.golds[gold_of(item)] += 1

    def majority(self) -> tuple[str, float]:
        """The most common gold and its share of the items ('' and 0.0 when empty)."""
        if not self.items:
            return "", 0.0
        gold, count = max(sorted(self.golds.items()), key=lambda kv: kv[1])
        return gold, count / self.items

    def letter_deviation(self) -> tuple[str, float]:
        """mc: the letter furthest from its uniform share, and the signed distance
        (observed share - uniform share)."""
        if not self.items or not self.expected:
            return "", 0.0
        letters = sorted(set(self.expected) | set(self.golds))
        gaps = {k: (self.golds.get(k, 0.0) - self.expected.get(k, 0.0)) / self.items
                for k in letters}
        worst = max(letters, key=lambda k: abs(gaps[k]))
        return worst, gaps[worst]


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
    gold: dict[tuple[str, str], GoldTally] = field(default_factory=dict)

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
            if item.task in BALANCED_TASKS:
                key = (batch_of(item), item.task)
                cov.gold.setdefault(key, GoldTally(item.task)).add(item)
        cov.templates += sorted(set(cov.by_template) - set(cov.templates))
        order = {t: k for k, t in enumerate(cov.templates)}
        cov.gold = dict(sorted(cov.gold.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])))
        cov.total = len(items)
        return cov

    @property
    def missing_capabilities(self) -> list[str]:
        """Taxonomy capabilities with no item."""
        return [c for c, counts in self.by_capability.items() if not sum(counts.values())]

    def difficulty_shares(self) -> dict[str, float]:
        """Share of the items at each difficulty."""
        totals: Counter[str] = Counter()
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
            "gold": [{"template": t, "task": task, "items": tally.items,
                      "majority": tally.majority()[0],
                      "majority_share": round(tally.majority()[1], 4)}
                     for (t, task), tally in self.gold.items()],
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
    # `top gold`: the share of the template's most common gold (mc: most common letter).
    tops: dict[str, float] = {}
    for (name, _), tally in cov.gold.items():
        tops[name] = max(tops.get(name, 0.0), tally.majority()[1])
    lines += ["", f"{'template':<{width}}{'items':>8}{'share':>8}{'top gold':>10}",
              "-" * (width + 26)]
    for name in cov.templates:
        share = cov.by_template[name] / cov.total if cov.total else 0.0
        top = f"{tops[name]:>10.0%}" if name in tops else ""
        lines.append(f"{name:<{width}}{cov.by_template[name]:>8}{share:>8.1%}{top}")
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
