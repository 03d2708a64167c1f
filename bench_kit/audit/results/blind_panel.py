"""The blind panel and the vision gain of docs/AUDIT_METHODS.md#blind-panel.

Per item, every parsed answer given without the image (each model in each of
`blind_modes`) is one trial. The blind hits are tested against the hit rate of an
uninformed guesser (chance.py) in a one-sided binomial test; Benjamini–Hochberg over the
items gives q-values. Verdicts (docs/MODEL_AUDITS.md, "Statistics"):

- `prior_answerable`: the gold is the majority answer of a skewed template (chance.py);
- `text_answerable`: q < `fdr` and the chance-corrected hit rate (f − c)/(1 − c) is at
  least `text_answerable_gain`;
- `vision_required`: the hits are consistent with guessing (p > `vision_required_p`);
- `review`: neither (or fewer than `min_blind_runs` parsed blind answers).

Per model and capability, MG = accuracy with image − without, and ML = max(0, accuracy
without image − accuracy of the paired text-only base model).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from bench_kit.audit.results.chance import PriorVerdict, chance_rates
from bench_kit.audit.results.inputs import (
    ResultsAuditParams,
    ScoreTable,
    model_check,
    share,
)
from bench_kit.audit.results.significance import bh_qvalues, binomial_p_greater, sig
from bench_kit.scoring.aggregate import accuracy_block, breakdown
from bench_kit.types import Finding, Item

TEXT_ANSWERABLE = model_check(
    "redundancy.text_answerable", "warn",
    "the runs without the image answer right clearly more often than a blind guesser "
    "(docs/AUDIT_METHODS.md#blind-panel)")
BLIND_REVIEW = model_check(
    "redundancy.blind_review", "info",
    "the blind panel is neither clearly text-answerable nor consistent with guessing")
VERDICTS = ("text_answerable", "prior_answerable", "vision_required", "review")


@dataclass(frozen=True)
class BlindVerdict:
    """One item's blind-panel result: hits among parsed blind answers, chance, the
    chance-corrected rate (`gain`), p and q above chance, and the verdict."""

    id: str
    hits: int
    n: int
    fraction: float | None
    chance: float
    p_value: float | None
    verdict: str | None
    runs: dict[str, bool]
    gain: float | None = None
    q_value: float | None = None
    parse_failed: int = 0


def blind_verdicts(table: ScoreTable, params: ResultsAuditParams,
                   prior: dict[str, PriorVerdict] | None = None) -> dict[str, BlindVerdict]:
    """Item id -> its blind-panel verdict (`None` verdict when no blind answer parsed)."""
    runs = table.runs_in(params.blind_modes)
    chances = chance_rates(table.items, params)
    raw = []
    for item in table.items:
        scores = {f"{model}/{mode}": table.run(model, mode)[item.id]
                  for model, mode in runs if item.id in table.run(model, mode)}
        outcome = {run: s.hit for run, s in scores.items() if s.parse != "failed"}
        failed = len(scores) - len(outcome)
        n, hits = len(outcome), sum(outcome.values())
        p = binomial_p_greater(hits, n, chances[item.id]) if n else None
        raw.append((item, outcome, failed, n, hits, p))
    tested = [p for *_, p in raw if p is not None]
    qs = iter(bh_qvalues(tested))
    out: dict[str, BlindVerdict] = {}
    for item, outcome, failed, n, hits, p in raw:
        chance = chances[item.id]
        if p is None:
            out[item.id] = BlindVerdict(item.id, 0, 0, None, round(chance, 4), None, None, {},
                                        parse_failed=failed)
            continue
        q = next(qs)
        fraction = hits / n
        gain = (fraction - chance) / (1 - chance) if chance < 1 else 0.0
        if prior is not None and prior[item.id].answerable:
            verdict = "prior_answerable"
        elif n < params.min_blind_runs:
            verdict = "review"
        elif q < params.fdr and gain >= params.text_answerable_gain:
            verdict = "text_answerable"
        elif p > params.vision_required_p:
            verdict = "vision_required"
        else:
            verdict = "review"
        out[item.id] = BlindVerdict(item.id, hits, n, round(fraction, 4), round(chance, 4),
                                    sig(p), verdict, outcome, round(gain, 4), q, failed)
    return out


def blind_findings(verdicts: dict[str, BlindVerdict]) -> Iterable[Finding]:
    """`redundancy.text_answerable` and `redundancy.blind_review` findings (prior-answerable
    items get `redundancy.prior_answerable` from chance.py instead)."""
    for v in verdicts.values():
        if v.verdict not in ("text_answerable", "review"):
            continue
        spec = TEXT_ANSWERABLE if v.verdict == "text_answerable" else BLIND_REVIEW
        evidence = {"statistic": "blind_hits", "blind_hits": v.hits, "blind_runs": v.n,
                    "fraction": v.fraction, "chance": v.chance, "gain": v.gain,
                    "p_value": v.p_value, "q_value": v.q_value,
                    "parse_failed": v.parse_failed, "runs": v.runs}
        message = (f"{v.hits}/{v.n} answers without the image are right "
                   f"(chance {v.chance:.2f}, p={v.p_value:.3g}, q={v.q_value:.3g})")
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
    """Verdict counts overall and per capability, with the shares of judged items."""
    by_cap: dict[str, Counter] = defaultdict(Counter)
    capability = {item.id: item.capability for item in items}
    for v in verdicts.values():
        by_cap[capability[v.id]][v.verdict or "no_blind_runs"] += 1
    total: Counter = sum(by_cap.values(), Counter())
    judged = sum(total[k] for k in VERDICTS)

    def block(counts: Counter) -> dict:
        whole = sum(counts[k] for k in VERDICTS)
        return {**{k: counts[k] for k in (*VERDICTS, "no_blind_runs")},
                **{f"{k}_share": share(counts[k], whole) for k in VERDICTS[:3]}}

    return {"overall": block(total), "judged": judged,
            "by_capability": {cap: block(by_cap[cap]) for cap in sorted(by_cap)}}
