"""A simulated model panel with known truth, to measure the model audits' verdicts.

`simulate_panel` writes items and `scores/<model>/<mode>.jsonl` rows the way `bench-kit
eval score` would (parse failures and error rows included), runs `audit_results` on them
as a user would, and compares every verdict with the planted truth. The planted classes
(docs/MODEL_AUDITS.md, "Validity by simulation"):

- `text_answerable`: blind runs hit with a chance-corrected rate κ ~ U(0.6, 0.95);
- `prior_answerable`: the item's gold is the majority answer of a template whose golds are
  skewed (90% one value); blind models guess that value with probability U(0.3, 0.9);
- `vision_required`: blind runs guess uniformly over the answer space (at chance);
- `wrong_gold`: the gold is wrong; models that see the image answer the true value with
  probability `WRONG_GOLD_KNOW` (0.97), blind runs are at chance;
- `ambiguous`: two answers are right; models that know split between them 50/50;
- `hard_correct`: the gold is right, models hit with probability U(0.05, 0.3) (yes/no:
  U(0.3, 0.5)) and scatter their misses uniformly over the wrong answers.

Each vision model has an ability U(0.7, 0.92) and runs in `image`, `no_image` and
`blank_image`; each has a text-only base model that runs `no_image` (for ML). Rows fail
to parse with probability 0.03 (image) or 0.08 (blind: refusals) and are error rows with
probability 0.02.
"""

from __future__ import annotations

import json
import random
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ANSWER_SPACE = {
    "mc": ["A", "B", "C", "D"],
    "yesno": ["yes", "no"],
    "numeric": ["0", "1", "2", "3", "4", "5"],
    "open": ["red", "blue", "green", "yellow", "purple", "orange", "black", "white"],
}
TASKS = tuple(ANSWER_SPACE)
CLASSES = ("text_answerable", "prior_answerable", "vision_required", "wrong_gold",
           "ambiguous", "hard_correct")
# Share of the items of a balanced template per planted class (the rest: vision_required).
CLASS_SHARES = {"text_answerable": 0.12, "wrong_gold": 0.07, "ambiguous": 0.05,
                "hard_correct": 0.10}
TEMPLATE_ITEMS = 10
PRIOR_TEMPLATES = 2          # per task, out of TEMPLATES_PER_TASK
TEMPLATES_PER_TASK = 15
PARSE_FAIL = {"image": 0.03, "blind": 0.08}
# A wrong gold on an item whose true answer is plain to see: each model names the true
# value with this probability (recall falls fast below it, docs/MODEL_AUDITS.md).
WRONG_GOLD_KNOW = 0.97
# Hit rate of hard-but-correct items. A yes/no item models get right far *below* 1/2 is
# systematically misleading, and no vote pattern tells it from a wrong gold; "hard" yes/no
# is near chance.
HARD_RATE = {"other": (0.05, 0.3), "yesno": (0.3, 0.5)}
ERROR_RATE = 0.02


@dataclass
class PlantedItem:
    """One simulated item: its row, its truth class and what a model that knows answers."""

    row: dict
    truth: str
    true_answer: str
    alt_answer: str | None = None
    prior_answer: str | None = None
    blind_rate: float = 0.0
    hard_rate: float = 0.0


@dataclass
class Panel:
    """Items, score rows per (model, mode), and the base-model pairing."""

    items: list[PlantedItem]
    rows: dict[tuple[str, str], list[dict]] = field(default_factory=dict)
    base_models: dict[str, str] = field(default_factory=dict)


def _item_row(item_id: str, task: str, gold: str, template: str) -> dict:
    row: dict[str, Any] = {"id": item_id, "image": f"images/{item_id}.png", "question": f"Simulated {task} question {item_id}?",
           "task": task, "answers": [gold], "capability": f"sim.{task}",
           "layer": "perception", "difficulty": "medium", "source": f"template:{template}",
           "created_at": "2026-11-01T00:00:00Z"}
    if task == "mc":
        row["choices"] = {letter: f"option {letter}" for letter in ANSWER_SPACE["mc"]}
    return row


def _other(rng: random.Random, space: list[str], *exclude: str) -> str:
    return rng.choice([a for a in space if a not in exclude])


