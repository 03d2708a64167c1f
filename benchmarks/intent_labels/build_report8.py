"""Build the report sets (``report8/``): real model responses from files used by none of the
tuning sets or ``report2`` … ``report7``.

Same rules and row fields as ``build_report2.py`` (whose drawing code this reuses): verbatim
responses of at most 6,000 characters, empty responses and harness error texts skipped,
identical (response, options / golds) pairs kept once, rows whose (question, response) is in a
tuning set or an earlier report set dropped, round robin over the runs of each model, at most
10% bare answers per model, one seeded generator per family. See ``report8/README.md`` for
repository, commit, path and licence of each source.

    python benchmarks/intent_labels/build_report8.py --family mc --family open --family yesno \\
        --lawbench /tmp/LawBench --counterfactual /tmp/counterfactual-evaluation \\
        --out benchmarks/intent_labels/report8 [--readers DIR]

LawBench (open-compass/LawBench) commits the zero-shot predictions of 51 models on its 20
Chinese legal tasks (multiple choice and open answers); counterfactual-evaluation
(ZhaofengWu/counterfactual-evaluation) the cache of GPT-4, GPT-3.5, Claude 1.3 and PaLM 2
answers to whether a chess opening is legal (yes/no). Both are read at ``HEAD`` with
``git show`` (a checkout or a bare mirror).
Once the readers have written their labels, ``--labels DIR`` / ``--check-labels DIR`` gather
them into ``<family>_set_labels.jsonl`` / ``<family>_check_labels.jsonl`` (no parser runs).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from build_report2 import (
    BARE_SHARE,
    OLD_SETS,
    PER_FAMILY,
    SEED,
    _bare,
    _dedupe,
    _git,
    _git_paths,
    _kind,
    _old_pairs,
    _usable,
    build,
    write_family,
)
from build_report5 import add_label_options, merged_labels, require_sources

EARLIER = (OLD_SETS, *(OLD_SETS / f"report{k}" for k in range(2, 8)))

# LawBench tasks per family. Multiple choice: 1-2 (knowledge questions) and 3-6 (case
# analysis), four options each, from JEC-QA; 2-8 (argument mining: which of five defence
# statements answers the prosecution's), from CAIL2022. Open answers: 3-7 (the total sum of a
# crime, in yuan, LAIC2021) and 3-4 (the prison term in months, without the article, CAIL2018).
LAWBENCH_TASKS = {"mc": ["1-2", "3-6", "2-8"], "open": ["3-7", "3-4"]}
FAMILIES = ("mc", "open", "yesno")
# The unit each open task asks its answer in (the instruction says so).
LAWBENCH_UNITS = {"3-7": "元", "3-4": "月"}
# counterfactual-evaluation's chess runs: zero-shot chain of thought, and the answer alone.
CHESS_RUNS = ["with_0cot", "without_0cot"]
# Pretrained-only models (no instruction or chat tuning) continue the prompt, most often by
# repeating the instruction or writing further questions, rather than answer it: left out,
# so that the rows are answers of chat and instruction-tuned models (35 of the 51).
LAWBENCH_BASE_MODELS = frozenset({
    "baichuan-13b-base-hf", "baichuan-7b-hf", "chinese-llama-2-7b-hf", "internlm-7b-hf",
    "llama-13b", "llama-2-13b", "llama-2-70b", "llama-2-7b", "llama-30b", "llama-65b",
    "llama-7b", "moss-moon-003-base-hf", "mpt-7b-hf", "qwen-7b-hf", "tigerbot-base-7b-hf",
    "xverse-13b-hf"})
# Options written "A:…;B:…;C:…;D:…。" (JEC-QA) or "A:…B:…C:…D:…E:…" (argument mining) after the
# question; the instruction names the letters "A,B,C,D" without colons.
_OPTIONS = re.compile(r"A:(.*?)B:(.*?)C:(.*?)D:(.*?)(?:E:(.*))?$", re.S)
_GOLD_LETTER = re.compile(r"正确答案\]?[:：]?\s*([A-E])")
_GOLD_NUMBER = re.compile(r"(?:金额|刑期)[:：]\s*(\d+(?:\.\d+)?)(?:个月|元)")
_NOT_TEXT = re.compile(r"\\[nrt]|[\s\\'\"]")


def _bare_text(text: str) -> str:
    """``text`` without spaces, backslashes and quotes: the prediction files keep the prompt
    as the ``repr`` of the chat turns (escaped newlines and quotes)."""
    return _NOT_TEXT.sub("", text)


# --- sources --------------------------------------------------------------------------------

def lawbench_options(question: str) -> dict[str, str] | None:
    """The lettered options read off a LawBench question (``None`` if not all are there)."""
    found = _OPTIONS.search(question)
    if found is None:
        return None
    texts = [t for t in found.groups() if t is not None]
    return {"ABCDE"[k]: t.strip().rstrip(";；。").strip() for k, t in enumerate(texts)}


def lawbench_gold(family: str, answer: str) -> str | None:
    """The item's answer: its letter (multiple choice) or its number, ``8500.0`` written
    ``8500`` (open); ``None`` when the answer is not one (a life or death sentence)."""
    found = (_GOLD_LETTER if family == "mc" else _GOLD_NUMBER).search(answer)
    if found is None:
        return None
    return found.group(1).removesuffix(".0") if family == "open" else found.group(1)


def lawbench_rows(repo: Path, family: str) -> list[dict]:
    """Every model's zero-shot prediction on the family's tasks, joined by index to the task's
    data file (``instruction`` + newline + ``question``, as the prompt gave them)."""
    models = sorted({p.split("/")[2] for p in _git_paths(repo, "predictions/zero_shot")
                     if p.count("/") == 3} - LAWBENCH_BASE_MODELS)
    out = []
    for task in LAWBENCH_TASKS[family]:
        items = json.loads(_git(repo, f"data/zero_shot/{task}.json"))
        for model in models:
            predictions = json.loads(_git(repo, f"predictions/zero_shot/{model}/{task}.json"))
            for key, pred in predictions.items():
                item = items[int(key)]
                # the prediction file's prompt is the item's, in the model's chat template
                if _bare_text(item["question"][:40]) not in _bare_text(str(pred["origin_prompt"])):
                    raise ValueError(f"{model}/{task}/{key}: prompt is not the item's")
                response = pred.get("prediction")
                if not _usable(response):
                    continue
                question = f"{item['instruction']}\n{item['question']}"
                gold = lawbench_gold(family, item["answer"])
                if gold is None:
                    continue
                base = {"group": model, "source": f"lawbench:{model}/zero_shot/{task}",
                        "item": f"lawbench/{task}/{key}", "question": question,
                        "response": response}
                if family == "mc":
                    if choices := lawbench_options(item["question"]):
                        out.append({**base, "choices": choices})
                else:
                    out.append({**base, "golds": [gold], "answer_type": _kind(gold),
                                "unit": LAWBENCH_UNITS[task], "precision": None})
    return out


def chess_rows(repo: Path) -> list[dict]:
    """The yes/no answers of counterfactual-evaluation's chess task: "Is the new opening
    "1. e4 e6 2. Be2 Bc5" legal?" (in regular chess, or in a variant with knights and bishops
    swapped), asked of GPT-4, GPT-3.5, Claude 1.3 and PaLM 2 with and without "Let's think step
    by step:". The model-interaction files are the harness's cache: tab-separated prompt,
    response (both escaped), whether the response is a list of samples, model and settings;
    the "at which squares?" control questions are sampled lists and left out."""
    out = []
    for cot in CHESS_RUNS:
        for path in _git_paths(repo, f"chess/model_interactions/{cot}"):
            for line in _git(repo, path).splitlines():
                prompt, response, is_list, model = line.split("\t")[:4]
                if is_list != "False" or "new opening" not in prompt:
                    continue
                question, response = _unescape(prompt), _unescape(response)
                if not _usable(response):
                    continue
                opening = question.split('opening "', 1)[1].split('"', 1)[0]
                variant = "counterfactual" if "custom variant" in question else "real_world"
                model = model.removeprefix("models/")
                out.append({"group": model, "source": f"chess:{model}/{cot}",
                            "item": f"chess/{variant}/{opening}", "question": question,
                            "response": response})
    return out


def _unescape(text: str) -> str:
    """The harness's ``unicode_escape`` undone (characters beyond Latin-1 kept as they are)."""
    return text.encode("latin-1", "backslashreplace").decode("unicode_escape")


