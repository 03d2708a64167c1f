"""A simulated benchmark with wrong golds, to measure the suspect-gold review queue
(gold_review.py) against the truth and against an oracle that knows the competences.

Stated parameters (docs/MODEL_AUDITS.md, "Suspect golds by simulation"):

- 400 items per task (mc with 4 options, yes/no, numeric 0–9), two capabilities per task;
  `WRONG_GOLD` = 5% of the golds are wrong (another answer of the space);
- item difficulty d ~ N(0, 0.7); `HARD` = 10% of the items are hard (d + U(1.5, 3)) with
  a correct gold — the items a suspect-gold check must not flag;
- each model's accuracy a ~ U(0.6, 0.9), shifted by ±0.3 logits per capability; a model
  answers right with probability sigmoid(logit(a) − d);
- correlated errors: a wrong answer is the item's shared attractor with probability
  `ATTRACT` = 0.3, else uniform over the wrong answers;
- yes-bias: each model answers "yes" to a yes/no item outright with probability
  U(0, `YES_BIAS`) = U(0, 0.2);
- parse failures: 3% of the answers.

`evaluate_queue` runs the review (gold_review.py, the code `bench-kit audit results`
runs) on the votes and, for comparison, an oracle written apart from it: the exact
posterior of this generative process with the true abilities, yes-biases, difficulty
distribution, attractor share and wrong-gold rate — the best any review can do here —
ranked and cut by the same queue rule.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping

from bench_kit.audit.results.gold_review import GoldModel, PanelItem, review_queue

ORACLE_DRAWS = 400          # difficulty draws the oracle integrates over

TASK_SPACE = {"mc": ["A", "B", "C", "D"], "yesno": ["yes", "no"],
              "numeric": [str(k) for k in range(10)]}
ITEMS_PER_TASK = 400
WRONG_GOLD = 0.05
HARD = 0.10
ATTRACT = 0.3
YES_BIAS = 0.2
PARSE_FAIL = 0.03
ACCURACY = (0.6, 0.9)
LEVEL = 0.1                 # the queue's FDR level (params `label_fdr` default)


@dataclass
class SimItem:
    """One simulated item and its truth."""

    id: str
    task: str
    capability: str
    true: str
    gold: str
    difficulty: float
    hard: bool
    attractor: str


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def plant(rng: random.Random) -> list[SimItem]:
    """Items of every task with their truth (wrong golds, hard items, attractors)."""
    items = []
    for task, space in TASK_SPACE.items():
        for k in range(ITEMS_PER_TASK):
            true = rng.choice(space)
            wrong = rng.random() < WRONG_GOLD
            hard = not wrong and rng.random() < HARD
            gold = rng.choice([a for a in space if a != true]) if wrong else true
            difficulty = rng.gauss(0.0, 0.7) + (rng.uniform(1.5, 3.0) if hard else 0.0)
            items.append(SimItem(f"{task}{k}", task, f"sim.{task}.{k % 2}", true, gold,
                                 difficulty, hard,
                                 rng.choice([a for a in space if a != true])))
    return items


def answer(rng: random.Random, item: SimItem, logit_a: float, yes_bias: float) -> str | None:
    """One model's answer to one item (None: a parse failure)."""
    if rng.random() < PARSE_FAIL:
        return None
    space = TASK_SPACE[item.task]
    if item.task == "yesno" and rng.random() < yes_bias:
        return "yes"
    if rng.random() < 1 / (1 + math.exp(-(logit_a - item.difficulty))):
        return item.true
    if rng.random() < ATTRACT:
        return item.attractor
    return rng.choice([a for a in space if a != item.true])


def simulate(n_models: int, seed: int) -> tuple[list[SimItem], list[PanelItem], list]:
    """The planted items, the panel's votes on them, and the true model parameters
    (name, logit ability, per-capability shifts, yes-bias)."""
    rng = random.Random(seed)
    items = plant(rng)
    models = []
    for m in range(n_models):
        a = rng.uniform(*ACCURACY)
        shifts = {cap: rng.uniform(-0.3, 0.3) for cap in sorted({i.capability for i in items})}
        models.append((f"m{m}", _logit(a), shifts, rng.uniform(0.0, YES_BIAS)))
    panel = []
    for item in items:
        votes = {}
        for name, logit_a, shifts, bias in models:
            vote = answer(rng, item, logit_a + shifts[item.capability], bias)
            if vote is not None:
                votes[name] = vote.lower()
        panel.append(PanelItem(item.id, item.task, item.capability, item.gold.lower(),
                               len(TASK_SPACE[item.task]), votes))
    return items, panel, models


