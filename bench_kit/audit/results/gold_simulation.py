"""A simulated benchmark with wrong golds, to measure the suspect-gold review queue
(gold_review.py) against the truth and against an oracle that knows the competences.

Stated parameters (docs/MODEL_AUDITS.md, "Suspect golds by simulation"; `PARAMETERS`):

- `ITEMS_PER_TASK` items per task (mc with 4 options, yes/no, numeric 0–9), two
  capabilities per task; `WRONG_GOLD` = 5% of the golds are wrong (another answer of the
  space, uniform);
- item difficulty d ~ N(0, `SPREAD` = 0.7); `HARD` = 10% of the items are hard
  (d + U(1.5, 3) logits) with a correct gold — the items a suspect-gold check must not flag;
- model accuracies 60–90%: each model draws a ~ U(0.6, 0.9) (`ACCURACY`), the accuracy
  against the golds it is to *measure* on the benchmark (every task, hard items, wrong
  golds, lucky guesses and parse failures counted, as a reader of a real benchmark
  measures it); its logit ability θ is solved for that (`ability_for`), with its ±0.3
  logits per capability and yes rate kept. A model *knows* an item with probability
  sigmoid(θ + shift − d) and then answers the truth. (Until i24e, a was the chance of
  knowing an item of difficulty 0, and the measured accuracies were 0.58–0.82: hard
  items, wrong golds and parse failures pull a model below its a at d = 0. A model
  that knows every item measures about 0.97 × 0.95 ≈ 0.92, so 0.9 is near the top.)
- correlated errors: a model that does not know an mc or numeric item answers the item's
  lure — one wrong answer shared by every model — with probability `LURE` = 0.4, else
  guesses uniformly over the K answers. Two models that both miss then agree on ~0.5 of
  mc items (Kim et al., "Correlated errors in large language models", ICML 2025: 0.6 on
  HELM's MMLU, wrong golds included). A model that knows an item with probability k
  answers the lure with (1 − k)(LURE + (1 − LURE)/K) and the truth with
  k + (1 − k)(1 − LURE)/K (k = 0: mc 0.55 against 0.15, chance 0.25; numeric 0.46
  against 0.06, chance 0.10), so the lure is the likelier answer whenever
  k < LURE / (1 + LURE) ≈ 0.29. Before the accuracies were calibrated that held for
  most (hard item, model) pairs (0.6–0.7 on seeds 100–101): a hard mc or numeric item
  was *below* chance on the truth and its modal answer usually the lure — the
  signature of a wrong gold; the truth was the sole plurality answer on only 0.3–0.4 of
  them at 6 and 10 models (the calibrated, stronger models know more of them);
- yes-bias: a model that does not know a yes/no item says "yes" with its own rate
  q ~ U(0.5, 0.8) (`YES_RATE`), so on a hard item whose truth is "no" the wrong "yes" is
  likelier whenever (1 − k)(2q − 1) > k; yes/no errors are correlated through difficulty
  and the shared bias;
- parse failures: `PARSE_FAIL` = 3% of the answers (no vote).

`evaluate_queue` runs the review (gold_review.py, the code `bench-kit audit results`
runs) on the votes and, for comparison, an oracle written apart from it: the exact
posterior of this generative process with the true abilities, yes rates, difficulty
distribution (hard items only with right golds, as planted), lure share and wrong-gold
rate — the best any review of the votes can do here — ranked and cut by the same queue
rule. Its `best recall` is the largest recall along its ranking at precision ≥ 0.9: the
bound on the issue's "recall at precision ≥ 0.9" target.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from bench_kit.audit.results.gold_review import (
    LOCAL_FDR_CEILING,
    GoldModel,
    PanelItem,
    review_queue,
)

TASK_SPACE = {"mc": ["a", "b", "c", "d"], "yesno": ["yes", "no"],
              "numeric": [str(k) for k in range(10)]}
ITEMS_PER_TASK = 400
WRONG_GOLD = 0.05
SPREAD = 0.7
HARD = 0.10
HARD_SHIFT = (1.5, 3.0)
ACCURACY = (0.6, 0.9)
CAPABILITY_SHIFT = 0.3
LURE = 0.4
YES_RATE = (0.5, 0.8)
PARSE_FAIL = 0.03
LEVEL = 0.1                 # the queue's FDR level (params `label_fdr` default)
TARGET_PRECISION = 0.9
ORACLE_DRAWS = 400          # difficulty draws the oracle integrates over
PARAMETERS = {
    "items_per_task": ITEMS_PER_TASK, "wrong_gold": WRONG_GOLD, "difficulty_sd": SPREAD,
    "hard_share": HARD, "hard_shift": HARD_SHIFT, "measured_accuracy": ACCURACY,
    "capability_shift": CAPABILITY_SHIFT, "lure": LURE, "yes_rate_when_guessing": YES_RATE,
    "parse_fail": PARSE_FAIL, "queue_level": LEVEL}


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
    lure: str


@dataclass
class SimModel:
    """One simulated model: name, logit ability, per-capability shifts, guess yes rate,
    and the accuracy against the golds it was drawn to measure."""

    name: str
    theta: float
    shifts: dict[str, float]
    yes_rate: float
    accuracy: float = 0.0


def plant(rng: random.Random, per_task: int = ITEMS_PER_TASK) -> list[SimItem]:
    """Items of every task with their truth (wrong golds, hard items, lures)."""
    items = []
    for task, space in TASK_SPACE.items():
        for k in range(per_task):
            true = rng.choice(space)
            wrong = rng.random() < WRONG_GOLD
            hard = not wrong and rng.random() < HARD
            gold = rng.choice([a for a in space if a != true]) if wrong else true
            difficulty = rng.gauss(0.0, SPREAD) + (rng.uniform(*HARD_SHIFT) if hard else 0.0)
            items.append(SimItem(f"{task}{k}", task, f"sim.{task}.{k % 2}", true, gold,
                                 difficulty, hard, rng.choice([a for a in space if a != true])))
    return items


def answer(rng: random.Random, item: SimItem, model: SimModel) -> str | None:
    """One model's answer to one item (None: a parse failure)."""
    if rng.random() < PARSE_FAIL:
        return None
    theta = model.theta + model.shifts[item.capability]
    if rng.random() < 1 / (1 + math.exp(-(theta - item.difficulty))):
        return item.true
    if item.task == "yesno":
        return "yes" if rng.random() < model.yes_rate else "no"
    if rng.random() < LURE:
        return item.lure
    return rng.choice(TASK_SPACE[item.task])


