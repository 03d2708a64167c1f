"""Per-item scoring: (item, raw response) -> ItemScore, by the metric the item names.

An item's `metric` field selects a scorer from `METRICS`; null means the task default
(mc -> accuracy, yesno -> yesno, numeric -> numeric, open -> exact, grounding -> iou,
checklist -> checklist). Every scorer first drops a leading `<think>…</think>` block.

`hit` is the item's 0/1 correctness: exact for letter, yes/no, text and number metrics;
IoU >= `iou_threshold` for boxes (Acc@0.5 by default); every check right for checklists;
score >= the `score:` settings `anls_hit`, `vqa_hit`, `rouge_l_hit`, `defect_map_hit`
(0.5 each by default) for the graded metrics. An answer that cannot be parsed scores 0 with parse "failed".
"""

from __future__ import annotations

from pathlib import Path

# The scorers register themselves on import.
from bench_kit.scoring import metric_scorers as _metric_scorers  # noqa: E402,F401,I001
from bench_kit.scoring import task_scorers as _task_scorers  # noqa: E402,F401,I001
from bench_kit.scoring.contract import (
    DEFAULT_METRIC,
    FAILED,
    METRICS,
    ItemScore,
    ScoreContext,
    ScoreSettings,
    metric_name,
)
from bench_kit.scoring.extract.response import PARSE_FAILED, strip_reasoning
from bench_kit.types import Item

__all__ = ["METRICS", "DEFAULT_METRIC", "ScoreSettings", "ItemScore", "score_item",
           "strip_reasoning", "metric_name"]

_DEFAULT_SETTINGS = ScoreSettings()


def score_item(item: Item, response: str, *, image_size: tuple[int, int] | None = None,
               settings: ScoreSettings | None = None,
               root: str | Path | None = None, box_format: str = "auto") -> ItemScore:
    """Score one response to one item.

    Args:
        item: the benchmark item (its `metric`, `answers`, `tolerance`, `choices` ...).
        response: the raw model response.
        image_size: (width, height) of the item's image; needed by grounding items.
        settings: the `score:` section of params.yaml (defaults when None).
        root: the benchmark root that mask and score-map paths are relative to.
        box_format: the model's box coordinates: pixel | norm1 | norm1000 | auto.

    Raises:
        UnknownNameError: the item names a metric that is not registered.
        InputError: the item's gold cannot be read by its metric (field `answers`), or a
            grounding item comes without an image size (field `image`).
    """
    name = metric_name(item)
    scorer = METRICS.get(name)
    text = strip_reasoning(response if isinstance(response, str) else "")
    context = ScoreContext(image_size, settings or _DEFAULT_SETTINGS,
                           root if root is None or isinstance(root, Path) else Path(root),
                           box_format)
    outcome = scorer(item, text, context)
    if outcome.parse == PARSE_FAILED:
        outcome = FAILED
    return ItemScore(name, outcome.extracted, outcome.parse, float(outcome.score),
                     bool(outcome.hit))
