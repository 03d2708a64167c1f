"""Build the frozen intent sets (multiple choice, yes/no, open) from real model outputs.

Reads model responses that public repositories publish beside their benchmarks (see
``README.md`` here for repository, path, commit and licence of each) and draws, with a
fixed seed, the rows of ``mc_set.jsonl``, ``yesno_set.jsonl`` and ``open_set.jsonl``.
Where real outputs are too few, generated rows from ``tests/scoring/reference/vectors``
top a family up; every row names its ``source``. The sets are frozen: they were committed
before any extractor was tuned on them, and this script only documents how they were drawn.

    python benchmarks/intent_labels/build_sets.py --mathvista /tmp/MathVista \\
        --hallusionbench /tmp/HallusionBench --out benchmarks/intent_labels

``--readers DIR`` also writes the second reader's input files (id, question, options or
golds, response; nothing else) in parts of at most 1,000 rows.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
from collections import defaultdict
from pathlib import Path

SEED = 20261201
PER_FAMILY = 2000
VECTORS = Path(__file__).resolve().parents[2] / "tests" / "scoring" / "reference" / "vectors"

# MathVista output files whose responses are prose (the *_code runs answer with programs).
MATHVISTA_RUNS = [
    "bard/output_bard", "chatgpt/output_chatgpt", "chatgpt/output_chatgpt_2shot_solution",
    "chatgpt/output_chatgpt_2shot_solution_use_ocr", "claude/output_claude",
    "claude/output_claude_2shot_solution", "claude/output_claude_2shot_solution_use_ocr",
    "gpt4/output_gpt4", "gpt4/output_gpt4_2shot_solution", "gpt4/output_gpt4_2shot_solution_use_ocr",
    "idefics/output_idefics_9b_instruct", "instruct_blip2/output_instruct_blip2_vicuna_13b",
    "llama_adapter_v2/output_llama_adapter_v2", "llava/output_llava_llama_2_13b",
    "llavar/output_llavar", "minigpt4/output_minigpt4_llama2", "mplugowl/output_mplugowl_7b_ft",
]


def _git_json(repo: Path, path: str):
    text = subprocess.run(["git", "-C", str(repo), "show", f"HEAD:{path}"], check=True,
                          capture_output=True, text=True).stdout
    return json.loads(text)


def _letters(choices: list[str]) -> dict[str, str]:
    return {chr(ord("A") + i): str(c) for i, c in enumerate(choices)}


def _is_yesno(choices: list[str] | None) -> bool:
    return bool(choices) and sorted(str(c).strip().lower() for c in choices) == ["no", "yes"]


def mathvista_rows(repo: Path) -> dict[str, list[dict]]:
    """Every non-empty prose response of every run, grouped by family."""
    out: dict[str, list[dict]] = defaultdict(list)
    for run in MATHVISTA_RUNS:
        data = _git_json(repo, f"results/{run}.json")
        for pid, row in data.items():
            response = row.get("response")
            if not isinstance(response, str) or not response.strip():
                continue
            base = {"source": f"mathvista:{run.split('/')[1]}", "item": f"mathvista/{pid}",
                    "question": row["question"], "response": response}
            if row["question_type"] == "multi_choice":
                family = "yesno" if _is_yesno(row["choices"]) else "mc"
                out[family].append({**base, "choices": _letters(row["choices"])})
            else:
                out["open"].append({**base, "golds": [str(row["answer"])],
                                    "answer_type": row["answer_type"], "unit": row.get("unit"),
                                    "precision": row.get("precision")})
    return out


def hallusionbench_rows(repo: Path) -> list[dict]:
    data = _git_json(repo, "HallusionBench_result_sample.json")
    return [{"source": "hallusionbench:result_sample",
             "item": f"hallusionbench/{r['category']}/{r['subcategory']}/{r['set_id']}/"
                     f"{r['figure_id']}/{r['question_id']}",
             "question": r["question"], "response": r["model_prediction"]}
            for r in data if isinstance(r.get("model_prediction"), str)]


def generated_rows(family: str) -> list[dict]:
    """Generated rows (distinct responses) from the reference vectors, for a top-up."""
    name = {"mc": "mc.jsonl", "yesno": "yesno.jsonl"}[family]
    seen, out = set(), []
    for i, line in enumerate((VECTORS / name).read_text(encoding="utf-8").splitlines()):
        row = json.loads(line)
        key = (row["response"], json.dumps(row.get("choices"), sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        extra = {"choices": row["choices"]} if "choices" in row else {}
        out.append({"source": f"generated:vectors/{name}#{i}", "item": f"generated/{i}",
                    "question": None, "response": row["response"], **extra})
    return out


def _dedupe(rows: list[dict]) -> list[dict]:
    seen, out = set(), []
    for row in rows:
        key = (row["response"].strip(), json.dumps(row.get("choices"), sort_keys=True),
               json.dumps(row.get("golds")))
        if key not in seen:
            seen.add(key)
            out.append(row)
    return out


def _stratified(rows: list[dict], n: int, rng: random.Random) -> list[dict]:
    """n rows spread as evenly as possible over sources (round robin on shuffled pools)."""
    pools: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        pools[row["source"]].append(row)
    for pool in pools.values():
        rng.shuffle(pool)
    picked, names = [], sorted(pools)
    while len(picked) < n and any(pools.values()):
        for name in names:
            if pools[name] and len(picked) < n:
                picked.append(pools[name].pop())
    return picked


def build(mathvista: Path, hallusionbench: Path) -> dict[str, list[dict]]:
    rng = random.Random(SEED)
    real = mathvista_rows(mathvista)
    sets: dict[str, list[dict]] = {}
    # Multiple choice: 1,800 real responses + 300 generated (refusals, hedges, corrections,
    # options named to rule them out) that the real runs rarely contain.
    mc_real = _stratified(_dedupe(real["mc"]), 1800, rng)
    gen = [r for r in generated_rows("mc")]
    rng.shuffle(gen)
    sets["mc"] = mc_real + gen[:300]
    # Yes/no: every HallusionBench response, then MathVista questions whose options are
    # Yes/No, spread over the runs; generated rows only if the real ones fall short.
    hallusion = _dedupe(hallusionbench_rows(hallusionbench))
    yn_real = hallusion + _stratified(_dedupe(real["yesno"]), PER_FAMILY + 100 - len(hallusion), rng)
    gen = generated_rows("yesno")
    rng.shuffle(gen)
    sets["yesno"] = yn_real + gen[:max(0, PER_FAMILY + 100 - len(yn_real))]
    sets["open"] = _stratified(_dedupe(real["open"]), PER_FAMILY + 100, rng)
    for family, rows in sets.items():
        rng.shuffle(rows)
        for k, row in enumerate(rows, 1):
            row["id"] = f"{family}-{k:05d}"
            row["family"] = family
    return sets


READER_KEYS = {"mc": ("id", "question", "choices", "response"),
               "yesno": ("id", "question", "choices", "response"),
               "open": ("id", "question", "golds", "unit", "answer_type", "response")}


def _write_jsonl(path: Path, rows: list[dict]) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                   encoding="utf-8")
    tmp.replace(path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mathvista", type=Path, required=True)
    parser.add_argument("--hallusionbench", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    parser.add_argument("--readers", type=Path)
    args = parser.parse_args()
    sets = build(args.mathvista, args.hallusionbench)
    for family, rows in sets.items():
        keys = ("id", "family", "source", "item", "question", "choices", "golds",
                "answer_type", "unit", "precision", "response")
        _write_jsonl(args.out / f"{family}_set.jsonl",
                     [{k: r[k] for k in keys if k in r} for r in rows])
        if args.readers:
            args.readers.mkdir(parents=True, exist_ok=True)
            size = -(-len(rows) // -(-len(rows) // 1000))  # equal parts of at most 1,000
            for part, start in enumerate(range(0, len(rows), size), 1):
                chunk = [{k: r[k] for k in READER_KEYS[family] if k in r}
                         for r in rows[start:start + size]]
                _write_jsonl(args.readers / f"{family}_part{part}.jsonl", chunk)
        print(family, len(rows), dict(sorted(
            {s: sum(1 for r in rows if r["source"].split(":")[0] == s)
             for s in {r["source"].split(":")[0] for r in rows}}.items())))


if __name__ == "__main__":
    main()
