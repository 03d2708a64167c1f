"""The scorer contract: a scorer turns (item, response text, context) into an `Outcome`;
scorers register by metric name in `METRICS`. `ItemScore` is what `score_item` returns."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from bench_kit.registry import Registry
from bench_kit.scoring.extract.response import PARSE_FAILED
from bench_kit.types import Item

DEFAULT_METRIC = {"mc": "accuracy", "yesno": "yesno", "numeric": "numeric", "open": "exact",
                  "grounding": "iou", "checklist": "checklist"}
MAX_EXTRACTED = 200  # characters of an open answer kept in `extracted`


class ScoreSettings(BaseModel):
    """The `score:` section of params.yaml."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    numeric_tolerance: float = Field(0.0, ge=0.0)
    iou_threshold: float = Field(0.5, gt=0.0, le=1.0)
    embedding_threshold: float = Field(0.8, gt=0.0, le=1.0)
    pro_max_fpr: float = Field(0.3, gt=0.0, le=1.0)
    # Graded metrics: the score at which an item counts as a hit (docs/SCORING.md §2).
    relaxed_tolerance: float = Field(0.05, ge=0.0)  # ChartQA relative error
    # A multiplier word ("3905k", "2亿") is a magnitude, or dropped as a unit ("strip").
    relaxed_multipliers: Literal["magnitude", "strip"] = "magnitude"
    anls_threshold: float = Field(0.5, gt=0.0, le=1.0)  # ANLS tau: NL >= tau scores 0
    anls_hit: float = Field(0.5, ge=0.0, le=1.0)
    vqa_hit: float = Field(0.5, ge=0.0, le=1.0)
    rouge_l_hit: float = Field(0.5, ge=0.0, le=1.0)
    defect_map_hit: float = Field(0.5, ge=0.0, le=1.0)
    defect_pixel_threshold: float = Field(0.5)  # score-map value read as "defect"


@dataclass(frozen=True)
class ItemScore:
    """One item's score: the metric used, the parsed answer (None when parse failed), the
    parse path (ok / lenient / failed), the score 0..1 and the 0/1 hit."""

    metric: str
    extracted: str | None
    parse: str
    score: float
    hit: bool


class Outcome(NamedTuple):
    """What a scorer returns; `score_item` adds the metric name."""

    extracted: str | None
    parse: str
    score: float
    hit: bool


@dataclass(frozen=True)
class ScoreContext:
    """What a scorer may need besides the item and the response."""

    image_size: tuple[int, int] | None
    settings: ScoreSettings
    root: Path | None = None
    box_format: str = "auto"  # the model's box coordinate scale (ModelConfig.box_format)


Scorer = Callable[[Item, str, ScoreContext], Outcome]
METRICS: Registry[Scorer] = Registry("metric")
FAILED = Outcome(None, PARSE_FAILED, 0.0, False)


def metric_name(item: Item) -> str:
    """The metric an item is scored with: its `metric` field or its task's default."""
    return item.metric or DEFAULT_METRIC[item.task]


def register_scorer(*names: str) -> Callable[[Scorer], Scorer]:
    """Register a scorer under every name in `names`."""
    def decorator(func: Scorer) -> Scorer:
        for name in names:
            METRICS.register(name)(func)
        return func
    return decorator


def binary_outcome(extracted: str | None, parse: str, hit: bool) -> Outcome:
    """A 0/1 outcome."""
    return Outcome(extracted, parse, 1.0 if hit else 0.0, hit)


def clip_extracted(text: str) -> str:
    """An open answer clipped to `MAX_EXTRACTED` characters for the `extracted` field."""
    return text if len(text) <= MAX_EXTRACTED else text[:MAX_EXTRACTED - 1] + "…"
