"""The blind panel and the vision gain of DOMAIN §5.1.

Per item, every run without the image (each model in each of `blind_modes`) is one trial;
the blind-hit fraction f and a one-sided binomial test against the item's chance rate
give the verdict `text_answerable`, `vision_required` or `review`. Per model and
capability, MG = accuracy with image − without, and ML = max(0, accuracy without image −
accuracy of the paired text-only base model).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from bench_kit.audit.results.inputs import (
    ResultsAuditParams,
    ScoreTable,
    model_check,
    share,
)
from bench_kit.scoring.aggregate import accuracy_block, breakdown
from bench_kit.text.normalize import normalize_for_audit
from bench_kit.types import Finding, Item

TEXT_ANSWERABLE = model_check(
    "redundancy.text_answerable", "warn",
    "most models answer right without the image, beating chance (DOMAIN §5.1)")
BLIND_REVIEW = model_check(
    "redundancy.blind_review", "info",
    "the blind panel is neither clearly text-answerable nor clearly vision-bound")


def binomial_p_greater(hits: int, n: int, chance: float) -> float:
    """One-sided exact binomial p-value P(X >= hits) for X ~ Bin(n, chance).

    >>> round(binomial_p_greater(3, 3, 0.25), 4)
    0.0156
    >>> binomial_p_greater(0, 4, 0.5)
    1.0
    """
    if hits <= 0:
        return 1.0
    return min(1.0, sum(math.comb(n, k) * chance ** k * (1 - chance) ** (n - k)
                        for k in range(hits, n + 1)))


def _gold_key(item: Item) -> str:
    return normalize_for_audit(item.answers[0]) if item.answers else ""


def _chance_group(item: Item) -> str:
    # Items of one template share an answer distribution; hand-written ones are pooled by
    # capability and task.
    if item.source.startswith("template:"):
        return item.source
    return f"{item.capability}|{item.task}"


def chance_rates(items: Sequence[Item]) -> dict[str, float]:
    """Item id -> the hit rate of a blind guess.

    mc: 1/k; yesno: 1/2; checklist: 1/2 per check; numeric, open and grounding: the share
    of the most common gold among the items of the same template (or capability and task),
    i.e. the rate of always guessing the most frequent answer.
    """
    groups: dict[str, Counter] = defaultdict(Counter)
    for item in items:
        if item.task in ("numeric", "open", "grounding"):
            groups[_chance_group(item)][_gold_key(item)] += 1
    rates: dict[str, float] = {}
    for item in items:
        if item.task == "mc":
            rates[item.id] = 1 / max(1, len(item.choices or {}))
        elif item.task == "yesno":
            rates[item.id] = 0.5
        elif item.task == "checklist":
            rates[item.id] = 0.5 ** max(1, len(item.checks or []))
        else:
            counts = groups[_chance_group(item)]
            rates[item.id] = counts.most_common(1)[0][1] / sum(counts.values())
    return rates


@dataclass(frozen=True)
class BlindVerdict:
    """One item's blind-panel result."""

    id: str
    hits: int
    n: int
    fraction: float | None
    chance: float
    p_value: float | None
    verdict: str | None
    runs: dict[str, bool]


def blind_verdicts(table: ScoreTable, params: ResultsAuditParams) -> dict[str, BlindVerdict]:
    """Item id -> its blind-panel verdict (`None` verdict when no blind run scored it)."""
    runs = table.runs_in(params.blind_modes)
    chances = chance_rates(table.items)
    out: dict[str, BlindVerdict] = {}
    for item in table.items:
        outcome = {f"{model}/{mode}": table.run(model, mode)[item.id].hit
                   for model, mode in runs if item.id in table.run(model, mode)}
        n, hits = len(outcome), sum(outcome.values())
        chance = chances[item.id]
        if not n:
            out[item.id] = BlindVerdict(item.id, 0, 0, None, round(chance, 4), None, None, {})
            continue
        fraction = hits / n
        p_value = binomial_p_greater(hits, n, chance)
        if fraction <= params.vision_required:
            verdict = "vision_required"
        elif fraction >= params.text_answerable and p_value < params.alpha:
            verdict = "text_answerable"
        else:
            verdict = "review"
        out[item.id] = BlindVerdict(item.id, hits, n, round(fraction, 4), round(chance, 4),
                                    round(p_value, 6), verdict, outcome)
    return out


