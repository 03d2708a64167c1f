"""The blind panel and the vision gain of docs/AUDIT_METHODS.md#blind-panel.

One model is one vote. A panel member is a model with a run in `blind_modes`, except the
`chance_models` (e.g. `random`: chance by construction, no evidence). Per item, a member's
parsed blind answers (every blind mode) are deduplicated — identical responses count once,
so a deterministic model that answers alike with no image and a blank image is one
observation, not two — and combined into one observation:

- `hit` when more than half of its distinct answers are right, `miss` when fewer are;
- a tie (e.g. right in 1 of 2 blind modes with different answers) is decided by its answer
  in the first blind mode it answered (`blind_modes` order; default no_image, then blank_image),
  so a model's vote is right with the probability of one blind run (no double count, no
  bias toward either call); ties are counted in `ties`.

The member hits are tested against the hit rate of an uninformed guesser (chance.py) in a
one-sided binomial test; Benjamini–Hochberg over the tested items gives q-values.
Verdicts (docs/MODEL_AUDITS.md, "Statistics"), first match wins:

- `no_image`: the item has no image; the blind panel says nothing about vision;
- `prior_answerable`: the gold is the majority answer of a skewed answer group (chance.py);
- `undetermined`: even a unanimous panel could not be significant (chance^members ≥ `fdr`,
  e.g. three models on a yes/no item: p = 0.125), or fewer than `min_blind_runs` members
  answered; `panel_needed` says how many models it would take;
- `text_answerable`: q < `fdr` and the chance-corrected hit rate (f − c)/(1 − c) is at
  least `text_answerable_gain`;
- `vision_required`: the hits, ties counted as hits, are consistent with guessing
  (p > `vision_required_p`);
- `review`: neither.

Per model and capability (items with an image only), MG = accuracy with image − without,
and ML = max(0, accuracy without image − accuracy of the paired text-only base model).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from bench_kit.audit.results.chance import PriorVerdict, chance_rates
from bench_kit.audit.results.inputs import (
    ResultsAuditParams,
    ScoreTable,
    model_check,
    share,
)
from bench_kit.audit.results.significance import bh_qvalues, binomial_p_greater, sig
from bench_kit.stats.accuracy import accuracy_block, breakdown
from bench_kit.types import Finding, Item

TEXT_ANSWERABLE = model_check(
    "redundancy.text_answerable", "warn",
    "the runs without the image answer right clearly more often than a blind guesser "
    "(docs/AUDIT_METHODS.md#blind-panel)")
BLIND_REVIEW = model_check(
    "redundancy.blind_review", "info",
    "the blind panel is neither clearly text-answerable nor consistent with guessing")
VERDICTS = ("text_answerable", "prior_answerable", "vision_required", "undetermined",
            "review")
NO_IMAGE = "no_image"


@dataclass(frozen=True)
class BlindVerdict:
    """One item's blind-panel result: member votes right (`hits`) and decided by a tie
    (`ties`) among `n` panel members with a parsed blind answer, chance, the chance-corrected rate
    (`gain`), p and q above chance, and the verdict."""

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
    ties: int = 0
    members: dict[str, str] = field(default_factory=dict)
    panel_needed: int | None = None


def panel_members(table: ScoreTable, params: ResultsAuditParams) -> list[str]:
    """The models of the blind panel: a run in `blind_modes`, not a chance model."""
    excluded = set(params.chance_models)
    return sorted({model for model, _ in table.runs_in(params.blind_modes)} - excluded)


def panel_needed(chance: float, level: float) -> int:
    """Smallest panel whose unanimous blind hits have p = chance^n below `level`.

    >>> panel_needed(0.5, 0.05), panel_needed(0.25, 0.05)
    (5, 3)
    """
    if chance <= 0.0:
        return 1
    if chance >= 1.0:
        return 0  # never significant; callers treat 0 as "no panel suffices"
    return max(1, math.floor(math.log(level) / math.log(chance)) + 1)


def combine(answers: dict[str, tuple[str | None, bool]]) -> str:
    """One member's observation from its parsed blind runs (run -> (answer, hit)):
    identical answers count once; `hit`, `miss` or `tie` by majority of the distinct ones.

    >>> combine({"no_image": ("A", True), "blank_image": ("A", True)})
    'hit'
    >>> combine({"no_image": ("A", True), "blank_image": ("B", False)})
    'tie'
    """
    distinct = set(answers.values())
    right = sum(hit for _, hit in distinct)
    wrong = len(distinct) - right
    return "hit" if right > wrong else "miss" if right < wrong else "tie"


def _observe(table: ScoreTable, item: Item, members: list[str], modes: Sequence[str]):
    """(run -> hit, member -> observation, parse failures) for one item."""
    runs: dict[str, bool] = {}
    observed: dict[str, str] = {}
    failed = 0
    for model in members:
        answers: dict[str, tuple[str | None, bool]] = {}
        for mode in modes:
            score = table.run(model, mode).get(item.id)
            if score is None:
                continue
            if score.parse == "failed":
                failed += 1
                continue
            runs[f"{model}/{mode}"] = score.hit
            answers[mode] = (score.extracted, score.hit)
        if answers:
            vote = combine(answers)
            if vote == "tie":
                vote = "tie:" + ("hit" if next(iter(answers.values()))[1] else "miss")
            observed[model] = vote
    return runs, observed, failed


def blind_verdicts(table: ScoreTable, params: ResultsAuditParams,
                   prior: dict[str, PriorVerdict] | None = None) -> dict[str, BlindVerdict]:
    """Item id -> its blind-panel verdict (`None` verdict when no member's answer parsed)."""
    members = panel_members(table, params)
    modes = list(params.blind_modes)
    chances = chance_rates(table.items, params)
    raw = []
    for item in table.items:
        runs, observed, failed = _observe(table, item, members, modes)
        n, chance = len(observed), chances[item.id]
        hits = sum(o.endswith("hit") for o in observed.values())
        ties = sum(o.startswith("tie") for o in observed.values())
        needed = max(params.min_blind_runs, panel_needed(chance, params.fdr))
        # only items a panel this size could call enter the BH family
        testable = bool(item.images) and n >= needed and chance < 1.0
        p = binomial_p_greater(hits, n, chance) if n else None
        raw.append((item, runs, observed, failed, n, hits, ties, needed, testable, p))
    # a testable item has n >= needed >= 1 runs, so its p is never None
    qs = iter(bh_qvalues([r[-1] for r in raw if r[-2] and r[-1] is not None]))
    out: dict[str, BlindVerdict] = {}
    for item, runs, observed, failed, n, hits, ties, needed, testable, p in raw:
        chance = chances[item.id]
        q = next(qs) if testable else None
        if p is None:
            out[item.id] = BlindVerdict(
                item.id, 0, 0, None, round(chance, 4), None,
                NO_IMAGE if not item.images else None, {}, parse_failed=failed,
                panel_needed=needed)
            continue
        fraction = hits / n
        gain = (fraction - chance) / (1 - chance) if chance < 1 else 0.0
        if not item.images:
            verdict = NO_IMAGE
        elif prior is not None and prior[item.id].answerable:
            verdict = "prior_answerable"
        elif q is None:
            verdict = "undetermined"
        elif q < params.fdr and gain >= params.text_answerable_gain:
            verdict = "text_answerable"
        elif p > params.vision_required_p:
            verdict = "vision_required"
        else:
            verdict = "review"
        out[item.id] = BlindVerdict(item.id, hits, n, round(fraction, 4), round(chance, 4),
                                    sig(p), verdict, runs, round(gain, 4), q, failed, ties,
                                    observed, needed)
    return out


def blind_findings(verdicts: dict[str, BlindVerdict]) -> Iterable[Finding]:
    """`redundancy.text_answerable` and `redundancy.blind_review` findings (prior-answerable
    items get `redundancy.prior_answerable` from chance.py instead)."""
    for v in verdicts.values():
        if v.verdict not in ("text_answerable", "review"):
            continue
        spec = TEXT_ANSWERABLE if v.verdict == "text_answerable" else BLIND_REVIEW
        evidence = {"statistic": "blind_model_hits", "blind_hits": v.hits, "blind_runs": v.n,
                    "ties": v.ties, "members": v.members,
                    "fraction": v.fraction, "chance": v.chance, "gain": v.gain,
                    "p_value": v.p_value, "q_value": v.q_value,
                    "parse_failed": v.parse_failed, "runs": v.runs}
        message = (f"{v.hits}/{v.n} models answer right without the image "
                   f"(chance {v.chance:.2f}, p={v.p_value:.3g}, q={v.q_value:.3g})")
        score = v.fraction if spec is TEXT_ANSWERABLE else None
        yield spec.finding(v.id, message, evidence, score=score)


def _accuracy(block: dict) -> float | None:
    return block["accuracy"]


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(a - b, 6)


def _scores(table: ScoreTable, model: str, mode: str) -> list:
    """A run's scores on the items with an image (MG/ML leave text-only items out)."""
    return [s for item_id, s in table.run(model, mode).items() if table.by_id[item_id].images]


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
        if base is not None and base_mode is not None:
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
    """Verdict counts overall and per capability, with the shares of judged items (items
    without an image are counted apart and left out of the shares)."""
    by_cap: dict[str, Counter] = defaultdict(Counter)
    capability = {item.id: item.capability for item in items}
    for v in verdicts.values():
        by_cap[capability[v.id]][v.verdict or "no_blind_runs"] += 1
    total: Counter = sum(by_cap.values(), Counter())
    judged = sum(total[k] for k in VERDICTS)

    def block(counts: Counter) -> dict:
        whole = sum(counts[k] for k in VERDICTS)
        return {**{k: counts[k] for k in (*VERDICTS, NO_IMAGE, "no_blind_runs")},
                **{f"{k}_share": share(counts[k], whole) for k in VERDICTS[:4]}}

    return {"overall": block(total), "judged": judged, "items_without_image": total[NO_IMAGE],
            "by_capability": {cap: block(by_cap[cap]) for cap in sorted(by_cap)}}


def panel_summary(table: ScoreTable, params: ResultsAuditParams,
                  verdicts: dict[str, BlindVerdict],
                  language_models: Sequence[str] = ()) -> dict:
    """What the blind panel can and cannot see: its members and size in models, whether it
    holds a language model, and per chance level the panel needed and the smallest
    chance-corrected effect it can detect (the fewest member hits with p < `fdr`)."""
    members = panel_members(table, params)
    lms = sorted(set(members) & set(language_models))
    chances = Counter(round(v.chance, 4) for v in verdicts.values() if v.verdict != NO_IMAGE)
    detect = []
    n = len(members)
    for chance in sorted(chances):
        needed = max(params.min_blind_runs, panel_needed(chance, params.fdr))
        smallest = next((k for k in range(n + 1)
                         if binomial_p_greater(k, n, chance) < params.fdr), None) \
            if n >= needed else None
        effect = None if smallest is None else round((smallest / n - chance) / (1 - chance), 4)
        detect.append({"chance": chance, "items": chances[chance], "panel_needed": needed,
                       "min_hits": smallest, "min_gain": effect})
    return {"members": members, "size": n, "excluded": sorted(
                {m for m, _ in table.runs_in(params.blind_modes)} & set(params.chance_models)),
            "language_models": lms, "holds_language_model": bool(lms),
            "rule": "one vote per model and item: its distinct parsed blind answers, "
                    "right if most are right; a tie is decided by its answer in the first "
                    "blind mode it answered",
            "detectable": detect}
