"""Build the report sets (``report3/``): real model responses from sources used by neither the
tuning sets (MathVista runs, HallusionBench) nor ``report2`` (MATH-Vision, MMMU, MMMU-Pro,
BIG-Bench-Hard, TempCompass).

Same rules and row fields as ``build_report2.py`` (whose drawing code this reuses): verbatim
responses of at most 6,000 characters, identical (response, options / golds) pairs kept once,
rows whose (question, response) is in a tuning set or in ``report2`` dropped, round robin over
the runs of each repository, at most 10% bare answers per repository, one seeded generator
per family. See ``report3/README.md`` for repository, commit, path and licence of each source.

    python benchmarks/intent_labels/build_report3.py --family mc --gaokao /tmp/GAOKAO-Bench \\
        --mmlu-pro /tmp/MMLU-Pro --agieval /tmp/AGIEval --out benchmarks/intent_labels/report3

Checkouts (or bare mirrors) are read with ``git show``; AGIEval's model outputs were deleted
from its ``HEAD``, so they are read at the commit that added them (``AGIEVAL_OUTPUTS``).
"""

from __future__ import annotations

import argparse
import ast
import io
import json
import re
import zipfile
from collections import defaultdict
from pathlib import Path

from build_report2 import (
    OLD_SETS,
    SEED,
    _git,
    _git_bytes,
    _git_paths,
    _jsonl,
    _kind,
    _usable,
    build,
    write_family,
)
from build_sets import _letters

REPORT2 = OLD_SETS / "report2"
AGIEVAL_OUTPUTS = "faac3067bcb5bfb10da4f745e0279c8fb5fe79a0"  # "davinci-003's fewshot results"

# GAOKAO-Bench objective files answered by gpt-4-0314 whose items are single-answer multiple
# choice (Physics is left out: its prompt asks for every correct option).
GAOKAO_MC = ["2010-2013_English_MCQs", "2010-2022_Biology_MCQs", "2010-2022_Chemistry_MCQs",
             "2010-2022_Chinese_Lang_and_Usage_MCQs", "2010-2022_History_MCQs",
             "2010-2022_Math_I_MCQs", "2010-2022_Math_II_MCQs",
             "2010-2022_Political_Science_MCQs"]
GAOKAO_OPEN = ["2010-2022_Math_I_Fill-in-the-Blank", "2010-2022_Math_II_Fill-in-the-Blank"]
ZEROEVAL_TASKS = ["gsm", "math-l5"]
GSM8K_RUNS = ["6b_finetuning", "6b_verification", "175b_finetuning", "175b_verification"]
# AlpacaEval instructions (index in its 805-item evaluation set, the order of
# results/gpt4/model_outputs.json) that ask a yes/no question: picked by reading the
# instructions, before any response was read; either/or questions and requests phrased as
# questions ("Can you give me a recipe …?") are left out.
ALPACA_YESNO = (10, 16, 39, 51, 80, 93, 95, 97, 112, 114, 118, 122, 128, 158, 175, 178, 198, 264,
                266, 280, 302, 314, 329, 339, 352, 364, 375, 377, 378, 384, 401, 408, 416, 420, 423,
                430, 462)

# Rows per repository in each family, drawn in this order; ``None``: the rest of the family.
QUOTAS = {"mc": {"gaokao": 840, "agieval": 420, "mmlu-pro": None},
          "yesno": {"zeroeval": 420, "alpaca_eval": None},
          "open": {"gaokao": 420, "agieval": 420, "gsm8k": 840, "zeroeval": None}}


# --- sources --------------------------------------------------------------------------------

_OPTION = re.compile(r"(?<![A-Za-z])([A-H])\s*[．.、]")