def plant_items(rng: random.Random) -> list[PlantedItem]:
    """60 templates of 10 items: per task 2 prior-skewed templates and 13 balanced ones."""
    items: list[PlantedItem] = []
    for task in TASKS:
        space = ANSWER_SPACE[task]
        for t in range(TEMPLATES_PER_TASK):
            template = f"{task}{t}"
            prior = space[0] if task != "mc" else rng.choice(space)
            for i in range(TEMPLATE_ITEMS):
                item_id = f"{template}_{i}"
                if t < PRIOR_TEMPLATES:
                    gold = prior if rng.random() < 0.9 else _other(rng, space, prior)
                    truth = "prior_answerable" if gold == prior else "vision_required"
                    items.append(PlantedItem(_item_row(item_id, task, gold, template), truth,
                                             gold, prior_answer=prior))
                    continue
                draw, truth = rng.random(), "vision_required"
                for name, p in CLASS_SHARES.items():
                    if draw < p:
                        truth = name
                        break
                    draw -= p
                true = rng.choice(space)
                gold = _other(rng, space, true) if truth == "wrong_gold" else true
                planted = PlantedItem(_item_row(item_id, task, gold, template), truth, true)
                if truth == "ambiguous":
                    planted.alt_answer = _other(rng, space, true)
                if truth == "text_answerable":
                    chance = 1 / len(space)
                    planted.blind_rate = chance + rng.uniform(0.6, 0.95) * (1 - chance)
                if truth == "hard_correct":
                    low, high = HARD_RATE["yesno" if task == "yesno" else "other"]
                    planted.hard_rate = rng.uniform(low, high)
                items.append(planted)
    return items


def _answer_with_image(rng: random.Random, item: PlantedItem, ability: float) -> str:
    space = ANSWER_SPACE[item.row["task"]]
    if item.truth == "wrong_gold":
        know = WRONG_GOLD_KNOW
        return item.true_answer if rng.random() < know else _other(rng, space, item.true_answer)
    if item.truth == "ambiguous" and item.alt_answer is not None and rng.random() < ability:
        return item.true_answer if rng.random() < 0.5 else item.alt_answer
    know = item.hard_rate if item.truth == "hard_correct" else ability
    if rng.random() < know:
        return item.true_answer
    return _other(rng, space, item.true_answer)


def _answer_blind(rng: random.Random, item: PlantedItem, prior_skill: float) -> str:
    space = ANSWER_SPACE[item.row["task"]]
    if item.truth == "text_answerable":
        if rng.random() < item.blind_rate:
            return item.true_answer
        return _other(rng, space, item.true_answer)
    if item.prior_answer is not None and rng.random() < prior_skill:
        return item.prior_answer
    return rng.choice(space)


def _score_row(rng: random.Random, item: PlantedItem, model: str, mode: str,
               answer: str) -> dict:
    gold = item.row["answers"][0]
    row = {"id": item.row["id"], "model": model, "mode": mode, "metric": "accuracy",
           "extracted": answer, "parse": "ok", "score": float(answer == gold),
           "hit": answer == gold, "error": None}
    if rng.random() < ERROR_RATE:
        row.update(extracted=None, parse="failed", score=0.0, hit=False,
                   error="HTTP 500: simulated server error")
    elif rng.random() < PARSE_FAIL["image" if mode == "image" else "blind"]:
        row.update(extracted=None, parse="failed", score=0.0, hit=False)
    return row


def simulate_panel(n_models: int, seed: int = 0) -> Panel:
    """Plant the items and answer them with `n_models` vision models and their bases."""
    rng = random.Random(seed)
    panel = Panel(items=plant_items(rng))
    for m in range(n_models):
        vlm, base = f"vlm{m}", f"lm{m}"
        panel.base_models[vlm] = base
        ability, skills = rng.uniform(0.7, 0.92), [rng.uniform(0.3, 0.9) for _ in range(3)]
        modes = [("image", vlm, None), ("no_image", vlm, skills[0]),
                 ("blank_image", vlm, skills[1]), ("no_image", base, skills[2])]
        for mode, model, skill in modes:
            panel.rows[(model, mode)] = [
                _score_row(rng, item, model, mode,
                           _answer_with_image(rng, item, ability) if skill is None
                           else _answer_blind(rng, item, skill))
                for item in panel.items]
    return panel


def write_panel(panel: Panel, folder: Path, params_text: str = "") -> tuple[Path, Path, Path]:
    """Write items.jsonl, scores/ and params.yaml under `folder`; return their paths."""
    items_path, scores, params = folder / "items.jsonl", folder / "scores", folder / "params.yaml"
    items_path.write_text("".join(json.dumps(i.row) + "\n" for i in panel.items), "utf-8")
    for (model, mode), rows in panel.rows.items():
        path = scores / model / f"{mode}.jsonl"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")
    pairs = "".join(f"    {vlm}: {base}\n" for vlm, base in panel.base_models.items())
    params.write_text("audit_results:\n  expansion: false\n  base_models:\n" + pairs
                      + params_text, "utf-8")
    return items_path, scores, params


def _pr(called: set[str], truth: set[str]) -> dict:
    return {"hits": len(called & truth), "called": len(called), "true": len(truth)}


def rates(block: dict) -> tuple[float | None, float | None]:
    """(recall, precision) of a `{hits, called, true}` block (None when undefined)."""
    recall = block["hits"] / block["true"] if block["true"] else None
    precision = block["hits"] / block["called"] if block["called"] else None
    return recall, precision