def expected_accuracy(items: list[SimItem], model: SimModel) -> float:
    """The accuracy against the golds `model` is expected to measure on `items`, parse
    failures counted as misses: knowing gives the truth; a miss gives the gold by the
    lure or a guess (yes/no: by the model's yes rate)."""
    import numpy as np

    theta = np.array([model.theta + model.shifts[i.capability] for i in items])
    know = 1 / (1 + np.exp(-(theta - np.array([i.difficulty for i in items]))))
    right = np.array([i.gold == i.true for i in items], dtype=float)
    guess = np.array([
        (model.yes_rate if i.gold == "yes" else 1 - model.yes_rate) if i.task == "yesno"
        else LURE * (i.gold == i.lure) + (1 - LURE) / len(TASK_SPACE[i.task])
        for i in items])
    return float((1 - PARSE_FAIL) * np.mean(know * right + (1 - know) * guess))


def ability_for(items: list[SimItem], model: SimModel, accuracy: float) -> float:
    """The logit ability θ at which `model` (its capability shifts and yes rate kept) is
    expected to measure `accuracy` against the golds on `items` (bisection; the accuracy
    rises with θ). An accuracy out of reach gives the end of the search range."""
    low, high = -10.0, 15.0
    for _ in range(50):
        model.theta = (low + high) / 2
        if expected_accuracy(items, model) < accuracy:
            low = model.theta
        else:
            high = model.theta
    return (low + high) / 2


