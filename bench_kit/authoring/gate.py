"""The variant quality gate: a variant must keep the meaning (sentence-embedding cosine to
the original at or above `min_similarity`) and be really rewritten (token-level edit ratio
at or above `min_edit_ratio`). Thresholds can differ per variant kind.

The bundled encoder reads English only, so for an original that contains CJK the
similarity is `cosine_weight·cosine + (1 − cosine_weight)·(character-bigram Dice)`, minus
`contrast_penalty` for each closed class the two texts name differently (最大/最小, 红色/蓝色,
左/右, 圆形/三角形, a negation in one only) — the penalty only for the kinds that must keep
the meaning. Tuned on half of benchmarks/zh_gate (docs/AUTHORING.md).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.text.cjk import CJK_CHARS, has_cjk
from bench_kit.text.contrast import zh_contrasts
from bench_kit.text.edit import edit_ratio


class GateThresholds(BaseModel):
    """Minimum similarity and edit ratio a variant needs."""

    model_config = ConfigDict(extra="forbid")

    min_similarity: float = Field(0.7, ge=-1.0, le=1.0)
    min_edit_ratio: float = Field(0.15, ge=0.0, le=1.0)


class ZhGate(BaseModel):
    """The gate for originals that contain CJK (`variants.gate_zh` in params.yaml)."""

    model_config = ConfigDict(extra="forbid")

    cosine_weight: float = Field(0.5, ge=0.0, le=1.0)
    contrast_penalty: float = Field(0.3, ge=0.0)
    keep_meaning: list[str] = Field(default_factory=lambda: ["synonym", "register", "deixis",
                                                             "paraphrase"])
    gate: GateThresholds = Field(default_factory=GateThresholds)
    gate_by_kind: dict[str, GateThresholds] = Field(default_factory=dict)

    def limits(self, kind: str) -> GateThresholds:
        """The thresholds of one kind for CJK originals."""
        return self.gate_by_kind.get(kind, self.gate)


_CHARS = re.compile(rf"[{CJK_CHARS}A-Za-z0-9]")


def char_bigram_dice(a: str, b: str) -> float:
    """Dice overlap of the character bigrams (CJK, letters, digits; punctuation dropped).

    >>> round(char_bigram_dice("图中有几个红色的圆形？", "图里有几个红色的圆形？"), 3)
    0.778
    """
    def grams(text: str) -> Counter:
        chars = _CHARS.findall(text.lower())
        return Counter(zip(chars, chars[1:])) if len(chars) > 1 else Counter(chars)

    x, y = grams(a), grams(b)
    total = sum(x.values()) + sum(y.values())
    return 2 * sum((x & y).values()) / total if total else 1.0


def zh_similarity(cosine: float, original: str, variant: str, zh: ZhGate,
                  penalise: bool) -> tuple[float, list[str]]:
    """The CJK gate similarity of one pair, and the closed classes it penalised."""
    score = zh.cosine_weight * cosine + (1 - zh.cosine_weight) * char_bigram_dice(original,
                                                                                   variant)
    differ = zh_contrasts(original, variant) if penalise else []
    return score - zh.contrast_penalty * len(differ), differ


def needs_zh_gate(original: str) -> bool:
    """Whether an original is judged by the CJK gate."""
    return has_cjk(original)


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
        from bench_kit.embed import encode as default_encode

        encode = default_encode

    texts = sorted({t for pair in pairs for t in pair})
    index = {t: k for k, t in enumerate(texts)}
    vectors = encode(texts)
    return [(float(vectors[index[a]] @ vectors[index[b]]), edit_ratio(a, b)) for a, b in pairs]
