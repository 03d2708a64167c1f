"""Build the grounding intent set (``grounding_set.jsonl``): real model responses to
grounding prompts, frozen before any box parser runs on them.

The rows come from three public repositories that committed raw model text (see README.md
beside this file for repository, path, commit and licence status of each):
ScreenSpot-Pro runs of Qwen2-VL-7B and Qwen2.5-VL (woodhalloween/ScreenSpot-Pro-GUI-Grounding),
RefCOCO / PersReFex runs of Molmo, Qwen2.5-VL, InternVL and LLaVA (teaywright/REC-Eval), and
a ScreenSpot run of GPT-4o (ideachoi337/Screenspot_GPT4o). Each group is drawn with one seeded
generator; identical (question, response) pairs are kept once; the rows are then shuffled so
the reader's parts mix the sources.

    python benchmarks/intent_labels/build_grounding.py \\
        --screenspot-pro /tmp/ScreenSpot-Pro-woodhalloween --rec-eval /tmp/REC-Eval \\
        --screenspot-gpt4o /tmp/Screenspot_GPT4o --readers /work/wt/readers4

Checkouts are read at ``HEAD`` with ``git show`` (a bare mirror is enough). ``--readers DIR``
also writes the second reader's input (id, question, response) in parts of at most 700 rows.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
from collections import Counter
from pathlib import Path

from build_sets import _write_jsonl  # this folder's tuning-set builder

SEED = 20261201
TOTAL = 2100
MAX_CHARS = 6000  # longer responses are skipped, never truncated
HERE = Path(__file__).parent
READER_KEYS = ("id", "question", "response")
KEYS = ("id", "family", "source", "item", "question", "image_size", "gold_box",
        "gold_box_form", "box_format", "response")

SSP_RUNS = {  # results/<run>.json of the ScreenSpot-Pro fork -> box_format its harness reads
    "qwen2vl": "norm1000", "qwen25vl": None, "qwen25vlagent": None, "qwen25vldevice": None}
REC_FILES = {  # outputs/<file> -> model
    "molmo_lmms-lab_RefCOCO_predictions.json": "molmo",
    "molmo_ZinengTang_PersReFex_predictions.json": "molmo",
    "qwen25vl_lmms-lab_RefCOCO_predictions.json": "qwen25vl",
    "qwen25vl_lmms-lab_RefCOCOplus_predictions.json": "qwen25vl",
    "qwen25vl_lmms-lab_RefCOCOg_predictions.json": "qwen25vl",
    "qwen25vl_ZinengTang_PersReFex_predictions.json": "qwen25vl",
    "internvl_lmms-lab_RefCOCO_predictions.json": "internvl",
    "internvl_lmms-lab_RefCOCOplus_predictions.json": "internvl",
    "internvl_lmms-lab_RefCOCOg_predictions.json": "internvl",
    "llava_lmms-lab_RefCOCOg_predictions.json": "llava",
}
# Rows per group, drawn in this order; ``None``: the rest of TOTAL. Qwen2-VL's box-token
# answers are the bulk; the prose answers REC-Eval kept (its own parser found no box in
# them) are taken whole; point and tool-call answers test that no box is read where none
# was written.
QUOTAS = {"rec-eval:prose": 10_000, "screenspot-pro:qwen25vlagent:bbox": 10_000,
          "screenspot-pro:qwen25vlagent": 100, "rec-eval:molmo": 150,
          "screenspot-gpt4o": 100, "screenspot-pro:qwen25vl": 45,
          "screenspot-pro:qwen25vldevice": 50, "screenspot-pro:qwen2vl": None}


def _git(repo: Path, path: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], check=True,
                          capture_output=True, text=True).stdout


def _usable(response: object) -> bool:
    return isinstance(response, str) and bool(response.strip()) and len(response) <= MAX_CHARS


def screenspot_pro_rows(repo: Path) -> dict[str, list[dict]]:
    """results/<run>.json ``details``: instruction, raw_response, gold bbox (pixels)."""
    groups: dict[str, list[dict]] = {}
    for run, box_format in SSP_RUNS.items():
        for row in json.loads(_git(repo, f"results/{run}.json"))["details"]:
            response = row.get("raw_response")
            if not _usable(response):
                continue
            group = f"screenspot-pro:{run}"
            if run == "qwen25vlagent" and "bbox_2d" in response:
                group += ":bbox"
            elif run == "qwen25vldevice" and "left_click" in response:
                continue  # the same click answers as the qwen25vl run; keep its other actions
            groups.setdefault(group, []).append({
                "source": f"screenspot-pro:{run}",
                "item": f"{Path(row['img_path']).name}#{row['prompt_to_evaluate']}",
                "question": row["prompt_to_evaluate"].strip(), "image_size": None,
                "gold_box": row.get("bbox"), "gold_box_form": "x1y1x2y2 pixels",
                "box_format": box_format, "response": response})
    return groups


def rec_eval_rows(repo: Path) -> dict[str, list[dict]]:
    """outputs/*_predictions.json: expression, prediction text (Molmo always; the others only
    where REC-Eval's own parser found no box), gold bbox (COCO x, y, w, h pixels)."""
    groups: dict[str, list[dict]] = {}
    for name, model in REC_FILES.items():
        data = json.loads(_git(repo, f"outputs/{name}"))
        for dataset, models in data.items():
            for index, row in enumerate(models[model]):
                prediction = row.get("prediction")
                text = prediction.get("text") if isinstance(prediction, dict) else None
                if not _usable(text):
                    continue
                group = "rec-eval:molmo" if model == "molmo" else "rec-eval:prose"
                groups.setdefault(group, []).append({
                    "source": f"rec-eval:{model}", "item": f"{dataset}#{index}",
                    "question": row["text"].strip(), "image_size": None,
                    "gold_box": row.get("gt_bbox"), "gold_box_form": "xywh pixels",
                    "box_format": None, "response": text})
    return groups


def screenspot_gpt4o_rows(repo: Path) -> list[dict]:
    """output/*.jsonl OpenAI batch results; the instruction is the tail of ``custom_id``."""
    out = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "--name-only", "HEAD",
                          "output"], check=True, capture_output=True, text=True).stdout
    rows = []
    for path in sorted(p for p in out.splitlines() if p.endswith(".jsonl")):
        for line in _git(repo, path).splitlines():
            if not line.strip():
                continue
            record = json.loads(line)
            body = (record.get("response") or {}).get("body") or {}
            choices = body.get("choices") or [{}]
            text = (choices[0].get("message") or {}).get("content")
            match = re.search(r"\.png_(.+)$", record["custom_id"])
            if record.get("error") or not _usable(text) or not match:
                continue
            rows.append({"source": "screenspot-gpt4o", "item": record["custom_id"],
                         "question": match.group(1).replace("_", " "), "image_size": None,
                         "gold_box": None, "gold_box_form": None, "box_format": "norm1000",
                         "response": text})
    return rows


def build(groups: dict[str, list[dict]]) -> list[dict]:
    """Draw every group's quota (deduplicated), shuffle, number the rows."""
    rng = random.Random(SEED)
    seen: set[tuple[str, str]] = set()
    chosen: list[dict] = []
    for group, quota in QUOTAS.items():
        pool = []
        for row in groups.get(group, []):
            key = (row["question"], row["response"].strip())
            if key not in seen:
                seen.add(key)
                pool.append(row)
        want = TOTAL - len(chosen) if quota is None else quota
        rng.shuffle(pool)
        chosen += pool[:want]
    rng.shuffle(chosen)
    for number, row in enumerate(chosen, 1):
        row["id"] = f"grounding-{number:05d}"
        row["family"] = "grounding"
    return chosen


def write_readers(directory: Path, rows: list[dict], most: int = 700) -> None:
    """The second reader's input: equal parts of at most ``most`` rows, reader fields only."""
    directory.mkdir(parents=True, exist_ok=True)
    parts = -(-len(rows) // most)
    size = -(-len(rows) // parts)
    for part, start in enumerate(range(0, len(rows), size), 1):
        _write_jsonl(directory / f"grounding_part{part}.jsonl",
                     [{k: r[k] for k in READER_KEYS} for r in rows[start:start + size]])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--screenspot-pro", type=Path, required=True,
                        help="woodhalloween/ScreenSpot-Pro-GUI-Grounding checkout")
    parser.add_argument("--rec-eval", type=Path, required=True, help="teaywright/REC-Eval checkout")
    parser.add_argument("--screenspot-gpt4o", type=Path, required=True,
                        help="ideachoi337/Screenspot_GPT4o checkout")
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--readers", type=Path)
    args = parser.parse_args()
    groups = screenspot_pro_rows(args.screenspot_pro)
    groups.update(rec_eval_rows(args.rec_eval))
    groups["screenspot-gpt4o"] = screenspot_gpt4o_rows(args.screenspot_gpt4o)
    rows = build(groups)
    _write_jsonl(args.out / "grounding_set.jsonl", [{k: r[k] for k in KEYS} for r in rows])
    if args.readers:
        write_readers(args.readers, rows)
    print("grounding", len(rows))
    for source, n in sorted(Counter(r["source"] for r in rows).items()):
        print(f"  {source}\t{n}")


if __name__ == "__main__":
    main()