def simulate(n_models: int, seed: int, per_task: int = ITEMS_PER_TASK
             ) -> tuple[list[SimItem], list[PanelItem], list[SimModel]]:
    """The planted items, the panel's votes on them, and the true models."""
    rng = random.Random(seed)
    items = plant(rng, per_task)
    capabilities = sorted({i.capability for i in items})
    models = []
    for m in range(n_models):
        a = rng.uniform(*ACCURACY)
        model = SimModel(f"m{m}", 0.0, {c: rng.uniform(-CAPABILITY_SHIFT, CAPABILITY_SHIFT)
                                        for c in capabilities}, rng.uniform(*YES_RATE), a)
        model.theta = ability_for(items, model, a)
        models.append(model)
    panel = []
    for item in items:
        votes = {}
        for model in models:
            vote = answer(rng, item, model)
            if vote is not None:
                votes[model.name] = vote
        panel.append(PanelItem(item.id, item.task, item.capability, item.gold,
                               len(TASK_SPACE[item.task]), votes))
    return items, panel, models


def oracle_local_fdr(item: PanelItem, models: list[SimModel], draws) -> float:
    """P(gold right | votes) under the simulation's own process and true parameters:
    every truth of the space, every lure, difficulty by Monte Carlo."""
    import numpy as np

    normal, hard = draws
    space = TASK_SPACE[item.task]
    voters = [m for m in models if item.votes.get(m.name) is not None]
    votes = np.array([item.votes[m.name] for m in voters])
    post = {}
    for truth in space:
        lures = [None] if item.task == "yesno" else [a for a in space if a != truth]
        lik = []
        for ds in ((normal, hard) if truth == item.gold else (normal,)):
            theta = np.array([m.theta + m.shifts[item.unit] for m in voters])[:, None]
            knows = 1 / (1 + np.exp(-(theta - ds[None, :])))
            per_lure = []
            for lure in lures:
                if item.task == "yesno":
                    rate = np.array([m.yes_rate for m in voters])[:, None]
                    guess = np.where((votes == "yes")[:, None], rate, 1 - rate)
                else:
                    guess = np.where((votes == lure)[:, None], LURE, 0.0) + \
                        (1 - LURE) / len(space)
                p = np.where((votes == truth)[:, None], knows, 0.0) + (1 - knows) * guess
                per_lure.append(np.prod(p, axis=0).mean())
            lik.append(sum(per_lure) / len(lures))
        value = lik[0] if truth != item.gold else (1 - HARD) * lik[0] + HARD * lik[1]
        prior = 1 - WRONG_GOLD if truth == item.gold else WRONG_GOLD / (len(space) - 1)
        post[truth] = prior * value
    return post[item.gold] / sum(post.values())


def queue_flags(local_fdr: dict[str, float], level: float) -> set[str]:
    """The ids a review queue at `level` flags: the mean local fdr of the queue <= level,
    each item's own <= the review's ceiling (the same rule as gold_review.review_queue)."""
    ranked = sorted(local_fdr, key=lambda i: (local_fdr[i], i))
    flagged, running = set(), 0.0
    for rank, item_id in enumerate(ranked, start=1):
        running += local_fdr[item_id]
        if running / rank > level or local_fdr[item_id] > max(LOCAL_FDR_CEILING, level):
            break
        flagged.add(item_id)
    return flagged


def evaluate_queue(n_models: int, seed: int, level: float = LEVEL,
                   per_task: int = ITEMS_PER_TASK) -> dict:
    """Per task: wrong golds, hard items, and for the fitted review and the oracle the
    items flagged, hits, hard items flagged and the ranking ((local fdr, gold wrong))."""
    return _evaluate(n_models, seed, level, per_task, fitted=True)


def evaluate_oracle(n_models: int, seed: int, level: float = LEVEL,
                    per_task: int = ITEMS_PER_TASK) -> dict:
    """`evaluate_queue` for the oracle alone (no review fitted): seconds, not minutes."""
    return _evaluate(n_models, seed, level, per_task, fitted=False)


@contextmanager
def stated(**overrides: float) -> Iterator[None]:
    """Run the simulation and its oracle with other values of the stated parameters
    (module constants by name, e.g. `stated(HARD=0.05, LURE=0.25)`), restored after."""
    saved = {name: globals()[name] for name in overrides}
    globals().update(overrides)
    try:
        yield
    finally:
        globals().update(saved)