def blind_findings(verdicts: dict[str, BlindVerdict]) -> Iterable[Finding]:
    """`redundancy.text_answerable` and `redundancy.blind_review` findings."""
    for v in verdicts.values():
        if v.verdict not in ("text_answerable", "review"):
            continue
        spec = TEXT_ANSWERABLE if v.verdict == "text_answerable" else BLIND_REVIEW
        evidence = {"blind_hits": v.hits, "blind_runs": v.n, "fraction": v.fraction,
                    "chance": v.chance, "p_value": v.p_value, "runs": v.runs}
        message = (f"{v.hits}/{v.n} runs without the image answer right "
                   f"(chance {v.chance:.2f}, p={v.p_value:.3g})")
        score = v.fraction if spec is TEXT_ANSWERABLE else None
        yield spec.finding(v.id, message, evidence, score=score)


def _accuracy(block: dict) -> float | None:
    return block["accuracy"]


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 6)


def _scores(table: ScoreTable, model: str, mode: str) -> list:
    return list(table.run(model, mode).values())


def vision_gain(table: ScoreTable, params: ResultsAuditParams) -> dict[str, dict]:
    """Per model: MG and ML overall and per capability, with the accuracies behind them.

    MG needs the `image` and `no_image` runs; ML needs `no_image` and a base model named in
    `base_models` with a run (its `no_image` run, else whichever mode it ran).
    """
    out: dict[str, dict] = {}
    for model in table.models:
        by_mode = {mode: _scores(table, model, mode) for mode in table.modes_of(model)}
        acc = {mode: _accuracy(accuracy_block(rows)) for mode, rows in by_mode.items()}
        caps = {mode: {cap: block["accuracy"] for cap, block in
                       breakdown(rows, table.by_id, "capability").items()}
                for mode, rows in by_mode.items()}
        entry: dict = {"accuracy": acc, "mg": _diff(acc.get("image"), acc.get("no_image")),
                       "mg_blank": _diff(acc.get("image"), acc.get("blank_image")),
                       "base_model": params.base_models.get(model), "ml": None,
                       "by_capability": {}}
        base = params.base_models.get(model)
        base_mode = None
        if base is not None:
            base_modes = table.modes_of(base)
            base_mode = "no_image" if "no_image" in base_modes else \
                (base_modes[0] if base_modes else None)
        base_caps: dict = {}
        if base_mode is not None:
            base_rows = _scores(table, base, base_mode)
            ml = _diff(acc.get("no_image"), _accuracy(accuracy_block(base_rows)))
            entry["ml"] = None if ml is None else max(0.0, ml)
            base_caps = {cap: block["accuracy"] for cap, block in
                         breakdown(base_rows, table.by_id, "capability").items()}
        entry["base_mode"] = base_mode
        capabilities = sorted({cap for rows in caps.values() for cap in rows})
        for cap in capabilities:
            with_image, without = caps.get("image", {}).get(cap), caps.get("no_image", {}).get(cap)
            ml = _diff(without, base_caps.get(cap)) if base_mode else None
            entry["by_capability"][cap] = {"mg": _diff(with_image, without),
                                           "ml": None if ml is None else max(0.0, ml)}
        out[model] = entry
    return out


def verdict_counts(verdicts: dict[str, BlindVerdict], items: Sequence[Item]) -> dict:
    """Verdict counts overall and per capability, with the share of judged items."""
    by_cap: dict[str, Counter] = defaultdict(Counter)
    capability = {item.id: item.capability for item in items}
    for v in verdicts.values():
        by_cap[capability[v.id]][v.verdict or "no_blind_runs"] += 1
    total: Counter = sum(by_cap.values(), Counter())
    judged = sum(total[k] for k in ("text_answerable", "vision_required", "review"))

    def block(counts: Counter) -> dict:
        keys = ("text_answerable", "vision_required", "review", "no_blind_runs")
        return {**{k: counts[k] for k in keys},
                "text_answerable_share": share(counts["text_answerable"],
                                               sum(counts[k] for k in keys[:3]))}

    return {"overall": block(total), "judged": judged,
            "by_capability": {cap: block(by_cap[cap]) for cap in sorted(by_cap)}}
