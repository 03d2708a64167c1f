"""The variant quality gate: a variant must keep the meaning (sentence-embedding cosine to
the original at or above `min_similarity`) and be really rewritten (token-level edit ratio
at or above `min_edit_ratio`). Thresholds can differ per variant kind.
"""

from __future__ import annotations

from typing import Any, Callable

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.text.edit import edit_ratio


class GateThresholds(BaseModel):
    """Minimum similarity and edit ratio a variant needs."""

    model_config = ConfigDict(extra="forbid")

    min_similarity: float = Field(0.7, ge=-1.0, le=1.0)
    min_edit_ratio: float = Field(0.15, ge=0.0, le=1.0)


@dataclass(frozen=True)
class GateResult:
    """The two scores of one variant and the gate's verdict (`reason` None = accepted)."""

    similarity: float
    edit_ratio: float
    reason: str | None

    @property
    def accepted(self) -> bool:
        """Whether the variant passed both thresholds."""
        return self.reason is None


def judge(similarity: float, ratio: float, limits: GateThresholds) -> GateResult:
    """Apply the thresholds to one variant's scores (rounded to 4 places for stable files)."""
    similarity, ratio = round(similarity, 4), round(ratio, 4)
    if similarity < limits.min_similarity:
        reason = (f"meaning drifted: similarity {similarity:.3f} < {limits.min_similarity}")
    elif ratio < limits.min_edit_ratio:
        reason = f"barely rewritten: edit ratio {ratio:.3f} < {limits.min_edit_ratio}"
    else:
        reason = None
    return GateResult(similarity, ratio, reason)


def score_pairs(pairs: list[tuple[str, str]], encode: Callable[[list[str]], Any] | None = None
                ) -> list[tuple[float, float]]:
    """(cosine similarity, edit ratio) for each (original, variant) pair; one encoder pass
    over the distinct texts (`encode`: the configured embedder's, default the bundled
    model)."""
    if encode is None:
        from bench_kit.embed import encode

    texts = sorted({t for pair in pairs for t in pair})
    index = {t: k for k, t in enumerate(texts)}
    vectors = encode(texts)
    return [(float(vectors[index[a]] @ vectors[index[b]]), edit_ratio(a, b)) for a, b in pairs]