def _evaluate(n_models: int, seed: int, level: float, per_task: int, fitted: bool) -> dict:
    import numpy as np

    items, panel, models = simulate(n_models, seed, per_task)
    rng = np.random.default_rng(seed)
    normal = rng.normal(0.0, SPREAD, ORACLE_DRAWS)
    draws = (normal, normal + rng.uniform(*HARD_SHIFT, ORACLE_DRAWS))
    fdrs = {"oracle": {p.id: oracle_local_fdr(p, models, draws) for p in panel}}
    flags = {"oracle": queue_flags(fdrs["oracle"], level)}
    if fitted:
        queue = review_queue(GoldModel(panel).fit(), level)
        fdrs["fitted"] = {i: r.local_fdr for i, r in queue.items()}
        flags["fitted"] = {i for i, r in queue.items() if r.flagged}
    out: dict = {"accuracy": model_accuracies(items, panel),
                 "drawn": {m.name: m.accuracy for m in models},
                 "error_agreement": error_agreement(items, panel, "mc")}
    for task in TASK_SPACE:
        mine = [i for i in items if i.task == task]
        wrong = {i.id for i in mine if i.gold != i.true}
        hard = {i.id for i in mine if i.hard}
        scattered = {p.id for p in panel if p.id in hard and _scattered(p)}
        block: dict[str, Any] = {"true": len(wrong), "hard": len(hard),
                                 "scattered": len(scattered)}
        for name, fdr in fdrs.items():
            flagged = {i.id for i in mine if i.id in flags[name]}
            block[name] = {"called": len(flagged), "hits": len(flagged & wrong),
                           "hard_flagged": len(flagged & hard),
                           "scattered_flagged": len(flagged & scattered),
                           "ranking": [(fdr.get(i.id, 1.0), i.id in wrong) for i in mine]}
        out[task] = block
    return out


def _scattered(item: PanelItem) -> bool:
    """No answer other than the gold holds half of the panel's votes."""
    others = Counter(v for v in item.votes.values() if v != item.gold)
    return bool(item.votes) and max(others.values(), default=0) < len(item.votes) / 2


def model_accuracies(items: list[SimItem], panel: list[PanelItem]) -> dict[str, float]:
    """Each simulated model's accuracy against the golds, every task (parse failures
    count as misses), as a reader of a real benchmark would measure it."""
    hits: Counter = Counter()
    for item in panel:
        hits.update(m for m, v in item.votes.items() if v == item.gold)
    names = sorted({m for p in panel for m in p.votes})
    return {m: hits[m] / len(items) for m in names}


