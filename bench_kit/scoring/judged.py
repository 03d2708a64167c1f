"""LLM-judge verdicts into score rows: `bench-kit eval score --judgements FILE`.

`bench-kit eval judge` writes one verdict row per judged response (bench_kit.eval.judge).
Given that file, the score stage overrides the judged items' score rows: `parse` becomes
`judge`, `hit` the verdict's (every rubric dimension passed) and `score` its share of
dimensions passed; `extracted` keeps what the extractor read, and the raw verdict (reply,
per-dimension verdicts and reasons, judge, cost) stays in the verdicts file, which the
metrics name. For a CircularEval item every rotation must be judged: the item is a hit
only if every rotation is, and its score is the lowest.

Rows the judge did not settle keep the extractor's outcome and are counted: an
unparseable reply (`parse: failed`), a failed judge call or one the budget left unasked
(`error`). Score rows that are request errors stay errors. See docs/EVAL.md.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Sequence

from bench_kit.errors import InputError
from bench_kit.items import iter_models
from bench_kit.types import Prediction, Score


class Judgements:
    """The verdict rows of one judgements file for one model, by mode and item id."""

    def __init__(self, path: str | Path, model: str) -> None:
        from bench_kit.eval.judge import JudgeVerdict

        self.path = Path(path)
        if not self.path.is_file():
            raise InputError("judgements file not found (write it with `bench-kit eval "
                             "judge`)", path=str(self.path))
        # mode -> id -> rotation -> verdict (the first row of a repeated (id, rotation))
        self.rows: dict[str, dict[str, dict[int, Any]]] = defaultdict(lambda: defaultdict(dict))
        self.judges: set[str] = set()
        for line, verdict in iter_models(self.path, JudgeVerdict):
            if verdict.model != model:
                raise InputError(f"id={verdict.id}: verdict for model '{verdict.model}', "
                                 f"scoring '{model}'", path=str(self.path), line=line,
                                 field="model")
            self.rows[verdict.mode][verdict.id].setdefault(verdict.rotation, verdict)
            self.judges.add(verdict.judge)

    def apply(self, mode: str, scores: Sequence[Score], predictions: Sequence[Prediction],
              ) -> tuple[list[Score], dict[str, Any]]:
        """`scores` (of `predictions`) with the judged items overridden, and the counts for
        the metrics."""
        rotations: dict[str, set[int]] = defaultdict(set)
        for prediction in predictions:
            rotations[prediction.id].add(prediction.rotation)
        verdicts = self.rows.get(mode, {})
        counts: dict[str, Any] = {"file": self.path.as_posix(), "judges": sorted(self.judges), "judged": 0,
                  "hits_changed": 0, "unsettled": 0}
        out = []
        for score in scores:
            by_rotation = verdicts.get(score.id)
            if not by_rotation or score.error is not None:
                out.append(score)
                continue
            found = list(by_rotation.values())
            if any(v.parse != "ok" for v in found) or \
                    set(by_rotation) != rotations.get(score.id, {0}):
                counts["unsettled"] += 1
                out.append(score)
                continue
            hit = all(bool(v.hit) for v in found)
            counts["judged"] += 1
            counts["hits_changed"] += hit != score.hit
            out.append(score.model_copy(update={
                "parse": "judge", "hit": hit,
                "score": min(float(v.score or 0.0) for v in found)}))
        counts["unscored"] = len(set(verdicts) - {s.id for s in scores})
        return out, counts
