"""Answerability of a generated items file (docs/AUTHORING.md, "Round-trip answerability").

For an items file built from the demo's annotations and templates: the round-trip oracle's
acceptance per variant kind and per template, the deixis variants that put a demonstrative
on an unmarked copy of their v0 image (not pointing at mc options), and the items the
kit's own audit flags warn+ for ambiguity or label. Run it on the items of two builds to
compare them (the before/after table of docs/AUTHORING.md):

    .venv/bin/python benchmarks/answerability.py datasets/demo/items.jsonl [--json]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
# A demonstrative that needs a referent in the image ("this object", "these objects",
# "这个物体", "这种颜色", "这上面"); "which of these" (mc options) is counted apart, and
# "this image/picture/chart/graphic", "这里" (here) point at the whole image.
DEMONSTRATIVE = re.compile(
    r"\b(?:this|these)\b(?!\s+(?:image|picture|chart|graphic)\b)|这(?!里)|那",
    re.IGNORECASE)
KINDS = ("synonym", "negation", "hypothetical", "deixis", "register", "irrelevant_premise")
OPTIONS = re.compile(r"\bwhich of these\b", re.IGNORECASE)


def measure(items_path: Path, annotations: Path, templates: Path, params_path: Path
            ) -> dict[str, Any]:
    """The numbers of one items file."""
    from bench_kit.authoring.answerability import AnswerabilityOracle
    from bench_kit.authoring.audit_gate import audit_flags
    from bench_kit.authoring.scenes import read_annotations
    from bench_kit.authoring.templates import load_taxonomy, load_templates
    from bench_kit.items import read_items
    from bench_kit.params import load_params

    params = load_params(params_path)
    specs = {s.id: s for s in load_templates(templates, load_taxonomy(params))}
    scenes = {s.scene: s for s in read_annotations(annotations)}
    items = read_items(items_path)
    by_id = {i.id: i for i in items}
    oracle = AnswerabilityOracle(specs, scenes)
    for item in items:
        oracle.judge(item)
    unmarked = 0
    deixis = [i for i in items if i.variant_kind == "deixis"]
    for item in deixis:
        base = by_id.get(item.variant_of or "")
        text = OPTIONS.sub("", item.question) if item.task == "mc" else item.question
        if base is not None and item.image == base.image and DEMONSTRATIVE.search(text):
            unmarked += 1
    flags = audit_flags(items, params, items_path.parent)
    checks = Counter(f.check for found in flags.values() for f in found)
    kinds: Counter = Counter()
    passed: Counter = Counter()
    templates_n: Counter = Counter()
    templates_ok: Counter = Counter()
    for row in oracle.rates():
        kinds[row["kind"]] += row["checked"]
        passed[row["kind"]] += row["passed"]
        templates_n[row["template"]] += row["checked"]
        templates_ok[row["template"]] += row["passed"]
    # acceptance per template and kind: accepted variants / v0 items of the template
    v0 = Counter(i.source.removeprefix("template:") for i in items if i.variant == "v0")
    accepted = Counter((i.source.removeprefix("template:"), i.variant_kind)
                       for i in items if i.variant != "v0")
    matrix = {t: {k: [accepted[(t, k)], n] for k in KINDS} for t, n in sorted(v0.items())}
    return {"items": len(items), "acceptance": matrix, "deixis": len(deixis), "deixis_unmarked": unmarked,
            "marked": sum(1 for i in deixis if i.meta.get("visual_prompt")),
            "flagged": len(flags), "flagged_by_check": dict(checks),
            "by_kind": {k: [passed[k], kinds[k]] for k in sorted(kinds)},
            "by_template": {t: [templates_ok[t], templates_n[t]] for t in sorted(templates_n)}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("items", type=Path)
    parser.add_argument("--annotations", type=Path,
                        default=REPO / "datasets/demo/annotations.jsonl")
    parser.add_argument("--templates", type=Path, default=REPO / "datasets/demo/templates.yaml")
    parser.add_argument("--params", type=Path, default=REPO / "params.yaml")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    out = measure(args.items, args.annotations, args.templates, args.params)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"items {out['items']}  deixis {out['deixis']}  marked {out['marked']}  "
          f"demonstrative on the unmarked v0 image {out['deixis_unmarked']}  "
          f"audit-flagged warn+ {out['flagged']} {out['flagged_by_check']}")
    print(f"{'kind':<24}{'answerable':>12}{'rate':>8}")
    for kind, (ok, n) in out["by_kind"].items():
        print(f"{kind:<24}{f'{ok}/{n}':>12}{ok / n:>8.1%}")
    print(f"{'template':<24}{'answerable':>12}{'rate':>8}")
    for name, (ok, n) in out["by_template"].items():
        print(f"{name:<24}{f'{ok}/{n}':>12}{ok / n:>8.1%}")
    print("accepted variants / v0 items, per template and kind (markdown):")
    print("| template | v0 | " + " | ".join(KINDS) + " |")
    print("|---|---:|" + "---:|" * len(KINDS))
    for name, row in out["acceptance"].items():
        n = row[KINDS[0]][1]
        cells = " | ".join(f"{row[k][0] / n:.0%}" for k in KINDS)
        print(f"| {name} | {n} | {cells} |")


if __name__ == "__main__":
    main()