def inline_options(question: str) -> dict[str, str] | None:
    """The options written into a question's text ("A．… B．… C．… D．…"), or ``None``.

    The last run of markers A, B, C, … in order is taken; each option is the text up to the
    next marker. Fewer than four options, or an empty one, gives ``None``.
    """
    marks = list(_OPTION.finditer(question))
    starts = [k for k, m in enumerate(marks) if m.group(1) == "A"]
    for start in reversed(starts):
        run = [marks[start]]
        for m in marks[start + 1:]:
            if ord(m.group(1)) == ord(run[-1].group(1)) + 1:
                run.append(m)
        if len(run) < 4:
            continue
        ends = [m.start() for m in run[1:]] + [len(question)]
        options = {m.group(1): question[m.end():end].strip() for m, end in zip(run, ends)}
        return options if all(options.values()) else None
    return None


def _exam_gold(text: str) -> str:
    """A Gaokao cloze gold without the sentence's closing full stop and newline ("-8 .\n")."""
    return re.sub(r"[\s.。]+$", "", str(text).strip())


def gaokao_base(row: dict, key: str, source: str, group: str = "gaokao") -> dict | None:
    """The row of one GAOKAO-Bench answer (item ``gaokao/<key>/<index>``), or ``None`` when
    the item has more than one gold or the output is empty or too long."""
    # a list of letters; a string in fill-in-the-blank files (``answer`` in some runs' files)
    gold = row.get("standard_answer", row.get("answer"))
    gold = [gold] if isinstance(gold, str) else gold
    if not (isinstance(gold, list) and len(gold) == 1) or not _usable(row.get("model_output")):
        return None
    return {"group": group, "source": source, "item": f"gaokao/{key}/{row['index']}",
            "question": row["question"], "response": row["model_output"]}


def gaokao_rows(repo: Path) -> dict[str, list[dict]]:
    """GAOKAO-Bench gpt-4-0314 outputs (Chinese exam questions): single-answer multiple
    choice (options read off the question text) and mathematics fill-in-the-blank."""
    out: dict[str, list[dict]] = defaultdict(list)
    for family, keys, folder in (("mc", GAOKAO_MC, "obj"), ("open", GAOKAO_OPEN, "sub")):
        for key in keys:
            data = json.loads(_git(repo, f"Results/gpt_4_0314_{folder}/gpt-4-0314_{key}.json"))
            for row in data["example"]:
                base = gaokao_base(row, key, f"gaokao:gpt-4-0314/{key}")
                if base is None:
                    continue
                if family == "open":
                    gold = _exam_gold(row.get("standard_answer", row.get("answer")))
                    out["open"].append({**base, "golds": [gold], "answer_type": _kind(gold)})
                elif choices := inline_options(row["question"]):
                    out["mc"].append({**base, "choices": choices})
    return out


def mmlu_pro_runs(repo: Path) -> list[str]:
    """The zipped MMLU-Pro outputs present in the checkout (some are absent from snapshots)."""
    out = []
    for path in _git_paths(repo, "eval_results"):
        name = path.removeprefix("eval_results/model_outputs_")
        if path.endswith(".zip") and name != path:
            try:
                _git_bytes(repo, path)
            except Exception:  # noqa: BLE001 - a blob missing from the snapshot
                continue
            out.append(name.removesuffix(".zip"))
    return out


def mmlu_pro_rows(repo: Path) -> list[dict]:
    """MMLU-Pro 5-shot chain-of-thought outputs of every model (10 options)."""
    out = []
    for run in mmlu_pro_runs(repo):
        archive = zipfile.ZipFile(io.BytesIO(_git_bytes(
            repo, f"eval_results/model_outputs_{run}.zip")))
        name = next(n for n in archive.namelist() if n.endswith(".json") and "MACOSX" not in n)
        for row in json.loads(archive.read(name)):
            if not isinstance(row, dict):  # DeepSeek-Coder-V2's file ends with summary keys
                continue
            response = row.get("model_outputs") or row.get("generated_text")
            if not _usable(response) or len(row["options"]) < 2:
                continue
            out.append({"group": "mmlu-pro", "source": f"mmlu-pro:{run}",
                        "item": f"mmlu-pro/{row['question_id']}", "question": row["question"],
                        "choices": _letters(row["options"]), "response": response})
    return out


_PROBLEM = re.compile(r"Problem \d+\.\s+(.*?)\nChoose from the following options:\s*(.*)", re.S)
_PAREN_OPTION = re.compile(r"\(([A-H])\)")


