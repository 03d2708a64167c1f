"""The report's first line: one sentence answering "do these scores reflect vision?".

The answer follows a fixed rule from two numbers (docs/REPORTS.md#the-first-screen):

- *blind share*: of the items with an image that the blind panel could judge, the share it
  answers above chance (`text_answerable` + `prior_answerable` in the model audit);
- *vision gain*: image − no_image accuracy of the best model that ran both modes.

"Yes" when the blind share is at most `BLIND_LOW` and the gain at least `GAIN_HIGH`; "No"
when the blind share is at least `BLIND_HIGH` or the gain below `GAIN_LOW`; "Partly"
otherwise. A panel without a language model cannot tell whether a question's text gives its
answer away, so then the sentence says so in fixed words instead of answering.
"""

from __future__ import annotations

from collections import Counter

from bench_kit.report.inputs import ModelRun
from bench_kit.report.model_audit import UNJUDGED
from bench_kit.report.once import sees_image
from bench_kit.types import Item

BLIND_LOW = 0.10
BLIND_HIGH = 0.30
GAIN_HIGH = 0.10
GAIN_LOW = 0.03
BLIND_MODES = ("no_image", "blank_image")
ANSWERED_BLIND = ("text_answerable", "prior_answerable")
JUDGED = ANSWERED_BLIND + ("vision_required", "review")
NO_LANGUAGE_MODEL = "no language model in the blind panel: blind-answerability not measured"
NO_AUDIT = "no model audit given: blind-answerability not measured"


def _split_name(items_file: str) -> str:
    """`test.jsonl` -> `test`."""
    return items_file.rsplit(".", 1)[0]


def panel_of(summary: dict | None, runs: list[ModelRun]) -> dict:
    """The blind panel the answer rests on: the audit's `panel` block when present, else the
    report's models with a blind run (language models unknown)."""
    block = (summary or {}).get("panel")
    if isinstance(block, dict) and isinstance(block.get("members"), list):
        members = [str(m) for m in block["members"]]
        lms = [str(m) for m in block.get("language_models") or []]
        holds = block.get("holds_language_model")
        size = block.get("size")
        return {"members": members, "size": size if isinstance(size, int) else len(members),
                "language_models": lms,
                "holds_language_model": bool(holds) if holds is not None else None,
                "detectable": [d for d in block.get("detectable") or [] if isinstance(d, dict)],
                "source": "audit"}
    members = sorted(r.model for r in runs if any(m in r.scores for m in BLIND_MODES))
    return {"members": members, "size": len(members), "language_models": [],
            "holds_language_model": None, "detectable": [], "source": "report"}


def best_gain(runs: list[ModelRun]) -> dict | None:
    """The model with the highest image accuracy among those that look at the image and also
    ran no_image, with its image − no_image gain."""
    both = [(r.metrics["image"]["accuracy"], r.model, r.metrics["vision_gain"]["overall"])
            for r in runs if r.metrics.get("vision_gain") and sees_image(r)
            and r.metrics.get("image", {}).get("accuracy") is not None
            and r.metrics["vision_gain"].get("overall") is not None]
    if not both:
        return None
    # highest image accuracy; on a tie the first model by name
    accuracy, model, gain = min(both, key=lambda t: (-t[0], t[1]))
    return {"model": model, "image": accuracy, "gain": gain}


def blind_counts(item_stats: list[dict] | None, items: list[Item]) -> Counter:
    """Verdicts of the report's own items (other items in the audit file are left out)."""
    ids = {item.id for item in items}
    return Counter(str(r.get("verdict")) for r in item_stats or [] if r.get("id") in ids)


def _verdict(blind: float | None, gain: float | None) -> str:
    if (gain is not None and gain < GAIN_LOW) or (blind is not None and blind >= BLIND_HIGH):
        return "No"
    if blind is None or gain is None:
        return "Not determined"
    if blind <= BLIND_LOW and gain >= GAIN_HIGH:
        return "Yes"
    return "Partly"


