"""Defects a reviewer flags in generated items, counted per build (docs/AUTHORING.md,
"What a reviewer flagged, before and after").

For a build folder holding annotations.jsonl, templates.yaml, items.jsonl and
variant_rejects.jsonl (the demo's, or a copy built by `bench-kit author scenes / generate /
variants`), counted from the annotations and the item text, not by the rules that wrote them:

- items per variant kind;
- counterfactuals that answer themselves: the condition removes the last object of a
  category the question asks about (or any object of it, in a yes/no "is there" question);
- "hypothetical" items whose gold the condition does not change (an irrelevant premise
  filed as a counterfactual), conditions not in the conditional mood, and premises that
  remove part of the category asked about yet leave the gold (subsumed, not irrelevant);
- mc negations with more than one right option, checked against the scene's objects;
- square/rectangle ambiguity: a question about rectangles in a scene with a square of that
  colour, or shape options offering both when the gold is the square;
- stilted rewrites ("What number of", "a greater number of", "the majority of shapes",
  "Please answer the following question." before a command, "为何" for "what");
- reject rows missing the original question, options, similarity or edit ratio.

    .venv/bin/python benchmarks/item_defects.py BUILD_DIR [BUILD_DIR ...] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
STILTED = re.compile(r"What number of|a greater number of|the majority of shapes|"
                     r"Please answer the following question\. (?:Give|Provide)|为何")
CONDITIONAL = re.compile(r"\bwould\b|会")
REJECT_FIELDS = ("original", "original_choices", "similarity", "edit_ratio")


def _asked(source: Any) -> list[tuple[str | None, str | None]]:
    args = source.args()
    return [(args.get(f"{p}colour"), args.get(f"{p}shape")) for p in ("", "a_", "b_")
            if args.get(f"{p}colour") or args.get(f"{p}shape")]


def _self_answering(item: Any, source: Any, scene: Any) -> bool:
    from bench_kit.authoring.solvers import matching

    change = (item.meta.get("variant") or {}).get("change", "")
    if not change.startswith("remove:") or "-" not in change:
        return False
    colour, shape = change.removeprefix("remove:").split("-")
    removed = len(matching(scene, colour, shape))
    for asked_colour, asked_shape in _asked(source):
        if asked_colour not in (None, colour) or asked_shape not in (None, shape):
            continue
        if source.spec.gold.solver == "object_present":
            return True
        if len(matching(scene, asked_colour, asked_shape)) == 1 and removed == 1:
            return True
    return False


def _touches(item: Any, source: Any) -> bool:
    change = (item.meta.get("variant") or {}).get("change", "")
    if not change.startswith("remove:") or "-" not in change:
        return False
    colour, shape = change.removeprefix("remove:").split("-")
    return any(c in (None, colour) and s in (None, shape) for c, s in _asked(source))


def _square_rectangle(item: Any, source: Any, scene: Any) -> bool:
    from bench_kit.authoring.solvers import matching

    for colour, shape in _asked(source):
        if shape == "rectangle" and matching(scene, colour, "square"):
            return True
    options = set((item.choices or {}).values())
    golds = {(item.choices or {}).get(a) for a in item.answers}
    if ({"square", "rectangle"} <= options and "square" in golds) or \
            ({"正方形", "长方形"} <= options and "正方形" in golds):
        return True
    for text in options:
        parts = text.split(" ")
        if len(parts) == 2 and parts[1] == "rectangle" and matching(scene, parts[0], "square"):
            return True
    return False


def measure(build: Path) -> dict[str, Any]:
    """The defect counts of one build folder."""
    from bench_kit.authoring import counterfactual as cf
    from bench_kit.authoring.scenes import read_annotations
    from bench_kit.authoring.templates import load_taxonomy, load_templates
    from bench_kit.io import read_jsonl
    from bench_kit.items import read_items
    from bench_kit.params import load_params

    taxonomy = load_taxonomy(load_params(REPO / "params.yaml"))
    specs = {s.id: s for s in load_templates(build / "templates.yaml", taxonomy)}
    scenes = {s.scene: s for s in read_annotations(build / "annotations.jsonl")}
    items = read_items(build / "items.jsonl")
    by_id = {i.id: i for i in items}
    out: Counter = Counter()
    kinds: Counter = Counter(i.variant_kind for i in items)
    for item in items:
        base = by_id.get(item.variant_of or "", item)
        source = cf.find_source(base, specs, scenes)
        if isinstance(source, cf.Skip):
            continue
        scene = scenes[base.group or ""]
        if item.variant_kind in ("hypothetical", "irrelevant_premise"):
            out[f"{item.variant_kind}: answers itself"] += _self_answering(item, source, scene)
            clause = re.split(r"[,，]", item.question, maxsplit=1)[-1]
            out[f"{item.variant_kind}: not conditional"] += not CONDITIONAL.search(clause)
            if item.variant_kind == "hypothetical":
                out["hypothetical: gold unchanged"] += item.answers == base.answers
            out[f"{item.variant_kind}: premise about the asked category, gold unchanged"] += \
                item.answers == base.answers and _touches(item, source)
        if item.variant_kind == "negation" and item.task == "mc":
            shown = {f"{o.colour} {o.shape}" for o in scene.objects}
            # "Which of these objects does NOT appear?": the options not in the scene;
            # other templates: the stored golds
            right = ([k for k, v in (item.choices or {}).items() if v not in shown]
                     if base.source == "template:present_object_mc" else item.answers)
            out["mc negation: several right options"] += len(right) > 1
        out["square/rectangle ambiguous"] += _square_rectangle(item, source, scene)
        out["stilted rewrite"] += bool(STILTED.search(item.question)) and \
            item.variant_kind in ("synonym", "register")
    rejects = read_jsonl(build / "variant_rejects.jsonl")
    out["reject rows missing a field"] = sum(any(f not in r for f in REJECT_FIELDS)
                                             for r in rejects)
    out["audit-stage rejects (negations thrown away)"] = sum(
        r["stage"] == "audit" for r in rejects)
    return {"kinds": dict(sorted(kinds.items())), "defects": dict(sorted(out.items()))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("builds", nargs="+", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {str(b): measure(b) for b in args.builds}
    if args.json:
        print(json.dumps(results, indent=2))
        return
    names = list(results)
    for section in ("kinds", "defects"):
        keys = sorted({k for r in results.values() for k in r[section]})
        print(f"| {section} | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        for key in keys:
            print(f"| {key} | " + " | ".join(str(results[n][section].get(key, 0))
                                              for n in names) + " |")
        print()


if __name__ == "__main__":
    main()