def agieval_rows(repo: Path) -> dict[str, list[dict]]:
    """AGIEval few-shot outputs of text-davinci-003 with a response longer than a letter: SAT
    mathematics (multiple choice, question and options read off the prompt's last problem)
    and Gaokao mathematics cloze (golds from the test split)."""
    out: dict[str, list[dict]] = defaultdict(list)
    base_dir = "output/davinci-003/few_shot"
    for row in _jsonl(_git(repo, f"{base_dir}/sat/math_samples.0.jsonl", AGIEVAL_OUTPUTS)):
        response = row["choices"][0]["text"]
        match = _PROBLEM.search("Problem " + row["context"].rsplit("\nProblem ", 1)[-1])
        if not (_usable(response) and match):
            continue
        parts = _PAREN_OPTION.split(match.group(2).strip())
        choices = {parts[k]: parts[k + 1].strip() for k in range(1, len(parts) - 1, 2)}
        out["mc"].append({"group": "agieval", "source": "agieval:text-davinci-003/sat-math",
                          "item": f"agieval/sat-math/{row['metadata']}",
                          "question": match.group(1).strip(), "choices": choices,
                          "response": response})
    items = _jsonl(_git(repo, "data/gaokao/splits/test/mathcloze.jsonl", AGIEVAL_OUTPUTS))
    for row in _jsonl(_git(repo, f"{base_dir}/gaokao/mathcloze_samples.0.jsonl",
                           AGIEVAL_OUTPUTS)):
        item = items[row["metadata"]]
        response, gold = row["choices"][0]["text"], _exam_gold(item["answer"])
        if not _usable(response) or ";" in gold or item["question"].count("(\\quad)") > 1:
            continue  # more than one blank
        out["open"].append({"group": "agieval",
                            "source": "agieval:text-davinci-003/gaokao-mathcloze",
                            "item": f"agieval/gaokao-mathcloze/{row['metadata']}",
                            "question": item["question"], "golds": [gold],
                            "answer_type": _kind(gold), "response": response})
    return out


def _zeroeval_files(repo: Path, task: str) -> list[tuple[str, list[dict]]]:
    """(run, rows) of every model's result file for ``task`` present in the checkout."""
    out = []
    for path in _git_paths(repo, f"result_dirs/{task}/"):
        if not path.endswith(".json") or path.endswith(".ae.json") or "/weighted_" in path:
            continue  # AlpacaEval's annotation files
        try:
            out.append((path.removeprefix(f"result_dirs/{task}/").removesuffix(".json"),
                        json.loads(_git(repo, path))))
        except Exception:  # noqa: BLE001 - a blob missing from the snapshot
            continue
    return out


def _zeroeval_output(row: dict) -> str | None:
    """The model's answer: ``output`` is a one-item list, or that list's repr (older files)."""
    outputs = row.get("output") or []
    if isinstance(outputs, str):
        outputs = ast.literal_eval(outputs) if outputs.startswith("[") else [outputs]
    return outputs[0] if outputs and _usable(outputs[0]) else None


def zeroeval_rows(repo: Path) -> list[dict]:
    """ZeroEval zero-shot JSON-formatted answers of every model to GSM8K and MATH level 5."""
    out = []
    for task in ZEROEVAL_TASKS:
        for model, data in _zeroeval_files(repo, task):
            for row in data:
                if (response := _zeroeval_output(row)) is None:
                    continue
                gold = str(row["answer"]).lstrip("#").strip()
                out.append({"group": "zeroeval", "source": f"zeroeval:{model}/{task}",
                            "item": f"zeroeval/{task}/{row['id']}",
                            "question": row.get("question") or row.get("problem"),
                            "golds": [gold], "answer_type": _kind(gold),
                            "response": response})
    return out


def _alpaca_questions(repo: Path) -> dict[str, int]:
    """The ALPACA_YESNO instructions → their index in the AlpacaEval set."""
    items = json.loads(_git(repo, "results/gpt4/model_outputs.json"))
    return {items[k]["instruction"]: k for k in ALPACA_YESNO}


