"""Coverage quotas (docs/AUTHORING.md): template share, difficulty mix, items per capability,
the fresh-item share and gold balance per template. `check_quotas` turns a `Coverage` into
violation lines; the CLI prints them as warnings and, with `--strict`, exits non-zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field, field_validator

from bench_kit.authoring.coverage import Coverage, GoldTally
from bench_kit.types import DIFFICULTIES


class GoldShares(BaseModel):
    """`generate.quotas.max_gold_share`: per task, the largest share of a template's items
    that may have one and the same gold (a blind model answering it always would score
    that much). 1.0 switches the check off for that task."""

    model_config = ConfigDict(extra="forbid")

    numeric: float = Field(0.5, gt=0.0, le=1.0)
    open: float = Field(0.5, gt=0.0, le=1.0)
    yesno: float = Field(0.6, gt=0.0, le=1.0)


class QuotaParams(BaseModel):
    """`generate.quotas:` in params.yaml."""

    model_config = ConfigDict(extra="forbid")

    max_template_share: float = Field(0.10, gt=0.0, le=1.0)
    difficulty_mix: tuple[float, float, float] = (3.0, 4.0, 3.0)
    difficulty_tolerance: float = Field(0.05, ge=0.0, le=1.0)
    min_per_capability: int = Field(1, ge=0)
    min_fresh_share: float = Field(0.20, ge=0.0, le=1.0)
    max_gold_share: GoldShares = Field(default_factory=GoldShares)
    # mc: each gold letter's share of a template's items within this distance of uniform.
    mc_letter_tolerance: float = Field(0.10, ge=0.0, le=1.0)
    # Templates with fewer distinct items (a variant family counts once) are not judged on
    # gold balance: too few to tell a skew from chance.
    gold_min_items: int = Field(8, ge=1)

    @field_validator("difficulty_mix")
    @classmethod
    def _positive(cls, value: tuple[float, float, float]) -> tuple[float, float, float]:
        if any(v < 0 for v in value) or not sum(value):
            raise ValueError("needs three non-negative weights (easy, medium, hard), e.g. [3, 4, 3]")
        return value

    def target_shares(self) -> dict[str, float]:
        """The difficulty mix as shares summing to 1."""
        total = sum(self.difficulty_mix)
        return {d: w / total for d, w in zip(DIFFICULTIES, self.difficulty_mix, strict=True)}


@dataclass(frozen=True)
class QuotaViolation:
    """One broken quota: which rule, what it concerns, and a readable line."""

    rule: str
    subject: str
    message: str

    def as_dict(self) -> dict[str, str]:
        """JSON form for `--format json`."""
        return {"rule": self.rule, "subject": self.subject, "message": self.message}


def gold_violation(template: str, tally: GoldTally, quotas: QuotaParams) -> QuotaViolation | None:
    """The gold-balance quota one template (batch) breaks for one task, if any."""
    if len(tally.families) < quotas.gold_min_items:
        return None
    if tally.task == "mc":
        letter, gap = tally.letter_deviation()
        if abs(gap) <= quotas.mc_letter_tolerance:
            return None
        share = tally.golds[letter] / tally.items
        return QuotaViolation(
            "mc_letter_balance", template,
            f"template '{template}': gold letter {letter} is {share:.0%} of its {tally.items} "
            f"mc items (uniform {share - gap:.0%} ± {quotas.mc_letter_tolerance:.0%})")
    limit = getattr(quotas.max_gold_share, tally.task)
    gold, share = tally.majority()
    if share <= limit:
        return None
    return QuotaViolation(
        "max_gold_share", template,
        f"template '{template}': gold '{gold}' is {share:.0%} of its {tally.items} "
        f"{tally.task} items (max {limit:.0%}): a blind guess scores that much; vary the "
        "scenes or mix in items with other answers")


def check_quotas(coverage: Coverage, quotas: QuotaParams,
                 fresh_after: datetime | None) -> list[QuotaViolation]:
    """Every quota the covered items break, in a stable order (template, difficulty,
    capability, freshness, gold balance). An empty item set breaks nothing but the
    capability minimum."""
    found: list[QuotaViolation] = []
    total = coverage.total
    for name in coverage.templates:
        share = coverage.by_template[name] / total if total else 0.0
        if share > quotas.max_template_share:
            found.append(QuotaViolation(
                "max_template_share", name,
                f"template '{name}' has {share:.1%} of the items "
                f"(max {quotas.max_template_share:.0%}): lower its scene_share or max_per_scene"))
    if total:
        observed = coverage.difficulty_shares()
        for difficulty, target in quotas.target_shares().items():
            if abs(observed[difficulty] - target) > quotas.difficulty_tolerance:
                found.append(QuotaViolation(
                    "difficulty_mix", difficulty,
                    f"difficulty '{difficulty}' is {observed[difficulty]:.1%} of the items "
                    f"(target {target:.1%} ± {quotas.difficulty_tolerance:.0%})"))
    for capability, counts in coverage.by_capability.items():
        if capability in coverage.taxonomy and sum(counts.values()) < quotas.min_per_capability:
            found.append(QuotaViolation(
                "min_per_capability", capability,
                f"capability '{capability}' has {sum(counts.values())} items "
                f"(min {quotas.min_per_capability})"))
    if fresh_after is not None and total:
        share = coverage.fresh / total
        if share < quotas.min_fresh_share:
            found.append(QuotaViolation(
                "min_fresh_share", "fresh",
                f"{share:.1%} of the items are newer than {fresh_after.isoformat()} "
                f"(min {quotas.min_fresh_share:.0%}): add or refresh items"))
    for (template, _), tally in coverage.gold.items():
        broken = gold_violation(template, tally, quotas)
        if broken is not None:
            found.append(broken)
    return found
