"""What the panel's answers say about the label (DOMAIN §5.3).

The panel is every model's `image` run. When the models split between two answers the
question is likely ambiguous (`ambiguity.model_split`); when ≥ 60% of the panel gives the
same answer and that answer is scored wrong, the gold is suspect (`label.suspect_gold`) —
provided so many models would not land on one answer by luck: the agreement must beat the
item's blind-guess rate in a one-sided binomial test at `alpha`, so three guessers agreeing
on "no" do not impeach a yes/no gold.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from bench_kit.audit.results.blind_panel import binomial_p_greater, chance_rates
from bench_kit.audit.results.inputs import ResultsAuditParams, ScoreTable, model_check
from bench_kit.types import Finding

MODEL_SPLIT = model_check(
    "ambiguity.model_split", "warn",
    "the models split between two answers (the question may admit both)")
SUSPECT_GOLD = model_check(
    "label.suspect_gold", "warn",
    "most of the panel agrees on the same answer, and it is not the gold")


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


def disagreement_findings(table: ScoreTable, params: ResultsAuditParams) -> Iterable[Finding]:
    """`ambiguity.model_split` and `label.suspect_gold` findings, items in file order."""
    chances = chance_rates(table.items)
    for item in table.items:
        votes, right = panel_votes(table, item.id)
        panel = len(votes)
        if panel < params.min_panel:
            continue
        counts = Counter(answer for answer in votes.values() if answer is not None)
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        vote_table = dict(ranked)
        wrong = [(answer, n) for answer, n in ranked if answer not in right]
        p_value = binomial_p_greater(wrong[0][1], panel, chances[item.id]) if wrong else 1.0
        if wrong and wrong[0][1] / panel >= params.suspect_gold and p_value < params.alpha:
            answer, n = wrong[0]
            fraction = n / panel
            severity = "error" if fraction >= params.suspect_gold_error else "warn"
            yield SUSPECT_GOLD.finding(
                item.id, f"{n}/{panel} models answer {answer!r}; gold is {item.answers}",
                {"popular_answer": answer, "votes": vote_table, "panel": panel,
                 "fraction": round(fraction, 4), "p_value": round(p_value, 6), "gold": list(item.answers),
                 "models": sorted(m for m, a in votes.items() if a == answer)},
                severity=severity, score=fraction)
        if len(ranked) >= 2 and ranked[1][1] / panel >= params.split_share:
            (first, n1), (second, n2) = ranked[0], ranked[1]
            yield MODEL_SPLIT.finding(
                item.id, f"the panel splits between {first!r} ({n1}) and {second!r} ({n2}) "
                         f"of {panel}",
                {"answers": [first, second], "votes": vote_table, "panel": panel,
                 "gold": list(item.answers)},
                score=(n1 + n2) / panel)