def quotas(rows: list[dict]) -> dict[str, int]:
    """Rows per model, as equal as the models allow: a model that has fewer usable rows (after
    the dedupe, bare answers counted up to the 10% cap) gives all it has, and the others share
    the rest (the first models in name order one more when it does not divide)."""
    usable = _dedupe(rows, _old_pairs(EARLIER))
    left = {m: 0 for m in sorted({r["group"] for r in usable})}
    bare = dict(left)
    for row in usable:
        if _bare(row["response"]):
            bare[row["group"]] += 1
        else:
            left[row["group"]] += 1
    out: dict[str, int] = {}
    todo = sorted(left)
    while todo:
        share, extra = divmod(PER_FAMILY - sum(out.values()), len(todo))
        short = [m for m in todo
                 if left[m] + min(bare[m], int(BARE_SHARE * share)) < share + 1]
        if not short:
            out.update({m: share + (k < extra) for k, m in enumerate(todo)})
            break
        for m in short:
            out[m] = left[m] + min(bare[m], int(BARE_SHARE * share))
            todo.remove(m)
    return {m: out[m] for m in sorted(out)}


# --- output -----------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=FAMILIES, action="append", required=True)
    parser.add_argument("--lawbench", type=Path, help="open-compass/LawBench checkout")
    parser.add_argument("--counterfactual", type=Path,
                        help="ZhaofengWu/counterfactual-evaluation checkout")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "report8")
    add_label_options(parser)
    args = parser.parse_args()
    if merged_labels(parser, args):
        return
    require_sources(parser, args, {"mc": ["lawbench"], "open": ["lawbench"],
                                   "yesno": ["counterfactual"]})
    args.out.mkdir(parents=True, exist_ok=True)
    for family in args.family:
        rows = (chess_rows(args.counterfactual) if family == "yesno"
                else lawbench_rows(args.lawbench, family))
        rows = build(family, rows, {family: quotas(rows)}, prefix="r8", old=EARLIER,
                     seed=f"{SEED}-report8-{family}")
        write_family(args.out, family, rows, args.readers)


if __name__ == "__main__":
    main()