def error_agreement(items: list[SimItem], panel: list[PanelItem], task: str
                    ) -> tuple[int, int]:
    """(pairs of models that both miss an item of `task` and give the same wrong answer,
    pairs that both miss): the error correlation Kim et al. (2025) measure."""
    same = pairs = 0
    for item, votes in zip(items, panel):
        if item.task != task:
            continue
        wrong = [v for v in votes.votes.values() if v != item.true]
        pairs += len(wrong) * (len(wrong) - 1) // 2
        same += sum(n * (n - 1) // 2 for n in Counter(wrong).values())
    return same, pairs


def pool_queue(runs: list[dict]) -> dict:
    """Several seeds' `evaluate_queue` results summed (rankings concatenated)."""
    out: dict = {"accuracy": [a for r in runs for a in r["accuracy"].values()],
                 "accuracy_gap": max(abs(a - r["drawn"][m]) for r in runs
                                     for m, a in r["accuracy"].items()),
                 "error_agreement": tuple(sum(r["error_agreement"][k] for r in runs)
                                          for k in (0, 1))}
    for task in TASK_SPACE:
        block = {k: sum(r[task][k] for r in runs) for k in ("true", "hard", "scattered")}
        for name in ("fitted", "oracle"):
            if name not in runs[0][task]:
                continue
            block[name] = {k: sum(r[task][name][k] for r in runs)
                           for k in ("called", "hits", "hard_flagged", "scattered_flagged")}
            block[name]["ranking"] = [x for r in runs for x in r[task][name]["ranking"]]
        out[task] = block
    return out


def best_recall(ranking: list[tuple[float, bool]], wrong: int,
                precision: float = TARGET_PRECISION) -> float | None:
    """The largest recall along a ranking (by local fdr) at which precision ≥ `precision`."""
    if not wrong:
        return None
    best, hits = 0.0, 0
    for rank, (_, is_wrong) in enumerate(sorted(ranking, key=lambda x: x[0]), start=1):
        hits += is_wrong
        if hits / rank >= precision:
            best = max(best, hits / wrong)
    return best


def queue_rates(block: dict, name: str = "fitted") -> dict:
    """Recall, precision, hard-but-correct flag share and best recall at precision ≥ 0.9
    of one task's pooled block."""
    b = block[name]
    return {"recall": b["hits"] / block["true"] if block["true"] else None,
            "precision": b["hits"] / b["called"] if b["called"] else None,
            "hard_flagged": b["hard_flagged"] / block["hard"] if block["hard"] else None,
            "best_recall": best_recall(b["ranking"], block["true"])}


def format_queue_table(results: dict[int, dict]) -> str:
    """Markdown: per panel size and task, the queue's recall / precision / hard-but-correct
    flagged share against the oracle's, and both rankings' best recall at precision ≥ 0.9."""
    def pct(v: float | None) -> str:
        return "–" if v is None else f"{v:.2f}"

    lines = [("| models | task | wrong golds | recall | precision | hard flagged | "
              "oracle recall | oracle precision | oracle hard flagged | "
              "best recall at p≥0.9 | oracle best recall at p≥0.9 |"),
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for n in sorted(results):
        for task in TASK_SPACE:
            block = results[n][task]
            mine, oracle = queue_rates(block), queue_rates(block, "oracle")
            lines.append(
                f"| {n} | {task} | {block['true']} | {pct(mine['recall'])} | "
                f"{pct(mine['precision'])} | {pct(mine['hard_flagged'])} | "
                f"{pct(oracle['recall'])} | {pct(oracle['precision'])} | "
                f"{pct(oracle['hard_flagged'])} | {pct(mine['best_recall'])} | "
                f"{pct(oracle['best_recall'])} |")
    return "\n".join(lines)


def spread(values: list[float | None]) -> str:
    """'median [min–max]' of per-seed values (seeds where a value is undefined are
    counted apart: 'n/a×k')."""
    import statistics

    known = sorted(v for v in values if v is not None)
    text = (f"{statistics.median(known):.2f} [{known[0]:.2f}–{known[-1]:.2f}]"
            if known else "–")
    missing = len(values) - len(known)
    return text + (f" n/a×{missing}" if missing else "")


def format_spread_table(runs: dict[int, list[dict]], target: float = 0.75) -> str:
    """Markdown: per panel size and task, how the seeds (one random panel each) spread —
    median [min–max] of the queue's recall and precision and of both rankings' best
    recall at precision ≥ 0.9, and the seeds where the queue meets recall ≥ `target` at
    precision ≥ 0.9 and where the oracle's bound reaches `target`."""
    lines = [("| models | task | seeds | recall | precision | best recall at p≥0.9 | "
              "oracle best recall at p≥0.9 | seeds: queue meets target | "
              "seeds: oracle bound ≥ target |"),
             "|---:|---|---:|---|---|---|---|---:|---:|"]
    for n in sorted(runs):
        for task in TASK_SPACE:
            mine = [queue_rates(r[task]) for r in runs[n]]
            oracle = [queue_rates(r[task], "oracle") for r in runs[n]]
            meets = sum((m["recall"] or 0) >= target and (m["precision"] or 0) >= 0.9
                        for m in mine)
            bound = sum((o["best_recall"] or 0) >= target for o in oracle)
            lines.append(
                f"| {n} | {task} | {len(mine)} | {spread([m['recall'] for m in mine])} | "
                f"{spread([m['precision'] for m in mine])} | "
                f"{spread([m['best_recall'] for m in mine])} | "
                f"{spread([o['best_recall'] for o in oracle])} | {meets} | {bound} |")
    return "\n".join(lines)
