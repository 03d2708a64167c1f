"""Build the report sets (``report2/``): real model responses not used by the tuning sets.

The sets in ``benchmarks/intent_labels/`` (MathVista runs, HallusionBench) have all been
looked at while the extractor was tuned; these sets are drawn from other public files of
model outputs (see ``report2/README.md`` for repository, path, commit and licence of each)
and frozen before any extractor runs on them. Every family draws with its own seeded
generator, so adding a family later does not change the rows of one already frozen.

    python benchmarks/intent_labels/build_report2.py --family mc \\
        --mathv /tmp/MATH-V --mmmu /tmp/MMMU --out benchmarks/intent_labels/report2

Checkouts are read at ``HEAD`` with ``git show`` (a bare mirror is enough). ``--readers DIR``
also writes the second reader's input (id, question, options or golds, response) in parts
of at most 700 rows.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import subprocess
from collections import defaultdict
from pathlib import Path

from build_sets import READER_KEYS, _letters, _write_jsonl  # this folder's tuning-set builder

SEED = 20261202
PER_FAMILY = 2100
MAX_CHARS = 6000       # longer responses are skipped, never truncated
BARE_SHARE = 0.10      # at most this share of a family's rows may be a bare answer ("B", "Yes")
OLD_SETS = Path(__file__).parent

MATHV_RUNS = [  # outputs/<path>.jsonl; the three GPT-4V files are absent from the snapshot
    "closed-source/GPT/ChatGPT3.5-CoT (Text+Image Caption)", "closed-source/GPT/GPT4-CoT (Text Only)",
    "closed-source/Gemini/Gemini-Pro-CoT", "closed-source/Gemini/Gemini-Pro",
    "closed-source/Qwen/Qwen-VL-Max-CoT", "closed-source/Qwen/Qwen-VL-Max",
    "closed-source/Qwen/Qwen-VL-Plus", "open-source/Internlm/InternLM-XComposer2-VL-CoT",
    "open-source/Internlm/InternLM-XComposer2-VL", "open-source/LLavA/LLaVA-v1.5-13B",
    "open-source/LLavA/LLaVA-v1.5-7B", "open-source/ShereGPT4V/ShareGPT4V-13B",
    "open-source/ShereGPT4V/ShareGPT4V-7B", "open-source/Sphinx/SPHINX-MoE",
    "open-source/Sphinx/SPHINX-v2",
]
MMMU_PRO_RUNS = ["gpt-4o_standard(10 options)_cot", "gpt-4o_standard(10 options)_direct",
                 "gpt-4o_vision_cot", "gpt-4o_vision_direct"]
MMMU_MODELS = ["qwen_vl", "llava1.5_13b"]
TEMPCOMPASS_MODELS = ["gemini", "reka-core-20240501", "reka-flash", "video-llava"]
# BIG-Bench-Hard tasks whose answer is yes/no, and tasks with a free-form answer (gold kind).
BBH_YESNO = ["causal_judgement", "navigate", "sports_understanding", "web_of_lies"]
BBH_OPEN = {"object_counting": "integer", "multistep_arithmetic_two": "integer",
            "word_sorting": "text"}

# Rows per repository (a "group") in each family, drawn in this order; ``None``: the rest of
# PER_FAMILY. No group above ~40% where the public sources allow it (see README).
QUOTAS = {"mc": {"mathv": 840, "mmmu-pro": 840, "mmmu": 420},
          "yesno": {"bbh": 840, "tempcompass": None},
          "open": {"bbh": 750, "mmmu": 60, "mathv": None}}


def _git_bytes(repo: Path, path: str, rev: str = "HEAD") -> bytes:
    """The bytes of ``path`` at ``rev`` in a checkout or bare mirror."""
    return subprocess.run(["git", "-C", str(repo), "show", f"{rev}:{path}"], check=True,
                          capture_output=True).stdout


def _git(repo: Path, path: str, rev: str = "HEAD") -> str:
    return _git_bytes(repo, path, rev).decode("utf-8")


def _git_paths(repo: Path, under: str, rev: str = "HEAD") -> list[str]:
    """The files under ``under`` at ``rev`` (non-ASCII names unquoted)."""
    out = subprocess.run(["git", "-C", str(repo), "-c", "core.quotepath=off", "ls-tree", "-r",
                          "--name-only", rev, under],
                         check=True, capture_output=True, text=True).stdout
    return [p for p in out.splitlines() if p]


def _jsonl(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _usable(response: object) -> bool:
    return isinstance(response, str) and bool(response.strip()) and len(response) <= MAX_CHARS


# --- sources --------------------------------------------------------------------------------

def mathv_rows(repo: Path) -> dict[str, list[dict]]:
    """MATH-Vision test outputs of every run, by family (options → mc, none → open)."""
    items = {str(r["id"]): r for r in _jsonl(_git(repo, "data/test.jsonl"))}
    out: dict[str, list[dict]] = defaultdict(list)
    for run in MATHV_RUNS:
        for row in _jsonl(_git(repo, f"outputs/{run}.jsonl")):
            item = items[str(row["id"])]
            if not _usable(row.get("response")):
                continue
            base = {"group": "mathv", "source": f"mathv:{run.split('/')[-1]}",
                    "item": f"mathv/{item['id']}", "question": item["question"],
                    "response": row["response"]}
            if item["options"]:
                out["mc"].append({**base, "choices": _letters(item["options"])})
            else:
                gold = str(item["answer"])
                out["open"].append({**base, "golds": [gold], "answer_type": _kind(gold)})
    return out


def _kind(gold: str) -> str:
    """``integer`` / ``float`` / ``text``, read off the gold (the sources give no type)."""
    gold = gold.strip()
    if re.fullmatch(r"[-+]?\d+", gold):
        return "integer"
    return "float" if re.fullmatch(r"[-+]?\d*\.\d+", gold) else "text"


def mmmu_pro_rows(repo: Path) -> list[dict]:
    """MMMU-Pro gpt-4o outputs (10 options; standard and vision settings, CoT and direct)."""
    out = []
    for run in MMMU_PRO_RUNS:
        for row in _jsonl(_git(repo, f"mmmu-pro/output/{run}.jsonl")):
            if not _usable(row.get("response")):
                continue
            options = row["options"]
            options = ast.literal_eval(options) if isinstance(options, str) else options
            out.append({"group": "mmmu-pro", "source": f"mmmu-pro:{run}",
                        "item": f"mmmu-pro/{row['id']}", "question": row["question"],
                        "choices": _letters(options), "response": row["response"]})
    return out


def mmmu_rows(repo: Path) -> dict[str, list[dict]]:
    """MMMU validation example outputs (per-subject ``output.json``; no question text)."""
    golds = json.loads(_git(repo, "mmmu/answer_dict_val.json"))
    out: dict[str, list[dict]] = defaultdict(list)
    for model in MMMU_MODELS:
        for path in _git_paths(repo, f"mmmu/example_outputs/{model}"):
            if not path.endswith("/output.json"):
                continue
            for row in json.loads(_git(repo, path)):
                if not _usable(row.get("response")):
                    continue
                base = {"group": "mmmu", "source": f"mmmu:{model}", "item": f"mmmu/{row['id']}",
                        "question": None, "response": row["response"]}
                if row["question_type"] == "multiple-choice":
                    out["mc"].append({**base, "choices": dict(row["index2ans"])})
                else:
                    gold = golds[row["id"]]["ground_truth"]
                    gold = [str(g) for g in gold] if isinstance(gold, list) else [str(gold)]
                    out["open"].append({**base, "golds": gold, "answer_type": _kind(gold[0])})
    return out


def tempcompass_rows(repo: Path) -> list[dict]:
    """TempCompass yes/no predictions of every model (video questions)."""
    out = []
    for model in TEMPCOMPASS_MODELS:
        data = json.loads(_git(repo, f"predictions/{model}/yes_no.json"))
        for video, dims in data.items():
            for dim, rows in dims.items():
                for k, row in enumerate(rows):
                    if _usable(row.get("prediction")):
                        out.append({"group": "tempcompass", "source": f"tempcompass:{model}",
                                    "item": f"tempcompass/{video}/{dim}/{k}",
                                    "question": row["question"], "response": row["prediction"]})
    return out


def bbh_rows(repo: Path, tasks: list[str] | dict[str, str]) -> list[dict]:
    """BIG-Bench-Hard chain-of-thought outputs of code-davinci-002 for ``tasks``; the question
    is the last few-shot turn of the prompt, the response the model's continuation."""
    out = []
    for task in tasks:
        path = f"code-davinci-002-outputs/code-davinci-002-cot/{task}_few_shot_template_0-255000.json"
        for k, row in enumerate(json.loads(_git(repo, path))["outputs"]):
            if not _usable(row.get("prediction")):
                continue
            question = row["input"].rsplit("\n\nQ: ", 1)[-1]
            question = question.removesuffix("A: Let's think step by step.").rstrip()
            base = {"group": "bbh", "source": f"bbh:code-davinci-002-cot/{task}",
                    "item": f"bbh/{task}/{k}", "question": question,
                    "response": row["prediction"]}
            if isinstance(tasks, dict):
                base.update(golds=[str(row["target"])], answer_type=tasks[task])
            out.append(base)
    return out