def alpaca_rows(repo: Path) -> list[dict]:
    """Every model's AlpacaEval answer to the yes/no questions among its instructions."""
    questions, out = _alpaca_questions(repo), []
    for path in _git_paths(repo, "results"):
        if not path.endswith("/model_outputs.json"):
            continue
        try:
            data = json.loads(_git(repo, path))
        except Exception:  # noqa: BLE001 - a blob missing from the snapshot
            continue
        model = path.removeprefix("results/").removesuffix("/model_outputs.json")
        for row in data:
            if row.get("instruction") in questions and _usable(row.get("output")):
                out.append({"group": "alpaca_eval", "source": f"alpaca_eval:{model}",
                            "item": f"alpaca_eval/{questions[row['instruction']]}",
                            "question": row["instruction"], "response": row["output"]})
    return out


def zeroeval_alpaca_rows(zeroeval: Path, alpaca_eval: Path) -> list[dict]:
    """ZeroEval's AlpacaEval answers (greedy and sampled) to the same yes/no questions."""
    questions, out = _alpaca_questions(alpaca_eval), []
    for run, data in _zeroeval_files(zeroeval, "alpaca_eval"):
        for row in data:
            if row.get("instruction") in questions and (response := _zeroeval_output(row)):
                out.append({"group": "zeroeval", "source": f"zeroeval:alpaca_eval/{run}",
                            "item": f"alpaca_eval/{questions[row['instruction']]}",
                            "question": row["instruction"], "response": response})
    return out


def gsm8k_rows(repo: Path) -> list[dict]:
    """OpenAI's grade-school-math example solutions of the 6B and 175B GPT-3 models."""
    out = []
    path = "grade_school_math/data/example_model_solutions.jsonl"
    for k, row in enumerate(_jsonl(_git(repo, path))):
        gold = row["ground_truth"].rsplit("\nA: ", 1)[-1].strip()
        for run in GSM8K_RUNS:
            response = row[run]["solution"]
            if _usable(response):
                out.append({"group": "gsm8k", "source": f"gsm8k:{run}", "item": f"gsm8k/{k}",
                            "question": row["question"], "golds": [gold],
                            "answer_type": _kind(gold), "response": response})
    return out


def gather(family: str, args: argparse.Namespace) -> list[dict]:
    if family == "mc":
        return (gaokao_rows(args.gaokao)["mc"] + agieval_rows(args.agieval)["mc"]
                + mmlu_pro_rows(args.mmlu_pro))
    if family == "yesno":
        return zeroeval_alpaca_rows(args.zeroeval, args.alpaca_eval) + alpaca_rows(args.alpaca_eval)
    rows = (gaokao_rows(args.gaokao)["open"] + agieval_rows(args.agieval)["open"]
            + gsm8k_rows(args.gsm8k) + zeroeval_rows(args.zeroeval))
    for row in rows:  # the sources give no unit or precision
        row.update(unit=None, precision=None)
    return rows


# --- output -----------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(QUOTAS), action="append", required=True)
    parser.add_argument("--gaokao", type=Path, help="OpenLMLab/GAOKAO-Bench checkout")
    parser.add_argument("--mmlu-pro", type=Path, help="TIGER-AI-Lab/MMLU-Pro checkout")
    parser.add_argument("--agieval", type=Path, help="ruixiangcui/AGIEval checkout")
    parser.add_argument("--zeroeval", type=Path, help="yuchenlin/ZeroEval checkout")
    parser.add_argument("--gsm8k", type=Path, help="openai/grade-school-math checkout")
    parser.add_argument("--alpaca-eval", type=Path, help="tatsu-lab/alpaca_eval checkout")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "report3")
    parser.add_argument("--readers", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for family in args.family:
        rows = build(family, gather(family, args), QUOTAS, prefix="r3",
                     old=(OLD_SETS, REPORT2), seed=f"{SEED}-report3-{family}")
        write_family(args.out, family, rows, args.readers)


if __name__ == "__main__":
    main()
