"""Build the report sets (``report4/``): real model responses from files used by none of the
tuning sets, ``report2`` or ``report3``.

Same rules and row fields as ``build_report2.py`` (whose drawing code this reuses): verbatim
responses of at most 6,000 characters, identical (response, options / golds) pairs kept once,
rows whose (question, response) is in a tuning set, ``report2`` or ``report3`` dropped, round
robin over the runs of each repository, at most 10% bare answers per repository, one seeded
generator per family. See ``report4/README.md`` for repository, commit, path and licence of
each source.

    python benchmarks/intent_labels/build_report4.py --family mc --tempcompass /tmp/TempCompass \\
        --bbh /tmp/BIG-Bench-Hard --promptpg /tmp/PromptPG --out benchmarks/intent_labels/report4

Checkouts (or bare mirrors) are read at ``HEAD`` with ``git show``.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

from build_report2 import OLD_SETS, SEED, _git, _jsonl, _usable, bbh_rows, build, write_family
from build_sets import _is_yesno, _letters

EARLIER = (OLD_SETS, OLD_SETS / "report2", OLD_SETS / "report3")

# TempCompass models with a multiple-choice predictions file (video questions).
TEMPCOMPASS_MODELS = ["gemini", "reka-core-20240501", "reka-flash", "video-llava"]
# BIG-Bench-Hard tasks whose question ends with lettered options ("Options:\n(A) …"); report2
# used only the yes/no and free-form tasks of the same repository.
BBH_MC = ["date_understanding", "disambiguation_qa", "geometric_shapes", "hyperbaton",
          "logical_deduction_five_objects", "logical_deduction_seven_objects",
          "logical_deduction_three_objects", "movie_recommendation", "penguins_in_a_table",
          "reasoning_about_colored_objects", "ruin_names", "salient_translation_error_detection",
          "snarks", "temporal_sequences", "tracking_shuffled_objects_five_objects",
          "tracking_shuffled_objects_seven_objects", "tracking_shuffled_objects_three_objects"]
# PromptPG's GPT-3 (text-davinci-002) runs on TabMWP; only the 1,000 test problems of
# ``problems_test1k.json`` are in the snapshot (the full test file is absent).
TABMWP_RUNS = ["exp1_test_TQ-A_0_seed_2", "exp2_test_TQ-A_0_seed_2", "exp3_test_TQ-A_2_seed_2",
               "exp4_test_TQ-SA_2_seed_2"]

# TIGER-AI-Lab/TheoremQA's 5-shot outputs of four open models (every test question).
THEOREMQA_RUNS = ["Mistral_7B_Base_V0.2_5shots_mistral", "Mistral_7B_v0.1_5shots_mistral",
                  "internlm2_20b_5shots_short", "internlm2_math_20b_5shots_short"]

# Rows per repository in each family, drawn in this order; ``None``: the rest of the family.
QUOTAS = {"mc": {"tempcompass": 870, "bbh": 840, "tabmwp": None},
          "yesno": {"tabmwp": None, "theoremqa": None},
          "open": {"tabmwp": 840, "theoremqa": None}}


# --- sources --------------------------------------------------------------------------------

_LINE_OPTION = re.compile(r"^([A-Z])\.\s*(.*)$")
_PAREN_OPTION = re.compile(r"^\(([A-Z])\)\s*(.*)$")


def _options(lines: list[str], pattern: re.Pattern) -> dict[str, str] | None:
    """Consecutive option lines ``A. …`` / ``(A) …`` in letter order, or ``None``."""
    found = [m for m in (pattern.match(line.strip()) for line in lines) if m]
    letters = [m.group(1) for m in found]
    if len(found) < 2 or letters != [chr(ord("A") + k) for k in range(len(found))]:
        return None
    return {m.group(1): m.group(2).strip() for m in found}


def tempcompass_mc_rows(repo: Path) -> list[dict]:
    """TempCompass multiple-choice predictions of every model (video questions; the options
    are the question's ``A. …`` lines)."""
    out = []
    for model in TEMPCOMPASS_MODELS:
        data = json.loads(_git(repo, f"predictions/{model}/multi-choice.json"))
        for video, dims in data.items():
            for dim, rows in dims.items():
                for k, row in enumerate(rows):
                    first, *rest = row["question"].splitlines()
                    choices = _options(rest, _LINE_OPTION)
                    if re.search(r"[?.]\s*[A-H]\.\s", first):  # an option run into the question
                        continue
                    if _usable(row.get("prediction")) and choices and all(choices.values()):
                        out.append({"group": "tempcompass", "source": f"tempcompass:{model}",
                                    "item": f"tempcompass/{video}/{dim}/mc{k}",
                                    "question": row["question"], "choices": choices,
                                    "response": row["prediction"]})
    return out


def bbh_mc_rows(repo: Path) -> list[dict]:
    """BIG-Bench-Hard chain-of-thought outputs of code-davinci-002 on the lettered-option tasks."""
    out = []
    for row in bbh_rows(repo, BBH_MC):
        lines = row["question"].split("Options:", 1)
        if len(lines) == 2 and (choices := _options(lines[1].splitlines(), _PAREN_OPTION)):
            out.append({**row, "choices": choices})
    return out


def tabmwp_rows(repo: Path) -> dict[str, list[dict]]:
    """PromptPG's GPT-3 answers to TabMWP test problems, by family: yes/no options → yesno,
    other options → mc, free text → open (gold and its kind from the problem)."""
    problems = json.loads(_git(repo, "data/tabmwp/problems_test1k.json"))
    out: dict[str, list[dict]] = {"mc": [], "yesno": [], "open": []}
    for run in TABMWP_RUNS:
        results = json.loads(_git(repo, f"results/gpt3/{run}.json"))["results"]
        for pid, result in results.items():
            item = problems.get(pid)
            if item is None or not _usable(result.get("output")):
                continue
            base = {"group": "tabmwp", "source": f"tabmwp:text-davinci-002/{run}",
                    "item": f"tabmwp/{pid}", "question": item["question"],
                    "response": result["output"]}
            if item["choices"]:
                family = "yesno" if _is_yesno(item["choices"]) else "mc"
                out[family].append({**base, "choices": _letters(item["choices"])})
            else:
                kind = {"integer_number": "integer", "decimal_number": "float"}
                out["open"].append({**base, "golds": [str(item["answer"])],
                                    "answer_type": kind.get(item["ans_type"], "text"),
                                    "unit": item.get("unit"), "precision": None})
    return out


def theoremqa_rows(repo: Path) -> dict[str, list[dict]]:
    """TheoremQA 5-shot solutions of every run, by family: true/false questions → yesno,
    integer and float answers → open (lists and options are left out, and the one question
    the test file holds twice)."""
    test = json.loads(_git(repo, "theoremqa_test.json"))
    seen = Counter(row["Question"] for row in test)  # outputs are keyed by question text
    items = {row["Question"]: row for row in test if seen[row["Question"]] == 1}
    out: dict[str, list[dict]] = {"mc": [], "yesno": [], "open": []}
    for run in THEOREMQA_RUNS:
        for row in _jsonl(_git(repo, f"outputs/{run}.jsonl")):
            item = items.get(row["question"])
            if item is None or not _usable(row.get("solution")):
                continue
            base = {"group": "theoremqa", "source": f"theoremqa:{run}",
                    "item": f"theoremqa/{item['id']}", "question": item["Question"],
                    "response": row["solution"]}
            if item["Answer_type"] == "bool":
                out["yesno"].append(base)
            elif item["Answer_type"] in ("integer", "float"):
                out["open"].append({**base, "golds": [str(item["Answer"])],
                                    "answer_type": item["Answer_type"], "unit": None,
                                    "precision": None})
    return out


def gather(family: str, args: argparse.Namespace) -> list[dict]:
    rows = tabmwp_rows(args.promptpg)[family]
    if family != "mc":
        rows += theoremqa_rows(args.theoremqa)[family]
    else:
        rows = tempcompass_mc_rows(args.tempcompass) + rows + bbh_mc_rows(args.bbh)
    return rows


# --- output -----------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(QUOTAS), action="append", required=True)
    parser.add_argument("--tempcompass", type=Path, help="llyx97/TempCompass checkout")
    parser.add_argument("--bbh", type=Path, help="suzgunmirac/BIG-Bench-Hard checkout")
    parser.add_argument("--promptpg", type=Path, help="lupantech/PromptPG checkout")
    parser.add_argument("--theoremqa", type=Path, help="TIGER-AI-Lab/TheoremQA checkout")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "report4")
    parser.add_argument("--readers", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for family in args.family:
        rows = build(family, gather(family, args), QUOTAS, prefix="r4", old=EARLIER,
                     seed=f"{SEED}-report4-{family}")
        write_family(args.out, family, rows, args.readers)


if __name__ == "__main__":
    main()
