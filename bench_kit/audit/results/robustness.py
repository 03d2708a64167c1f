"""Variant robustness (docs/AUDIT_METHODS.md#variant-robustness): does a model that answers
v0 also answer its rewrites?

A family is a v0 item and the items whose `variant_of` names it. Per model (image run):
consistency = every member of a family right; flip rate = variants whose hit differs from
v0's; and per variant kind the accuracy gap v0 − variant over the families having that kind
(deixis split into marked-region and other, `robustness_kind`).
"""

from __future__ import annotations

from collections import defaultdict

from bench_kit.audit.results.inputs import ScoreTable, share
from bench_kit.types import robustness_kind


def variant_families(table: ScoreTable) -> dict[str, list[str]]:
    """v0 id -> ids of its variants (file order), for v0 items present among the items."""
    families: dict[str, list[str]] = defaultdict(list)
    for item in table.items:
        if item.variant_of and item.variant_of in table.by_id:
            families[item.variant_of].append(item.id)
    return {root: families[root] for root in sorted(families)}


def robustness(table: ScoreTable, mode: str = "image") -> dict:
    """Per model: consistency, flip rate and the v0 − variant accuracy gap per variant kind;
    plus one row per family and model. Empty when no item has `variant_of`."""
    families = variant_families(table)
    out: dict = {"families": len(families), "by_model": {}, "rows": []}
    if not families:
        return out
    for model in table.models:
        run = table.run(model, mode)
        if not run:
            continue
        consistent = scored = flips = variants = 0
        kinds: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
        for root, members in families.items():
            if root not in run:
                continue
            present = [m for m in members if m in run]
            if not present:
                continue
            base = run[root].hit
            hits = {m: run[m].hit for m in present}
            family_flips = sum(hit != base for hit in hits.values())
            scored += 1
            consistent += base and all(hits.values())
            flips += family_flips
            variants += len(present)
            for member in present:
                kinds[robustness_kind(table.by_id[member])].append((base, hits[member]))
            out["rows"].append({"family": root, "model": model, "v0_hit": base,
                                "consistent": base and all(hits.values()),
                                "flips": family_flips, "variants": len(present)})
        by_kind = {}
        for kind in sorted(kinds):
            pairs = kinds[kind]
            v0_acc = share(sum(b for b, _ in pairs), len(pairs))
            var_acc = share(sum(v for _, v in pairs), len(pairs))
            by_kind[kind] = {"n": len(pairs), "v0_accuracy": v0_acc, "accuracy": var_acc,
                             "gap": None if v0_acc is None or var_acc is None
                             else round(v0_acc - var_acc, 4)}
        out["by_model"][model] = {"families": scored, "consistency": share(consistent, scored),
                                  "flip_rate": share(flips, variants), "by_variant_kind": by_kind}
    return out
