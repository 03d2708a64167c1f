"""What the panel's answers say about the label (docs/AUDIT_METHODS.md#panel-disagreement).

The panel is every model's `image` run; parse failures count in the panel size but cast
no vote. Both checks test the largest vote count among the answers that are *not* the
expected one against the null "the expected answer is right; a model is right with
probability max(its observed rate, chance) and otherwise picks one of the other answers
uniformly" (significance.max_share_p), so taking the most popular of several wrong answers
is accounted for:

- `label.suspect_gold`: the expected answer is the gold; the statistic is the largest
  share of one wrong answer (≥ `suspect_gold` of the panel, and q < `label_fdr`);
- `ambiguity.model_split`: the expected answer is the panel's top answer, right as often
  as the panel is on a typical item (its mean accuracy); the statistic is the runner-up's
  share. Every item with a runner-up share ≥ `split_share` is listed for review: `warn`
  when q < `label_fdr`, else `info` (a small panel rarely proves a split). When the gold
  itself keeps ≥ `split_share` of the votes the item is a split, not a suspect gold.

q-values: Benjamini–Hochberg over the items with a panel, per check. A yes/no item has one
wrong answer and chance 1/2, so n unanimous wrong votes have p = 2^-n: a panel of fewer
than `yesno_panel_needed` models can never flag a yes/no gold.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Iterable

from bench_kit.audit.results.chance import answer_spaces
from bench_kit.audit.results.inputs import ResultsAuditParams, ScoreTable, model_check
from bench_kit.audit.results.significance import bh_qvalues, max_share_p, sig
from bench_kit.types import Finding

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


def yesno_panel_needed(level: float) -> int:
    """Smallest panel whose unanimous wrong yes/no vote has p = 2^-n below `level`."""
    return max(1, math.floor(math.log2(1 / level)) + 1)


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


def _p(count: int, cast: int, expected: int, chance: float, others: int) -> float:
    if not cast or not count:
        return 1.0
    return max_share_p(count, cast, max(expected / cast, chance), max(1, others))


def panel_accuracy(table: ScoreTable) -> float:
    """Mean hit rate of the image runs over every scored item (the typical item)."""
    rows = [s for model, mode in table.runs_in(["image"]) for s in table.run(model, mode).values()]
    return sum(s.hit for s in rows) / len(rows) if rows else 0.0


def _tests(table: ScoreTable, params: ResultsAuditParams) -> tuple[list[_Test], list[_Test]]:
    """Per item with a panel: the suspect-gold test and the model-split test."""
    spaces = answer_spaces(table.items, params)
    typical = panel_accuracy(table)
    gold_tests, split_tests = [], []
    for item in table.items:
        votes, right = panel_votes(table, item.id)
        if len(votes) < params.min_panel:
            continue
        counts = Counter(answer for answer in votes.values() if answer is not None)
        cast = sum(counts.values())
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        space, chance = spaces[item.id], 1 / spaces[item.id]
        wrong = [(a, n) for a, n in ranked if a not in right]
        n_right = cast - sum(n for _, n in wrong)
        others = max(space - 1, len(wrong))
        top_wrong = wrong[0] if wrong else (None, 0)
        gold_tests.append(_Test(item.id, len(votes), dict(ranked), ranked, top_wrong[0],
                                top_wrong[1], _p(top_wrong[1], cast, n_right, chance, others),
                                {"gold": list(item.answers), "right_votes": n_right,
                                 "wrong_options": others}))
        second = ranked[1] if len(ranked) >= 2 else (None, 0)
        split_others = max(space - 1, len(ranked) - 1)
        split_p = max_share_p(second[1], cast, max(typical, chance), max(1, split_others)) \
            if cast and second[1] else 1.0
        split_tests.append(_Test(item.id, len(votes), dict(ranked), ranked, second[0],
                                 second[1], split_p,
                                 {"gold": list(item.answers), "panel_accuracy": round(typical, 4)}))
    return gold_tests, split_tests


def disagreement_findings(table: ScoreTable, params: ResultsAuditParams) -> Iterable[Finding]:
    """`label.suspect_gold` and `ambiguity.model_split` findings, items in file order."""
    gold_tests, split_tests = _tests(table, params)
    found: list[Finding] = []
    for test, q in zip(gold_tests, bh_qvalues([t.p_value for t in gold_tests])):
        fraction = test.count / test.panel
        if test.answer is None or fraction < params.suspect_gold or q >= params.label_fdr \
                or test.extra["right_votes"] / test.panel >= params.split_share:
            continue  # (a gold that keeps a split's share of the votes: model_split's case)
        severity = "error" if fraction >= params.suspect_gold_error else "warn"
        votes, _ = panel_votes(table, test.item_id)
        found.append(SUSPECT_GOLD.finding(
            test.item_id, f"{test.count}/{test.panel} models answer {test.answer!r}; gold is "
                          f"{test.extra['gold']} (p={test.p_value:.3g}, q={q:.3g})",
            {"statistic": "max_wrong_share", "popular_answer": test.answer,
             "votes": test.votes, "panel": test.panel, "fraction": round(fraction, 4),
             "p_value": sig(test.p_value), "q_value": q, **test.extra,
             "models": sorted(m for m, a in votes.items() if a == test.answer)},
            severity=severity, score=fraction))
    for test, q in zip(split_tests, bh_qvalues([t.p_value for t in split_tests])):
        if test.answer is None or test.count / test.panel < params.split_share:
            continue
        # a review prompt at any q (info); a statistical call (warn) only when q < label_fdr
        severity = "warn" if q < params.label_fdr else "info"
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


def label_tests_summary(params: ResultsAuditParams, table: ScoreTable) -> dict:
    """What the report states about the label tests: the level, the image panel, and the
    yes/no panel needed to flag at all (best case: many other calls; alone: the only
    call among the items with a panel)."""
    panel = sum((m, "image") in table.runs for m in table.models)
    tested = sum(1 for item in table.items
                 if len(panel_votes(table, item.id)[0]) >= params.min_panel)
    return {"label_fdr": params.label_fdr, "suspect_gold_share": params.suspect_gold,
            "image_panel": panel, "items_tested": tested,
            "yesno_panel_needed": yesno_panel_needed(params.label_fdr),
            "yesno_panel_needed_alone": yesno_panel_needed(params.label_fdr / max(1, tested))}
