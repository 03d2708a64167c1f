"""Build the report sets (``report7/``): real model responses from files used by none of the
tuning sets, ``report2``, ``report3``, ``report4``, ``report5`` or ``report6``.

Same rules and row fields as ``build_report2.py`` (whose drawing code this reuses): verbatim
responses of at most 6,000 characters, identical (response, options / golds) pairs kept once,
rows whose (question, response) is in a tuning set or an earlier report set dropped, round
robin over the runs of each model, at most 10% bare answers, one seeded generator per family.
See ``report7/README.md`` for repository, commit, path and licence of each source.

    python benchmarks/intent_labels/build_report7.py --family mc --family open \\
        --gaokao /tmp/GAOKAO-Bench --faithful-cot /tmp/Faithful-COT \\
        --out benchmarks/intent_labels/report7 [--readers DIR]

GAOKAO-Bench's outputs of gpt-3.5-turbo, text-davinci-003 and MOSS were deleted from its
``HEAD`` in 2024, so they are read at the commit that added them (``GAOKAO_OUTPUTS``) with
``git show`` (a checkout or a bare mirror); Faithful-COT is read at ``HEAD``. Once the
readers have written their labels, ``--labels DIR`` / ``--check-labels DIR`` gather them into
``<family>_set_labels.jsonl`` / ``<family>_check_labels.jsonl`` (no parser runs):

    python benchmarks/intent_labels/build_report7.py --family mc --family open \\
        --labels /work/wt/readers15 --check-labels /work/wt/readers16
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from build_report2 import OLD_SETS, SEED, _git, _git_paths, _kind, build, write_family
from build_report3 import GAOKAO_MC, GAOKAO_OPEN, _exam_gold, gaokao_base, inline_options
from build_report5 import add_label_options, faithful_rows, merged_labels, require_sources

EARLIER = (OLD_SETS, OLD_SETS / "report2", OLD_SETS / "report3", OLD_SETS / "report4",
           OLD_SETS / "report5", OLD_SETS / "report6")

# "add result of gpt-3.5-turbo & text-davinci-003 & moss" (2023-04-19); the folder ``result/``
# was removed by the commit "new version" (5f7f7a0, 2024-02-25). report3 took gpt-4-0314's
# outputs from ``Results/`` at HEAD; these are the three other models' answers to the same items.
GAOKAO_OUTPUTS = "b82e164ac1616abd203ecb5c6acc8058136e82dd"
GAOKAO_MODELS = ("gpt-3.5-turbo", "text-davinci-003", "moss")
# Some runs name their files in Chinese; the English names are those of the dataset files.
GAOKAO_NAMES = {"2010_2013英语全国卷单项选择": "2010-2013_English_MCQs",
                "2010_2022生物全国卷选择题": "2010-2022_Biology_MCQs",
                "2010_2022化学全国卷选择题": "2010-2022_Chemistry_MCQs",
                "2010_2022语文全国卷语言文字运用选择题": "2010-2022_Chinese_Lang_and_Usage_MCQs",
                "2010_2022历史全国卷选择题": "2010-2022_History_MCQs",
                "2010_2022理数全国卷选择题": "2010-2022_Math_I_MCQs",
                "2010_2022文数全国卷选择题": "2010-2022_Math_II_MCQs",
                "2010_2022政治全国卷选择题": "2010-2022_Political_Science_MCQs"}
# Texts the serving harness wrote in place of an answer (a failed request is not an answer):
# left out, as the README says.
HARNESS_ERRORS = frozenset({"Internal Server Error", "inference server error",
                            "单次输入限长为 1000 字符。Input no more than 1000 characters"})

# Faithful-COT's BIG-bench date understanding, free-form ("What is the date today in
# MM/DD/YYYY?"): natural-language runs of six OpenAI models (report5 and report6 took its
# AQuA, StrategyQA, GSM8K, SVAMP and sports files).
FAITHFUL_OPEN = ["date"]

# Rows per model (Faithful-COT: per repository, six models) in each family, drawn in this
# order; ``None``: the rest of the family. No model above 40%; MOSS's share is about what it
# gives besides bare answers, and the open family takes every other GAOKAO-Bench answer that
# survives the dedupe (see README).
QUOTAS = {"mc": {"gpt-3.5-turbo": 757, "text-davinci-003": 757, "moss": None},
          "open": {"gpt-3.5-turbo": 499, "text-davinci-003": 501, "moss": 230,
                   "faithful-cot": None}}


# --- sources --------------------------------------------------------------------------------

def gaokao_history_rows(repo: Path, family: str) -> list[dict]:
    """The answers of every run of gpt-3.5-turbo, text-davinci-003 and MOSS in GAOKAO-Bench's
    ``result/`` folder to the items report3 took: single-answer multiple choice
    (``GAOKAO_MC``, options read off the question) or mathematics fill-in-the-blank
    (``GAOKAO_OPEN``, the gold without its closing full stop)."""
    keys = GAOKAO_MC if family == "mc" else GAOKAO_OPEN
    out = []
    for path in _git_paths(repo, "result", GAOKAO_OUTPUTS):
        folder, name = path.split("/")[-2:]
        model = next((m for m in GAOKAO_MODELS if name.startswith(f"{m}_")), None)
        if model is None or not name.endswith(".json"):
            continue
        key = name.removeprefix(f"{model}_").removesuffix(".json")
        key = GAOKAO_NAMES.get(key, key)
        if key not in keys:
            continue
        run = f"run{folder.rsplit('_', 1)[-1]}"
        data = json.loads(_git(repo, path, GAOKAO_OUTPUTS))
        for row in data["example"] if isinstance(data, dict) else data:
            base = gaokao_base(row, key, f"gaokao:{model}/{run}/{key}", group=model)
            if base is None or base["response"].strip() in HARNESS_ERRORS:
                continue
            if family == "open":
                gold = _exam_gold(row.get("standard_answer", row.get("answer")))
                out.append({**base, "golds": [gold], "answer_type": _kind(gold), "unit": None,
                            "precision": None})
            elif choices := inline_options(row["question"]):
                out.append({**base, "choices": choices})
    return out


def gather(family: str, args: argparse.Namespace) -> list[dict]:
    rows = gaokao_history_rows(args.gaokao, family)
    if family == "open":
        rows += faithful_rows(args.faithful_cot, family, FAITHFUL_OPEN)
    return rows


# --- output -----------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(QUOTAS), action="append", required=True)
    parser.add_argument("--gaokao", type=Path, help="OpenLMLab/GAOKAO-Bench checkout")
    parser.add_argument("--faithful-cot", type=Path, help="veronica320/Faithful-COT checkout")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "report7")
    add_label_options(parser)
    args = parser.parse_args()
    if merged_labels(parser, args):
        return
    needed = {"mc": ["gaokao"], "open": ["gaokao", "faithful_cot"]}
    require_sources(parser, args, needed)
    args.out.mkdir(parents=True, exist_ok=True)
    for family in args.family:
        rows = build(family, gather(family, args), QUOTAS, prefix="r7", old=EARLIER,
                     seed=f"{SEED}-report7-{family}")
        write_family(args.out, family, rows, args.readers)


if __name__ == "__main__":
    main()