# --- drawing ----------------------------------------------------------------------------------

def _old_pairs(folders: tuple[Path, ...] = (OLD_SETS,)) -> set[tuple]:
    """(question, response) of every row of the frozen sets in ``folders``."""
    pairs = set()
    for path in sorted(p for folder in folders for p in folder.glob("*_set.jsonl")):
        for row in _jsonl(path.read_text(encoding="utf-8")):
            pairs.add((row.get("question"), row["response"].strip()))
    return pairs


def _bare(response: str) -> bool:
    """A bare answer: a letter, a yes/no word or a short token with nothing around it."""
    text = response.strip().strip(".()*").strip()
    return len(text) <= 3 or bool(re.fullmatch(r"(?i)(yes|no|true|false)", text))


def _dedupe(rows: list[dict], old: set[tuple]) -> list[dict]:
    seen, out = set(), []
    for row in rows:
        key = (row["response"].strip(), json.dumps(row.get("choices"), sort_keys=True),
               json.dumps(row.get("golds")))
        if key in seen or (row["question"], row["response"].strip()) in old:
            continue
        seen.add(key)
        out.append(row)
    return out


def _draw(rows: list[dict], quota: int, bare_cap: int, rng: random.Random) -> list[dict]:
    """``quota`` rows round robin over the sources (shuffled pools), at most ``bare_cap`` bare."""
    pools: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        pools[row["source"]].append(row)
    for name in sorted(pools):
        rng.shuffle(pools[name])
    picked, bare = [], 0
    while len(picked) < quota and any(pools.values()):
        for name in sorted(pools):
            while pools[name] and len(picked) < quota:
                row = pools[name].pop()
                if _bare(row["response"]):
                    if bare >= bare_cap:
                        continue
                    bare += 1
                picked.append(row)
                break
    return picked


