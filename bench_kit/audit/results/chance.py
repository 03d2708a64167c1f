"""What a blind guesser gets right: answer spaces, chance rates and prior-answerable items.

Chance is the hit rate of an *uninformed* guesser, one who knows the possible answers but
not how often each is the gold: 1/k for k-option mc, 1/2 for yes/no, 1/2 per check for a
checklist, and for numeric, open and grounding items 1/d where d is the number of distinct
golds among the items of the same answer group (the template; hand-written items: same
capability and task), counted as at least `open_min_options`.

A guesser who has learnt the answer distribution does better: when one gold dominates a
group (majority share >= `prior_share`), its items with that gold are answerable from
the prior alone — `redundancy.prior_answerable`, a defect of the benchmark's design, not
of any one item (docs/MODEL_AUDITS.md).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Iterable, Sequence

from bench_kit.audit.results.inputs import ResultsAuditParams, model_check
from bench_kit.audit.results.significance import bh_qvalues, binomial_p_greater, sig
from bench_kit.text.normalize import normalize_for_audit
from bench_kit.types import Finding, Item

PRIOR_ANSWERABLE = model_check(
    "redundancy.prior_answerable", "warn",
    "the gold is the majority answer of its template, so guessing that answer without the "
    "image is right most of the time")


def gold_key(item: Item) -> str:
    """The item's first gold, normalised (the value a guesser would have to name)."""
    return normalize_for_audit(item.answers[0]) if item.answers else ""


def answer_group(item: Item) -> str:
    """Items that share an answer distribution: the template, else capability and task."""
    base = item.source if item.source.startswith("template:") else item.capability
    return f"{base}|{item.task}"


def answer_spaces(items: Sequence[Item], params: ResultsAuditParams) -> dict[str, int]:
    """Item id -> the number of answers an uninformed guesser chooses from."""
    distinct: dict[str, set[str]] = defaultdict(set)
    for item in items:
        distinct[answer_group(item)].add(gold_key(item))
    spaces: dict[str, int] = {}
    for item in items:
        if item.task == "mc":
            spaces[item.id] = max(1, len(item.choices or {}))
        elif item.task == "yesno":
            spaces[item.id] = 2
        elif item.task == "checklist":
            spaces[item.id] = 2 ** max(1, len(item.checks or []))
        else:
            spaces[item.id] = max(params.open_min_options, len(distinct[answer_group(item)]))
    return spaces


def chance_rates(items: Sequence[Item],
                 params: ResultsAuditParams | None = None) -> dict[str, float]:
    """Item id -> the hit rate of an uninformed blind guesser (1 / answer space)."""
    spaces = answer_spaces(items, params or ResultsAuditParams())
    return {item_id: 1.0 / space for item_id, space in spaces.items()}


@dataclass(frozen=True)
class PriorGroup:
    """One answer group's gold distribution and its test against uniform guessing."""

    group: str
    items: int
    majority: str          # normalised (compared with gold_key)
    majority_shown: str    # as the first item with it writes it
    count: int
    share: float
    answer_space: int
    p_value: float
    skewed: bool


def prior_groups(items: Sequence[Item], params: ResultsAuditParams) -> dict[str, PriorGroup]:
    """Group -> its majority gold, the share of items with it, and a p-value.

    The p-value is P(some answer is the gold of >= `count` of the group's items) when the
    golds are uniform over the answer space (a union bound over the d answers:
    d * P(Bin(n, 1/d) >= count)). `skewed`: enough items, share >= `prior_share`.
    """
    golds: dict[str, Counter] = defaultdict(Counter)
    spaces = answer_spaces(items, params)
    space_of: dict[str, int] = {}
    shown: dict[tuple[str, str], str] = {}  # (group, key) -> the gold as first written
    for item in items:
        golds[answer_group(item)][gold_key(item)] += 1
        space_of[answer_group(item)] = spaces[item.id]
        shown.setdefault((answer_group(item), gold_key(item)),
                         item.answers[0] if item.answers else "")
    out: dict[str, PriorGroup] = {}
    for group, counts in sorted(golds.items()):
        n = sum(counts.values())
        majority, count = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        d = space_of[group]
        p = min(1.0, d * binomial_p_greater(count, n, 1.0 / d))
        share = count / n
        out[group] = PriorGroup(group, n, majority, shown[(group, majority)], count,
                                round(share, 4), d, sig(p),
                                n >= params.prior_min_items and share >= params.prior_share)
    return out


@dataclass(frozen=True)
class PriorVerdict:
    """An item's prior test: its group, whether its gold is the group's majority, p, q."""

    id: str
    group: PriorGroup
    majority_gold: bool
    p_value: float
    q_value: float
    answerable: bool


def prior_verdicts(items: Sequence[Item], params: ResultsAuditParams) -> dict[str, PriorVerdict]:
    """Item id -> its prior verdict; BH over all items (p = 1 unless the gold is the
    majority of a skewed group)."""
    groups = prior_groups(items, params)
    rows = []
    for item in items:
        group = groups[answer_group(item)]
        majority = gold_key(item) == group.majority
        rows.append((item.id, group, majority, group.p_value if majority and group.skewed
                     else 1.0))
    qs = bh_qvalues([p for *_, p in rows])
    return {item_id: PriorVerdict(item_id, group, majority, p, q,
                                  majority and group.skewed and q < params.fdr)
            for (item_id, group, majority, p), q in zip(rows, qs)}


def prior_findings(verdicts: dict[str, PriorVerdict], blind: dict) -> Iterable[Finding]:
    """`redundancy.prior_answerable` findings (the blind panel's hits in the evidence)."""
    for v in verdicts.values():
        if not v.answerable:
            continue
        g, b = v.group, blind.get(v.id)
        evidence = {"statistic": "majority_gold_share", "share": g.share,
                    "group": g.group, "majority_answer": g.majority_shown, "group_items": g.items,
                    "majority_items": g.count, "answer_space": g.answer_space,
                    "p_value": v.p_value, "q_value": v.q_value}
        if b is not None:
            evidence.update(blind_hits=b.hits, blind_runs=b.n, blind_p_value=b.p_value)
        yield PRIOR_ANSWERABLE.finding(
            v.id, f"{g.count}/{g.items} items of {g.group.rsplit('|', 1)[0]} have the gold "
                  f"{g.majority_shown!r}; guessing it without the image is right "
                  f"{100 * g.share:.0f}% of the time (q={v.q_value:.3g})",
            evidence, score=g.share)


def prior_by_template(groups: dict[str, PriorGroup], blind: dict, items: Sequence[Item],
                      params: ResultsAuditParams) -> list[dict]:
    """Per answer group, most guessable first: items, majority answer and share (the
    accuracy of always guessing it, i.e. the prior's accuracy), chance, p, blind hit rate."""
    hits: Counter = Counter()
    runs: Counter = Counter()
    for item in items:
        b = blind.get(item.id)
        if b is not None:
            hits[answer_group(item)] += b.hits
            runs[answer_group(item)] += b.n
    rows = [{"group": g.group, "items": g.items, "majority_answer": g.majority_shown,
             "prior_accuracy": g.share, "chance": round(1 / g.answer_space, 4),
             "p_value": g.p_value, "skewed": g.skewed,
             "blind_accuracy": round(hits[g.group] / runs[g.group], 4) if runs[g.group]
             else None} for g in groups.values()]
    rows.sort(key=lambda r: (-r["prior_accuracy"], r["group"]))
    return rows
