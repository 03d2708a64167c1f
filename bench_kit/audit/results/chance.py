"""What a blind guesser gets right: answer spaces, chance rates and prior-answerable items.

Chance is the hit rate of an *uninformed* guesser, one who knows the possible answers but
not how often each is the gold: 1/k for k-option mc, 1/2 for yes/no, 1/2 per check for a
checklist, and for numeric, open and grounding items 1/d where d is the number of distinct
golds among the items of the same answer group (the template; hand-written items: same
capability and task), counted as at least `open_min_options`.

A guesser who has learnt the answer distribution does better. Its units are the answer
groups of prior_units.py (templates; for imported items their skill/category fields and
question patterns). When one gold *text* dominates a group in the prior's data (the items
audited, or a separate split such as train/dev: `prior_items`) — majority share >=
`prior_share` over >= `prior_min_items` items, and the group's skew significant after
Benjamini–Hochberg over the groups — the audited items of that group whose gold is that
text are answerable from the prior alone: `redundancy.prior_answerable`, a defect of the
benchmark's design, not of any one item (docs/MODEL_AUDITS.md).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from bench_kit.audit.results.inputs import ResultsAuditParams, model_check
from bench_kit.audit.results.prior_units import gold_text, prior_units
from bench_kit.audit.results.significance import bh_qvalues, binomial_p_greater, sig
from bench_kit.types import Finding, Item

PRIOR_ANSWERABLE = model_check(
    "redundancy.prior_answerable", "warn",
    "the gold is the majority answer of its template, so guessing that answer without the "
    "image is right most of the time")

gold_key = gold_text  # the value a guesser has to name (one definition: prior_units.py)


def answer_group(item: Item) -> str:
    """Items that share an answer space: the template, else capability and task."""
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
    """One answer group's gold distribution (in the prior's data) and its test against
    uniform guessing; `q_value`: Benjamini–Hochberg over the groups tested."""

    group: str
    items: int
    majority: str          # normalised answer text (compared with gold_key)
    majority_shown: str    # as the first item with it writes it
    count: int
    share: float
    answer_space: int
    p_value: float
    skewed: bool
    q_value: float = 1.0


def _shown(item: Item) -> str:
    if not item.answers:
        return ""
    gold = item.answers[0]
    return item.choices.get(gold, gold) if item.task == "mc" and item.choices else gold


def prior_groups(items: Sequence[Item], params: ResultsAuditParams,
                 prior_items: Sequence[Item] | None = None) -> dict[str, PriorGroup]:
    """Group -> its majority gold text in the prior's data (`prior_items`, default `items`),
    the share of items with it, a p-value and a q-value.

    The p-value is P(some answer is the gold of >= `count` of the group's items) when the
    golds are uniform over the answer space (a union bound over the d answers:
    d * P(Bin(n, 1/d) >= count)); d is the largest answer space among the group's items.
    An item and its variants (`variant_of`) count once: they share one gold by design.
    `skewed`: at least `prior_min_items` items, share >= `prior_share`. Groups with at least
    `prior_min_items` items form the Benjamini–Hochberg family.
    """
    data = list(prior_items) if prior_items is not None else list(items)
    golds: dict[str, Counter] = defaultdict(Counter)
    spaces = answer_spaces(data, params)
    space_of: dict[str, int] = defaultdict(int)
    shown: dict[tuple[str, str], str] = {}  # (group, key) -> the gold as first written
    counted: set[tuple[str, str]] = set()
    for item in data:
        key = gold_key(item)
        family = item.variant_of or item.id  # a variant family is one observation
        for group in prior_units(item, params.prior_group_fields):
            if (group, family) in counted:
                continue
            counted.add((group, family))
            golds[group][key] += 1
            space_of[group] = max(space_of[group], spaces[item.id])
            shown.setdefault((group, key), _shown(item))
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
    tested = [g for g in out.values() if g.items >= params.prior_min_items]
    for g, q in zip(tested, bh_qvalues([g.p_value for g in tested])):
        out[g.group] = PriorGroup(**{**g.__dict__, "q_value": q})
    return out


@dataclass(frozen=True)
class PriorVerdict:
    """An item's prior test: its group (the most telling of its units), whether its gold is
    the group's majority, p, q."""

    id: str
    group: PriorGroup
    majority_gold: bool
    p_value: float
    q_value: float
    answerable: bool


def prior_verdicts(items: Sequence[Item], params: ResultsAuditParams,
                   prior_items: Sequence[Item] | None = None) -> dict[str, PriorVerdict]:
    """Item id -> its prior verdict: answerable when its gold text is the majority of one of
    its skewed groups with q < `fdr` (p = q = 1 when no group of its has its gold as a
    skewed majority). Items in no group of the prior's data get an empty group."""
    groups = prior_groups(items, params, prior_items)
    out: dict[str, PriorVerdict] = {}
    for item in items:
        key = gold_key(item)
        mine = [groups[u] for u in prior_units(item, params.prior_group_fields) if u in groups]
        if not mine:
            mine = [PriorGroup(prior_units(item, params.prior_group_fields)[0], 0, "", "", 0,
                               0.0, 1, 1.0, False)]
        telling = [g for g in mine if g.skewed and g.majority == key]
        best = min(telling or mine, key=lambda g: (g.q_value, -g.share, g.group))
        majority = best.majority == key
        p = best.p_value if telling else 1.0
        q = best.q_value if telling else 1.0
        out[item.id] = PriorVerdict(item.id, best, majority, p, q,
                                    bool(telling) and q < params.fdr)
    return out


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
    """Per answer group, most guessable first: items (in the prior's data), majority answer
    and share (the accuracy of always guessing it, i.e. the prior's accuracy), chance, p, q,
    and the blind hit rate over the audited items of the group. Question patterns and
    source fields with fewer than `prior_min_items` items are left out."""
    hits: Counter = Counter()
    runs: Counter = Counter()
    for item in items:
        b = blind.get(item.id)
        if b is not None:
            for group in prior_units(item, params.prior_group_fields):
                hits[group] += b.hits
                runs[group] += b.n
    rows: list[dict[str, Any]] = [{"group": g.group, "items": g.items, "majority_answer": g.majority_shown,
             "prior_accuracy": g.share, "chance": round(1 / g.answer_space, 4),
             "p_value": g.p_value, "q_value": g.q_value, "skewed": g.skewed,
             "blind_accuracy": round(hits[g.group] / runs[g.group], 4) if runs[g.group]
             else None} for g in groups.values()
            if g.items >= params.prior_min_items or _always_listed(g.group)]
    rows.sort(key=lambda r: (-r["prior_accuracy"], r["group"]))
    return rows


def _always_listed(group: str) -> bool:
    """Templates and hand-written capability groups are listed whatever their size."""
    head = group.rsplit("|", 1)[0]
    return head.startswith("template:") or ":" not in head