def build(family: str, rows: list[dict], quotas: dict | None = None, prefix: str = "r2",
          old: tuple[Path, ...] = (OLD_SETS,), seed: str | None = None) -> list[dict]:
    """Dedupe ``rows``, drop those already in the sets under ``old``, draw each group's quota
    (``quotas[family]``, default this module's QUOTAS) and number them ``<prefix>-<family>-n``."""
    rng = random.Random(seed or f"{SEED}-{family}")
    rows = _dedupe(rows, _old_pairs(old))
    picked: list[dict] = []
    for group, quota in (quotas or QUOTAS)[family].items():
        quota = PER_FAMILY - len(picked) if quota is None else quota
        mine = [r for r in rows if r["group"] == group]
        picked += _draw(mine, quota, int(BARE_SHARE * quota), rng)
    rng.shuffle(picked)
    for k, row in enumerate(picked, 1):
        row["id"] = f"{prefix}-{family}-{k:05d}"
        row["family"] = family
    return picked


def gather(family: str, args: argparse.Namespace) -> list[dict]:
    rows: list[dict] = []
    if family == "mc":
        rows += mathv_rows(args.mathv)["mc"] + mmmu_pro_rows(args.mmmu) + mmmu_rows(args.mmmu)["mc"]
    elif family == "yesno":
        rows += bbh_rows(args.bbh, BBH_YESNO) + tempcompass_rows(args.tempcompass)
    else:
        rows += bbh_rows(args.bbh, BBH_OPEN) + mmmu_rows(args.mmmu)["open"]
        rows += mathv_rows(args.mathv)["open"]
        for row in rows:  # the sources give no unit or precision
            row.update(unit=None, precision=None)
    return rows


# --- output -----------------------------------------------------------------------------------

KEYS = ("id", "family", "source", "item", "question", "choices", "golds", "answer_type", "unit",
        "precision", "response")


def write_readers(directory: Path, family: str, rows: list[dict], most: int = 700) -> None:
    """The second reader's input: equal parts of at most ``most`` rows, reader fields only."""
    directory.mkdir(parents=True, exist_ok=True)
    parts = -(-len(rows) // most)
    size = -(-len(rows) // parts)
    for part, start in enumerate(range(0, len(rows), size), 1):
        _write_jsonl(directory / f"{family}_part{part}.jsonl",
                     [{k: r[k] for k in READER_KEYS[family] if k in r}
                      for r in rows[start:start + size]])


def write_family(out: Path, family: str, rows: list[dict], readers: Path | None) -> None:
    """Write ``<family>_set.jsonl`` (and the readers' parts) and print rows per source."""
    _write_jsonl(out / f"{family}_set.jsonl", [{k: r[k] for k in KEYS if k in r} for r in rows])
    if readers:
        write_readers(readers, family, rows)
    counts: dict[str, int] = defaultdict(int)
    for row in rows:
        counts[row["source"]] += 1
    print(family, len(rows), "bare", sum(_bare(r["response"]) for r in rows))
    for source, n in sorted(counts.items()):
        print(f"  {source}\t{n}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(QUOTAS), action="append", required=True)
    parser.add_argument("--mathv", type=Path)
    parser.add_argument("--mmmu", type=Path)
    parser.add_argument("--bbh", type=Path, help="suzgunmirac/BIG-Bench-Hard checkout")
    parser.add_argument("--tempcompass", type=Path, help="llyx97/TempCompass checkout")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "report2")
    parser.add_argument("--readers", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for family in args.family:
        write_family(args.out, family, build(family, gather(family, args)), args.readers)


if __name__ == "__main__":
    main()
