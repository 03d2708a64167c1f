"""A reviewer's sample of generated items (docs/AUTHORING.md, "A reviewer's sample").

`draw`: a stratified sample of N items (default 100) of an items file, with a fixed seed:
every variant kind (v0 included) gets a share proportional to its size, at least 3 each,
and within a kind the items are spread over templates (round robin over templates in a
seeded order). The packet the reader gets holds only what a benchmark user sees — id,
image path (the items folder joined with the item's image), question, options, stored answer — never the template,
binding, scene annotations or rules:

    .venv/bin/python benchmarks/item_review.py draw datasets/demo/items.jsonl \
        --out benchmarks/item_review/sample.jsonl

`score`: the reader's verdicts (JSONL, one row per sampled id: {"id", "answerable",
"gold_right", "natural", "mark_clear" (true/false, null when the item has no mark),
"reason"}) against the sample: passes per criterion and items passing every criterion.

    .venv/bin/python benchmarks/item_review.py score benchmarks/item_review/sample.jsonl \
        benchmarks/item_review/verdicts.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from pathlib import Path
from typing import Any

CRITERIA = ("answerable", "gold_right", "natural", "mark_clear")
SEED = 27


def allocate(sizes: dict[str, int], n: int, floor: int = 3) -> dict[str, int]:
    """Items per stratum: proportional to its size (largest remainders), at least `floor`
    (or the whole stratum when smaller), summing to n (or to the total when smaller)."""
    total = sum(sizes.values())
    if total <= n:
        return dict(sizes)
    quota = {k: min(v, floor) for k, v in sizes.items()}
    left = n - sum(quota.values())
    spare = {k: v - quota[k] for k, v in sizes.items()}
    weight = sum(spare.values())
    exact = {k: left * v / weight for k, v in spare.items()} if weight else {}
    extra = {k: min(int(x), spare[k]) for k, x in exact.items()}
    rest = left - sum(extra.values())
    for k in sorted(exact, key=lambda k: (exact[k] - int(exact[k]), k), reverse=True):
        if rest <= 0:
            break
        if extra[k] < spare[k]:
            extra[k] += 1
            rest -= 1
    return {k: quota[k] + extra.get(k, 0) for k in sizes}


def draw(items: list[dict[str, Any]], root: Path, n: int = 100,
         seed: int = SEED) -> list[dict[str, Any]]:
    """The sample, as reader rows (what a benchmark user sees, nothing else)."""
    rng = random.Random(seed)
    strata: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        strata[item.get("variant_kind") or "original"].append(item)
    picked: list[dict[str, Any]] = []
    for kind, count in sorted(allocate({k: len(v) for k, v in strata.items()}, n).items()):
        by_template: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for item in strata[kind]:
            by_template[item.get("source", "")].append(item)
        order = sorted(by_template)
        rng.shuffle(order)
        for members in by_template.values():
            rng.shuffle(members)
        k = 0
        while len([p for p in picked if p["_kind"] == kind]) < count:
            members = by_template[order[k % len(order)]]
            if members:
                picked.append({**members.pop(), "_kind": kind})
            k += 1
    rng.shuffle(picked)
    return [{"id": p["id"], "image": str(root / p["image"]),
             "question": p["question"], "options": p.get("choices"),
             "answer": p["answers"], "task": p["task"]} for p in picked]


def score(sample: list[dict[str, Any]], verdicts: list[dict[str, Any]]) -> dict[str, Any]:
    """Passes per criterion and items passing all of them; ids missing a verdict listed."""
    by_id = {v["id"]: v for v in verdicts}
    missing = [s["id"] for s in sample if s["id"] not in by_id]
    passes = {c: sum(1 for s in sample if by_id.get(s["id"], {}).get(c) is not False
                     and s["id"] in by_id) for c in CRITERIA}
    every = sum(1 for s in sample if s["id"] in by_id
                and all(by_id[s["id"]].get(c) is not False for c in CRITERIA))
    return {"sample": len(sample), "verdicts": len(sample) - len(missing),
            "missing": missing, "pass_by_criterion": passes, "pass_all": every}


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    d = sub.add_parser("draw")
    d.add_argument("items", type=Path)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("-n", type=int, default=100)
    d.add_argument("--seed", type=int, default=SEED)
    d.add_argument("--image-root", type=Path, default=None,
                   help="folder the image paths start from [default: the items' folder]")
    s = sub.add_parser("score")
    s.add_argument("sample", type=Path)
    s.add_argument("verdicts", type=Path)
    args = parser.parse_args()
    if args.command == "draw":
        rows = draw(_jsonl(args.items), args.image_root or args.items.parent, args.n, args.seed)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                            encoding="utf-8")
        print(f"{len(rows)} items -> {args.out}")
    else:
        print(json.dumps(score(_jsonl(args.sample), _jsonl(args.verdicts)), indent=2,
                         ensure_ascii=False))


if __name__ == "__main__":
    main()