def oracle_local_fdr(item: PanelItem, models: list, draws) -> float:
    """P(gold right | votes) under the simulation's own process and true parameters."""
    import numpy as np

    normal, hard = draws
    space = [a.lower() for a in TASK_SPACE[item.task]]
    k = len(space) - 1
    u = (1 - ATTRACT) / k
    post = {}
    for truth in space:
        lik = []
        for ds in ((normal, hard) if truth == item.gold else (normal,)):
            per_d = np.ones(len(ds))
            for name, logit_a, shifts, bias in models:
                vote = item.votes.get(name)
                if vote is None:
                    continue
                right = 1 / (1 + np.exp(-(logit_a + shifts[item.unit] - ds)))
                if item.task == "yesno":
                    p_yes = bias + (1 - bias) * (right if truth == "yes" else 1 - right)
                    per_d *= p_yes if vote == "yes" else 1 - p_yes
                elif vote == truth:
                    per_d *= right
                else:
                    per_d *= (1 - right)
            lik.append(per_d.mean())
        value = lik[0] if truth != item.gold else (1 - HARD) * lik[0] + HARD * lik[1]
        if item.task != "yesno":  # the wrong votes, attractor unknown (uniform)
            wrong = Counter(v for v in item.votes.values() if v != truth)
            total = sum(wrong.values())
            value *= sum((ATTRACT + u) ** wrong.get(att, 0) * u ** (total - wrong.get(att, 0))
                         for att in space if att != truth) / k
        prior = 1 - WRONG_GOLD if truth == item.gold else WRONG_GOLD / k
        post[truth] = prior * value
    return post[item.gold] / sum(post.values())


def _queue(local_fdr: dict[str, float], level: float) -> set[str]:
    """The ids a review queue at `level` flags (mean local fdr of the queue <= level)."""
    ranked = sorted(local_fdr, key=lambda i: (local_fdr[i], i))
    flagged, running = set(), 0.0
    for rank, item_id in enumerate(ranked, start=1):
        running += local_fdr[item_id]
        if running / rank > level:
            break
        flagged.add(item_id)
    return flagged


def evaluate_queue(n_models: int, seed: int, level: float = LEVEL) -> dict:
    """Per task: wrong golds, flagged, hits (fitted review and oracle), and the share of
    hard-but-correct items flagged."""
    import numpy as np

    items, panel, models = simulate(n_models, seed)
    queue = review_queue(GoldModel(panel).fit(), level)
    fitted = {i: r.flagged for i, r in queue.items()}
    rng = np.random.default_rng(seed)
    normal = rng.normal(0.0, 0.7, ORACLE_DRAWS)
    draws = (normal, normal + rng.uniform(1.5, 3.0, ORACLE_DRAWS))
    flagged = _queue({p.id: oracle_local_fdr(p, models, draws) for p in panel}, level)
    oracle = {p.id: p.id in flagged for p in panel}
    out: dict = {}
    for task in TASK_SPACE:
        mine = [i for i in items if i.task == task]
        wrong = {i.id for i in mine if i.gold != i.true}
        hard = {i.id for i in mine if i.hard}
        block: dict[str, Any] = {"true": len(wrong), "hard": len(hard)}
        queues: tuple[tuple[str, Mapping[str, object]], ...] = (("fitted", fitted),
                                                                ("oracle", oracle))
        for name, queue_of in queues:
            flagged = {i.id for i in mine if queue_of.get(i.id)}
            block[name] = {"called": len(flagged), "hits": len(flagged & wrong),
                           "hard_flagged": len(flagged & hard)}
        out[task] = block
    return out


def pool_queue(runs: list[dict]) -> dict:
    """Several seeds' `evaluate_queue` results summed."""
    out: dict = {}
    for task in TASK_SPACE:
        block = {"true": sum(r[task]["true"] for r in runs),
                 "hard": sum(r[task]["hard"] for r in runs)}
        for name in ("fitted", "oracle"):
            block[name] = {k: sum(r[task][name][k] for r in runs)
                           for k in ("called", "hits", "hard_flagged")}
        out[task] = block
    return out


def queue_rates(block: dict, name: str = "fitted") -> dict:
    """Recall, precision and hard-but-correct flag share of one task's pooled block."""
    b = block[name]
    return {"recall": b["hits"] / block["true"] if block["true"] else None,
            "precision": b["hits"] / b["called"] if b["called"] else None,
            "hard_flagged": b["hard_flagged"] / block["hard"] if block["hard"] else None}


def format_queue_table(results: dict[int, dict]) -> str:
    """Markdown: per panel size and task, recall / precision / hard flagged, and the
    oracle's recall."""
    def pct(v: float | None) -> str:
        return "–" if v is None else f"{v:.2f}"

    lines = ["| models | task | recall | precision | hard-but-correct flagged | "
             "oracle recall | oracle precision | oracle hard flagged |",
             "|---:|---|---:|---:|---:|---:|---:|---:|"]
    for n in sorted(results):
        for task in TASK_SPACE:
            mine, oracle = queue_rates(results[n][task]), queue_rates(results[n][task],
                                                                      "oracle")
            lines.append(f"| {n} | {task} | {pct(mine['recall'])} | {pct(mine['precision'])} "
                         f"| {pct(mine['hard_flagged'])} | {pct(oracle['recall'])} | "
                         f"{pct(oracle['precision'])} | {pct(oracle['hard_flagged'])} |")
    return "\n".join(lines)