def _panel_words(panel: dict) -> str:
    if not panel["members"]:
        return "no model ran without the image"
    names = ", ".join(panel["members"])
    if panel["holds_language_model"]:
        kind = f"language model(s): {', '.join(panel['language_models'])}"
    elif panel["holds_language_model"] is None:
        kind = "not known to hold a language model"
    else:
        kind = "no language model"
    return f"{panel['size']} model(s): {names}; {kind}"


def _detectable_words(panel: dict) -> list[str]:
    """Per chance level the panel can call: the fewest members right and the smallest
    chance-corrected effect it detects (the audit's `panel.detectable`)."""
    out = []
    for row in panel["detectable"]:
        hits, gain = row.get("min_hits"), row.get("min_gain")
        if hits is not None and gain is not None and row.get("chance") is not None:
            out.append(f"at chance {100 * row['chance']:.0f}%, {hits} of {panel['size']} "
                       f"members right (chance-corrected effect {100 * gain:.0f}%)")
    return out


def _blind_sentence(panel: dict, counts: Counter, have_audit: bool,
                    split: str) -> tuple[str, float | None, int]:
    """(clause, blind share, judged) about what the panel answers without the image."""
    judged = sum(counts[k] for k in JUDGED)
    if not have_audit:
        return NO_AUDIT, None, judged
    if not panel["holds_language_model"]:
        return NO_LANGUAGE_MODEL, None, judged
    if not judged:
        return "the blind panel could judge no item", None, judged
    share = sum(counts[k] for k in ANSWERED_BLIND) / judged
    return (f"the blind panel answers {100 * share:.1f}% of the {judged:,} {split} items it "
            f"could judge above chance", share, judged)


def _cannot_see(panel: dict, counts: Counter) -> list[str]:
    """What the panel cannot judge: items without an image, undetermined items, chance
    levels that need a larger panel."""
    out = [f"{counts[k]:,} item(s) {k} ({UNJUDGED[k]})" for k in ("no_image", "undetermined")
           if counts.get(k)]
    for row in panel["detectable"]:
        needed = row.get("panel_needed")
        if needed and needed > panel["size"] and row.get("items"):
            out.append(f"{row['items']:,} item(s) at chance {100 * row['chance']:.0f}% need a "
                       f"panel of {needed} models (this one has {panel['size']})")
    if panel["members"] and not panel["holds_language_model"]:
        out.append("whether a question's wording gives its answer away (no language model)")
    return out


def first_answer(runs: list[ModelRun], items: list[Item], items_file: str,
                 summary: dict | None, item_stats: list[dict] | None) -> dict:
    """The first screen's sentence, the numbers it rests on, the panel and what it cannot see.

    Args:
        runs: the report's model runs.
        items: the report's items (its split).
        items_file: the items file name (`test.jsonl` -> split `test`).
        summary: the model audit's `model_summary.json`, or None.
        item_stats: the model audit's per-item rows, or None.
    """
    split = _split_name(items_file)
    panel = panel_of(summary, runs)
    counts = blind_counts(item_stats, items)
    clause, share, judged = _blind_sentence(panel, counts, summary is not None, split)
    best = best_gain(runs)
    gain_clause = (f"the best model, {best['model']}, gains {100 * best['gain']:+.1f} pts "
                   "with the image (image − no_image accuracy)" if best else
                   "no model ran both with and without the image")
    verdict = _verdict(share, best["gain"] if best else None)
    return {"verdict": verdict, "sentence": f"{verdict} — {clause}; {gain_clause}.",
            "blind_share": share, "judged": judged, "best": best, "panel": panel,
            "panel_words": _panel_words(panel), "cannot_see": _cannot_see(panel, counts),
            "detectable": _detectable_words(panel),
            "split": split,
            "rule": {"blind_low": BLIND_LOW, "blind_high": BLIND_HIGH,
                     "gain_high": GAIN_HIGH, "gain_low": GAIN_LOW}}
