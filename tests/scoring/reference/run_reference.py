"""Run the unmodified reference functions on the generated inputs and write the vectors.

The reference code is imported from checkouts given on the command line (nothing of it
is copied here) by benchmarks/reference_loader.py, which stands in empty modules only for
imports the called functions never use; the reference files are loaded as they are.

Usage:
    python tests/scoring/reference/run_reference.py IN_DIR OUT_DIR \
        --vlmevalkit /tmp/VLMEvalKit --mmmu /tmp/MMMU
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
from reference_loader import (  # noqa: E402
    load_mmmu,
    load_vlmevalkit,
    load_vlmevalkit_groundingme,
    load_vlmevalkit_yorn,
)

_DIGIT_PERIOD = re.compile(r"(?<=\d)\.(?!\d)")


def _read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _write(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def _corners(box: list[float]) -> list[float]:
    return [min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3])]


def _key(value) -> str:
    return f"{type(value).__name__}:{value!r}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("inputs", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--vlmevalkit", type=Path, required=True)
    parser.add_argument("--mmmu", type=Path, required=True)
    args = parser.parse_args()
    vqa, matching = load_vlmevalkit(args.vlmevalkit)
    mmmu = load_mmmu(args.mmmu)
    args.out.mkdir(parents=True, exist_ok=True)

    rows = _read(args.inputs / "vqa.inputs.jsonl")

    def vqa_score(pred, golds, out, suffix=""):
        ret = vqa.process_line({"answer": repr(golds), "prediction": pred}, "vqa_score")
        out["vlmevalkit" + suffix] = float(vqa.hit_calculate([ret], "VQAv2")[0])
        out["vlmevalkit_pred_norm" + suffix] = ret["pred"]
        out["vlmevalkit_gold_norm" + suffix] = ret["gt"]

    for row in rows:
        vqa_score(row["pred"], row["golds"], row)
        # The same row with every period after a digit (and not before one) removed: the
        # official script's reading of "2." (docs/METRICS.md#reference-differences).
        pred, golds = _DIGIT_PERIOD.sub("", row["pred"]), [_DIGIT_PERIOD.sub("", g)
                                                            for g in row["golds"]]
        if (pred, golds) != (row["pred"], row["golds"]):
            vqa_score(pred, golds, row, "_digit_period")
    _write(args.out / "vqa.jsonl", rows)

    rows = _read(args.inputs / "relaxed.inputs.jsonl")

    def relaxed(pred, gold):
        ret = vqa.process_line({"answer": repr([gold]), "prediction": pred}, "relaxed_accuracy")
        return bool(vqa.hit_calculate([ret], "ChartQA")[0])

    for row in rows:
        row["vlmevalkit"] = relaxed(row["pred"], row["gold"])
        if row["pred_plain"] is None:
            continue
        # The same values written as float() reads them: without (plain) and with (abs)
        # their multipliers applied, and with a percent sign dropped (unpct).
        row["vlmevalkit_plain"] = relaxed(row["pred_plain"], row["gold_plain"])
        row["vlmevalkit_abs"] = relaxed(row["pred_abs"], row["gold_abs"])
        row["vlmevalkit_abs_unpct"] = relaxed(row["pred_abs"].rstrip("%"),
                                              row["gold_abs"].rstrip("%"))
    _write(args.out / "relaxed.jsonl", rows)

    rows = _read(args.inputs / "anls.inputs.jsonl")
    for row in rows:
        ret = vqa.process_line({"answer": repr(row["golds"]), "prediction": row["pred"]}, "anls")
        row["vlmevalkit"] = float(vqa.hit_calculate([ret], "DocVQA", 0.5)[0])
        # The same row with runs of spaces collapsed before the call: the reference divides
        # by the raw lengths (docs/METRICS.md#reference-differences).
        ret = vqa.process_line({"answer": repr([" ".join(g.split()) for g in row["golds"]]),
                                "prediction": " ".join(row["pred"].split())}, "anls")
        row["vlmevalkit_collapsed"] = float(vqa.hit_calculate([ret], "DocVQA", 0.5)[0])
    _write(args.out / "anls.jsonl", rows)

    rows = _read(args.inputs / "mmmu_open.inputs.jsonl")
    for row in rows:
        parsed = mmmu.parse_open_response(row["response"])
        row["mmmu_parsed"] = sorted(parsed, key=_key)  # a set in the reference: no order
        row["mmmu_correct"] = bool(mmmu.eval_open(row["golds"], parsed))
    _write(args.out / "mmmu_open.jsonl", rows)

    rows = _read(args.inputs / "mmmu_mc.inputs.jsonl")
    for row in rows:
        letters = list(row["choices"])
        picks = []
        for seed in range(12):  # the parser falls back to random.choice: seeded, and flagged
            random.seed(seed)
            picks.append(mmmu.parse_multi_choice_response(row["response"], letters,
                                                          dict(row["choices"])))
        row["mmmu"] = picks[0]
        row["mmmu_random"] = len(set(picks)) > 1
    _write(args.out / "mmmu_mc.jsonl", rows)

    rows = _read(args.inputs / "mc.inputs.jsonl")
    for row in rows:
        found = matching.can_infer(row["response"], dict(row["choices"]))
        row["can_infer"] = found if found else None
    _write(args.out / "mc.jsonl", rows)
    import pandas as pd

    yorn = load_vlmevalkit_yorn(args.vlmevalkit)
    rows = _read(args.inputs / "yesno.inputs.jsonl")
    for row in rows:
        row["vlmevalkit"] = yorn.YOrN_Extraction(row["response"])
    _write(args.out / "yesno.jsonl", rows)

    rows = _read(args.inputs / "pope.inputs.jsonl")
    for row in rows:
        frame = pd.DataFrame({"answer": row["answer"], "extracted": row["extracted"],
                              "category": "adversarial",
                              "score": [a == e for a, e in zip(row["answer"],
                                                               row["extracted"])]})
        rated = yorn.POPE_rating(frame).iloc[0]  # the "Overall" split, in percent
        row["vlmevalkit"] = {key: float(rated[key]) for key in
                             ("Overall", "acc", "precision", "recall")}
    _write(args.out / "pope.jsonl", rows)

    rows = _read(args.inputs / "mme.inputs.jsonl")
    for row in rows:
        rated = yorn.MME_rating(pd.DataFrame(row["rows"]))
        row["vlmevalkit"] = {key: float(rated[key].iloc[0]) for key in rated.columns}
    _write(args.out / "mme.jsonl", rows)
    grounding = load_vlmevalkit_groundingme(args.vlmevalkit)
    rows = _read(args.inputs / "grounding.inputs.jsonl")
    for row in rows:
        # GroundingME.evaluate's steps: parse, then the better IoU of the box as written and
        # the box read as 0-1 / 0-999 of the image (normalize_bbox).
        parsed = grounding.parse_bbox(row["response"])
        scaled = grounding.normalize_bbox(parsed, row["width"], row["height"])
        row["vlmevalkit_parsed"] = parsed
        row["vlmevalkit_scaled"] = scaled
        row["vlmevalkit_iou_raw"] = grounding.compute_iou(row["gold"], parsed)
        row["vlmevalkit_iou_scaled"] = grounding.compute_iou(row["gold"], scaled)
        row["vlmevalkit_iou"] = max(row["vlmevalkit_iou_raw"], row["vlmevalkit_iou_scaled"])
        # The same boxes with their corners in order (x1 <= x2, y1 <= y2) before the call:
        # the reference takes them as written (docs/METRICS.md#reference-differences).
        row["vlmevalkit_iou_sorted"] = [grounding.compute_iou(row["gold"], _corners(box))
                                        for box in (parsed, scaled)]
    _write(args.out / "grounding.jsonl", rows)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
