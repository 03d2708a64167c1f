"""What the panel's answers say about the label (docs/AUDIT_METHODS.md#panel-disagreement).

The panel is every model's `image` run; parse failures count in the panel size but cast
no vote.

- `label.suspect_gold`: the Dawid–Skene review queue of gold_review.py — each model's
  competence per capability measured on the rest of the benchmark, a likelihood ratio of
  "the most popular other answer is right" against "the gold is right", ranked by the local
  false-discovery rate; flagged while the queue's q-value is <= `label_fdr`, the popular
  answer holds >= `suspect_gold` of the panel and the gold < `split_share` of it;
- `ambiguity.model_split` tests the runner-up's vote count against the null "the panel's
  top answer is right; a model is right with probability max(its observed rate, chance)
  and otherwise picks one of the other answers uniformly" (significance.max_share_p):
  the expected answer is the panel's top answer, right as often
  as the panel is on a typical item (its mean accuracy); the statistic is the runner-up's
  share. Every item with a runner-up share ≥ `split_share` is listed for review: `warn`
  when q < `label_fdr`, else `info` (a small panel rarely proves a split). When the gold
  itself keeps ≥ `split_share` of the votes the item is a split, not a suspect gold.

model_split q-values: Benjamini–Hochberg over the items with a panel.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Sequence

from bench_kit.audit.results.chance import answer_spaces, gold_key
from bench_kit.audit.results.gold_review import (
    GoldModel,
    GoldReview,
    PanelItem,
    review_queue,
    vote_label,
)
from bench_kit.audit.results.inputs import ResultsAuditParams, ScoreTable, model_check
from bench_kit.audit.results.significance import bh_qvalues, max_share_p, sig
from bench_kit.types import Finding, Severity

MODEL_SPLIT = model_check(
    "ambiguity.model_split", "warn",
    "the models split between two answers (the question may admit both)")
SUSPECT_GOLD = model_check(
    "label.suspect_gold", "warn",
    "more of the panel agrees on one wrong answer than scattered misses would explain")


def panel_votes(table: ScoreTable, item_id: str) -> tuple[dict[str, str | None], set[str]]:
    """(model -> extracted answer in the image run, the answers scored as hits)."""
    votes: dict[str, str | None] = {}
    right: set[str] = set()
    for model in table.models:
        score = table.run(model, "image").get(item_id)
        if score is None:
            continue
        votes[model] = score.extracted
        if score.hit and score.extracted is not None:
            right.add(score.extracted)
    return votes, right


@dataclass(frozen=True)
class _Test:
    item_id: str
    panel: int
    votes: dict
    ranked: list
    answer: str | None
    count: int
    p_value: float
    extra: dict


def panel_accuracy(table: ScoreTable) -> float:
    """Mean hit rate of the image runs over every scored item (the typical item)."""
    rows = [s for model, mode in table.runs_in(["image"]) for s in table.run(model, mode).values()]
    return sum(s.hit for s in rows) / len(rows) if rows else 0.0


def panel_items(table: ScoreTable, params: ResultsAuditParams) -> list[PanelItem]:
    """The items with a panel of at least `min_panel` image runs, as votes for the gold
    review (a vote scored right is the gold; parse failures cast none)."""
    spaces = answer_spaces(table.items, params)
    out = []
    for item in table.items:
        scores = {m: table.run(m, "image")[item.id] for m in table.models
                  if item.id in table.run(m, "image")}
        if len(scores) < params.min_panel:
            continue
        gold = gold_key(item)
        votes = {m: label for m, s in scores.items()
                 if (label := vote_label(s.extracted, s.hit, gold)) is not None}
        out.append(PanelItem(item.id, item.task, item.capability, gold, spaces[item.id],
                             votes))
    return out


def gold_reviews(table: ScoreTable, params: ResultsAuditParams) -> dict[str, GoldReview]:
    """Item id -> its place in the suspect-gold review queue (items with a panel)."""
    items = panel_items(table, params)
    return review_queue(GoldModel(items).fit(), params.label_fdr) if items else {}


def _split_tests(table: ScoreTable, params: ResultsAuditParams) -> list[_Test]:
    """Per item with a panel: the model-split test."""
    spaces = answer_spaces(table.items, params)
    typical = panel_accuracy(table)
    split_tests = []
    for item in table.items:
        votes, _ = panel_votes(table, item.id)
        if len(votes) < params.min_panel:
            continue
        counts = Counter(answer for answer in votes.values() if answer is not None)
        cast = sum(counts.values())
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        space, chance = spaces[item.id], 1 / spaces[item.id]
        second = ranked[1] if len(ranked) >= 2 else (None, 0)
        split_others = max(space - 1, len(ranked) - 1)
        split_p = max_share_p(second[1], cast, max(typical, chance), max(1, split_others)) \
            if cast and second[1] else 1.0
        split_tests.append(_Test(item.id, len(votes), dict(ranked), ranked, second[0],
                                 second[1], split_p,
                                 {"gold": list(item.answers), "panel_accuracy": round(typical, 4)}))
    return split_tests


def suspect_gold_findings(table: ScoreTable, params: ResultsAuditParams,
                          reviews: dict[str, GoldReview]) -> list[Finding]:
    """`label.suspect_gold`: the flagged items of the review queue (module docstring)."""
    found = []
    for item in table.items:
        r = reviews.get(item.id)
        if r is None or not r.flagged or not r.panel:
            continue
        fraction = r.popular_votes / r.panel
        if fraction < params.suspect_gold or r.gold_votes / r.panel >= params.split_share:
            continue  # (a gold that keeps a split's share of the votes: model_split's case)
        votes, _ = panel_votes(table, item.id)
        counts = Counter(a for a in votes.values() if a is not None)
        shown = next((a for a in counts if vote_label(a, False, "") == r.popular), r.popular)
        severity: Severity = "error" if fraction >= params.suspect_gold_error else "warn"
        found.append(SUSPECT_GOLD.finding(
            item.id, f"{r.popular_votes}/{r.panel} models answer {shown!r}; gold is "
                     f"{list(item.answers)} (likelihood ratio {r.likelihood_ratio:.3g}, "
                     f"P(gold wrong)={r.posterior_wrong:.3g}, queue rank {r.rank}, "
                     f"q={r.q_value:.3g})",
            {"statistic": "gold_likelihood_ratio", "popular_answer": shown,
             "votes": dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))),
             "panel": r.panel, "fraction": round(fraction, 4),
             "likelihood_ratio": None if r.likelihood_ratio is None
             else sig(r.likelihood_ratio), "posterior_wrong":
                 sig(r.posterior_wrong), "local_fdr": sig(r.local_fdr),
             "q_value": sig(r.q_value), "rank": r.rank, "gold": list(item.answers),
             "right_votes": r.gold_votes,
             "models": sorted(m for m, a in votes.items() if a == shown)},
            severity=severity, score=r.posterior_wrong))
    return found


def disagreement_findings(table: ScoreTable, params: ResultsAuditParams,
                          reviews: dict[str, GoldReview] | None = None) -> Iterable[Finding]:
    """`label.suspect_gold` and `ambiguity.model_split` findings, items in file order."""
    if reviews is None:
        reviews = gold_reviews(table, params)
    found = suspect_gold_findings(table, params, reviews)
    split_tests = _split_tests(table, params)
    for test, q in zip(split_tests, bh_qvalues([t.p_value for t in split_tests])):
        if test.answer is None or test.count / test.panel < params.split_share:
            continue
        # a review prompt at any q (info); a statistical call (warn) only when q < label_fdr
        severity: Severity = "warn" if q < params.label_fdr else "info"
        (first, n1), (second, n2) = test.ranked[0], test.ranked[1]
        found.append(MODEL_SPLIT.finding(
            test.item_id, f"the panel splits between {first!r} ({n1}) and {second!r} ({n2}) "
                          f"of {test.panel} (p={test.p_value:.3g}, q={q:.3g})",
            {"statistic": "runner_up_share", "answers": [first, second],
             "fraction": round(n2 / test.panel, 4), "votes": test.votes,
             "panel": test.panel, "p_value": sig(test.p_value), "q_value": q,
             **test.extra},
            severity=severity, score=(n1 + n2) / test.panel))
    order = {item.id: n for n, item in enumerate(table.items)}
    found.sort(key=lambda f: (order[f.id], f.check))
    return found


def label_tests_summary(params: ResultsAuditParams, table: ScoreTable,
                        reviews: dict[str, GoldReview], findings: Sequence[Finding]) -> dict:
    """What the report states about the label tests: the level, the image panel, the items
    tested, and the suspect-gold review queue (items ranked, flagged at q <= `label_fdr`,
    and listed after the share rules)."""
    panel = sum((m, "image") in table.runs for m in table.models)
    tested = sum(1 for item in table.items
                 if len(panel_votes(table, item.id)[0]) >= params.min_panel)
    return {"label_fdr": params.label_fdr, "suspect_gold_share": params.suspect_gold,
            "image_panel": panel, "items_tested": tested,
            "review_queue": {"method": "dawid_skene", "level": params.label_fdr,
                             "ranked": len(reviews),
                             "flagged": sum(r.flagged for r in reviews.values()),
                             "listed": sum(f.check == SUSPECT_GOLD.name for f in findings)}}