def pool(runs: list[dict]) -> dict:
    """Several seeds' results as one: counts summed, verdict counts summed."""
    out: dict = {}
    for key, value in runs[0].items():
        if isinstance(value, dict) and "hits" in value:
            out[key] = {k: sum(r[key][k] for r in runs) for k in ("hits", "called", "true")}
        elif isinstance(value, int):
            out[key] = sum(r[key] for r in runs)
        elif key == "verdicts":
            out[key] = dict(sorted(sum((Counter(r[key]) for r in runs), Counter()).items()))
    return out


def evaluate(panel: Panel, findings: list[dict], item_stats: list[dict]) -> dict:
    """Recall and precision of each verdict against the planted truth."""
    truth = {i.row["id"]: i.truth for i in panel.items}
    task = {i.row["id"]: i.row["task"] for i in panel.items}
    checks: dict[str, set[str]] = defaultdict(set)
    for f in findings:
        checks[f["check"]].add(f["id"])
    verdict = {r["id"]: r.get("verdict") for r in item_stats}

    def ids(*classes: str, tasks: tuple[str, ...] = TASKS) -> set[str]:
        return {i for i, c in truth.items() if c in classes and task[i] in tasks}

    answerable = checks["redundancy.text_answerable"] | checks["redundancy.prior_answerable"]
    at_chance = ("vision_required", "wrong_gold", "ambiguous", "hard_correct")
    prior_items = {i.row["id"] for i in panel.items if i.prior_answer is not None}
    out = {"text_answerable": _pr(answerable, ids("text_answerable", "prior_answerable")),
           "prior_answerable": _pr(checks["redundancy.prior_answerable"],
                                   ids("prior_answerable")),
           "suspect_gold": _pr(checks["label.suspect_gold"], ids("wrong_gold")),
           "suspect_gold_mc": _pr(checks["label.suspect_gold"] & ids(*CLASSES, tasks=("mc",)),
                                  ids("wrong_gold", tasks=("mc",))),
           "model_split": _pr(checks["ambiguity.model_split"], ids("ambiguous")),
           "hard_correct_flagged": len(checks["label.suspect_gold"] & ids("hard_correct"))}
    vision_called = {i for i, v in verdict.items() if v == "vision_required"}
    for t in TASKS:
        chance_items = ids(*at_chance, tasks=(t,)) - prior_items
        out[f"vision_required_{t}"] = _pr(vision_called & ids(*CLASSES, tasks=(t,)),
                                          chance_items)
    not_answerable = set(truth) - ids("text_answerable", "prior_answerable")
    out["vision_required_all"] = _pr(vision_called, not_answerable)
    out["verdicts"] = dict(sorted(Counter(v or "none" for v in verdict.values()).items()))
    return out


def run_simulation(n_models: int, seed: int = 0, params_text: str = "") -> dict:
    """Simulate, audit with `audit_results` (in a temporary folder) and evaluate."""
    from bench_kit.audit.results.stage import audit_results

    panel = simulate_panel(n_models, seed)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        items_path, scores, params = write_panel(panel, folder, params_text)
        audit_results(items_path, scores, folder / "out", params_path=params)
        findings = [json.loads(line) for line in
                    (folder / "out/model_findings.jsonl").read_text("utf-8").splitlines()]
        stats = [json.loads(line) for line in
                 (folder / "out/item_stats.jsonl").read_text("utf-8").splitlines()]
    return evaluate(panel, findings, stats)


TABLE_ROWS = (
    ("text_answerable", "text_answerable (incl. prior)"),
    ("prior_answerable", "prior_answerable"),
    ("suspect_gold_mc", "suspect_gold, mc"),
    ("suspect_gold", "suspect_gold, all tasks"),
    ("model_split", "model_split (ambiguous)"),
    *((f"vision_required_{t}", f"vision_required at chance, {t}") for t in TASKS),
)


def format_table(results: dict[int, dict]) -> str:
    """A markdown table: one row per verdict, recall / precision per panel size (results
    as from `evaluate` or `pool`)."""
    sizes = sorted(results)
    head = "| verdict | " + " | ".join(f"{n} models: recall / precision" for n in sizes) + " |"
    lines = [head, "|---|" + "---|" * len(sizes)]

    def cell(block: dict) -> str:
        recall, precision = rates(block)
        def fmt(v: float | None) -> str:
            return "–" if v is None else f"{v:.2f}"

        return f"{fmt(recall)} / {fmt(precision)}"

    for key, label in TABLE_ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(results[n][key]) for n in sizes) + " |")
    lines.append("| hard-but-correct items flagged as suspect gold | "
                 + " | ".join(str(results[n]["hard_correct_flagged"]) for n in sizes) + " |")
    return "\n".join(lines)
