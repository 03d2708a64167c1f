"""Gold balance per template: how much a blind model gains by always giving a template's
most common answer (docs/AUTHORING.md, quota `max_gold_share`).

For each template (batch) and task of an items file: the number of items, the most common
gold and its share, the quota limit, and for mc the gold letter furthest from uniform.
With `--demo`, the demo benchmark is first built (scenes + generate) in a temporary folder
for each scene seed given, so the balance is shown not to hang on one lucky seed. With
`--scores`, the items file is a split that a model was scored on (e.g. the `prior` blind
baseline in no_image mode) and each row also shows that model's accuracy on the template.

    .venv/bin/python benchmarks/gold_balance.py datasets/demo/items.v0.jsonl
    .venv/bin/python benchmarks/gold_balance.py --demo --seeds 7 8 9 [--json]
    .venv/bin/python benchmarks/gold_balance.py datasets/demo/splits/test.jsonl \
        --scores scores/demo/prior/no_image.jsonl scores/demo/random/no_image.jsonl
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench_kit.authoring.coverage import Coverage, batch_of  # noqa: E402
from bench_kit.authoring.quotas import QuotaParams, gold_violation  # noqa: E402
from bench_kit.items import read_items  # noqa: E402

BENCH_KIT = [sys.executable, "-m", "bench_kit"]


def _accuracy(items: list, scores: Path) -> dict[tuple[str, str], float]:
    """A scores file's accuracy per (template, task) over the given items."""
    hits: dict[str, bool] = {}
    for line in scores.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row.get("error") is None:
            hits[row["id"]] = bool(row["hit"])
    groups: dict[tuple[str, str], list[bool]] = {}
    for item in items:
        if item.id in hits:
            groups.setdefault((batch_of(item), item.task), []).append(hits[item.id])
    return {k: sum(v) / len(v) for k, v in groups.items()}


def balance_rows(items_path: Path, quotas: QuotaParams,
                 scores: list[Path] = ()) -> list[dict[str, Any]]:
    """One row per (template, task) with a gold tally (and each scores file's accuracy)."""
    items = read_items(items_path)
    accuracy = {path.parent.name: _accuracy(items, path) for path in scores}
    coverage = Coverage.of(items, {i.capability: i.layer for i in items}, [])
    rows = []
    for (template, task), tally in coverage.gold.items():
        gold, share = tally.majority()
        letter, gap = tally.letter_deviation()
        limit = (f"±{quotas.mc_letter_tolerance:.0%}" if task == "mc"
                 else f"{getattr(quotas.max_gold_share, task):.0%}")
        broken = gold_violation(template, tally, quotas)
        rows.append({"template": template, "task": task, "items": tally.items,
                     "majority": gold, "share": round(share, 3),
                     "letter_gap": round(gap, 3) if task == "mc" else None,
                     "letter": letter or None, "limit": limit,
                     "ok": broken is None,
                     "judged": len(tally.families) >= quotas.gold_min_items,
                     "accuracy": {m: acc.get((template, task)) for m, acc in accuracy.items()}})
    return rows


def build_demo(folder: Path, seed: int) -> Path:
    """scenes + generate of the demo at scene seed `seed`; the items file's path."""
    params = yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8"))
    params["scenes"]["seed"] = seed
    path = folder / "params.yaml"
    path.write_text(yaml.safe_dump(params, allow_unicode=True), encoding="utf-8")
    out = folder / "demo"
    for args in (["author", "scenes", "--out", str(out)],
                 ["author", "generate", "--annotations", str(out / "annotations.jsonl"),
                  "--templates", str(REPO / "datasets/demo/templates.yaml"),
                  "--out", str(out / "items.v0.jsonl")]):
        subprocess.run([*BENCH_KIT, *args, "--params", str(path)], check=True, cwd=REPO,
                       capture_output=True)
    return out / "items.v0.jsonl"


def _table(rows: list[dict[str, Any]]) -> str:
    width = max([len(r["template"]) for r in rows] + [8])
    models = list(rows[0]["accuracy"]) if rows else []
    lines = [f"{'template':<{width}} {'task':<8}{'items':>6}  {'majority':<14}{'share':>7}"
             f"{'mc gap':>8}{'limit':>7}  verdict " + "".join(f"{m:>10}" for m in models),
             "-" * (width + 66 + 10 * len(models))]
    for r in rows:
        gap = f"{r['letter_gap']:+.0%}" if r["letter_gap"] is not None else ""
        verdict = "ok" if r["ok"] and r["judged"] else "ok (few)" if r["ok"] else "OVER"
        lines.append(f"{r['template']:<{width}} {r['task']:<8}{r['items']:>6}  "
                     f"{r['majority'][:13]:<14}{r['share']:>7.0%}{gap:>8}{r['limit']:>7}  "
                     f"{verdict:<8}" + "".join(
                         f"{r['accuracy'][m]:>10.0%}" if r["accuracy"][m] is not None
                         else f"{'':>10}" for m in models))
    over = sum(not r["ok"] for r in rows)
    worst = max((r["share"] for r in rows if r["task"] != "mc" and r["judged"]), default=0.0)
    lines.append(f"{len(rows)} templates, {over} over quota; largest non-mc majority share "
                 f"{worst:.0%}")
    for model in models:
        values = [r["accuracy"][model] for r in rows if r["accuracy"][model] is not None]
        if values:
            lines.append(f"{model}: template-mean accuracy {sum(values) / len(values):.1%}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("items", nargs="*", type=Path, help="items JSONL file(s)")
    parser.add_argument("--demo", action="store_true", help="build the demo per --seeds first")
    parser.add_argument("--seeds", nargs="+", type=int, default=[7])
    parser.add_argument("--scores", nargs="*", type=Path, default=[],
                        help="scores JSONL (scores/<bench>/<model>/<mode>.jsonl) per model")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    params = yaml.safe_load((REPO / "params.yaml").read_text(encoding="utf-8"))
    quotas = QuotaParams.model_validate(params.get("generate", {}).get("quotas", {}))
    runs: dict[str, list[dict[str, Any]]] = {}
    for path in args.items:
        runs[str(path)] = balance_rows(path, quotas, args.scores)
    if args.demo:
        for seed in args.seeds:
            with tempfile.TemporaryDirectory() as tmp:
                runs[f"demo seed {seed}"] = balance_rows(build_demo(Path(tmp), seed), quotas)
    if args.json:
        print(json.dumps(runs, indent=1, ensure_ascii=False))
        return
    for name, rows in runs.items():
        print(f"## {name}\n{_table(rows)}\n")


if __name__ == "__main__":
    main()
