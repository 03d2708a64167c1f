"""Extraction sensitivity: how much of a score rests on lenient or judge parsing.

Strict accuracy counts only hits parsed on the strict path (`parse == "ok"`); lenient
accuracy counts every hit (what the metrics report). Items whose hit in some run came from
the lenient extractor or a judge are listed, since a stricter extractor would flip them.
"""

from __future__ import annotations

from bench_kit.audit.results.inputs import ScoreTable, share

LOOSE_PARSES = ("lenient", "judge")


def extraction_sensitivity(table: ScoreTable) -> dict:
    """Per run: strict vs lenient accuracy and the share of hits from loose parsing; the
    items whose hit depends on the extractor, with the runs concerned."""
    by_run: dict[str, dict] = {}
    dependent: dict[str, list[str]] = {}
    for model, mode in table.runs_in(("image", "no_image", "blank_image")):
        rows = list(table.run(model, mode).values())
        hits = [s for s in rows if s.hit]
        loose = [s for s in hits if s.parse in LOOSE_PARSES]
        by_run[f"{model}/{mode}"] = {
            "n": len(rows),
            "accuracy": share(len(hits), len(rows)),
            "accuracy_strict": share(len(hits) - len(loose), len(rows)),
            "loose_hits": len(loose),
            "lenient_hits": sum(s.parse == "lenient" for s in loose),
            "judge_hits": sum(s.parse == "judge" for s in loose),
            "loose_share_of_score": share(len(loose), len(hits)),
        }
        for score in loose:
            dependent.setdefault(score.id, []).append(f"{model}/{mode}")
    order = {item.id: n for n, item in enumerate(table.items)}
    items = [{"id": item_id, "runs": dependent[item_id]}
             for item_id in sorted(dependent, key=order.__getitem__)]
    return {"by_run": by_run, "extractor_dependent_items": len(items), "items": items}
