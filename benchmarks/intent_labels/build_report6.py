"""Build the report sets (``report6/``): real model responses from files used by none of the
tuning sets, ``report2``, ``report3``, ``report4`` or ``report5``.

Same rules and row fields as ``build_report2.py`` (whose drawing code this reuses): verbatim
responses of at most 6,000 characters, identical (response, options / golds) pairs kept once,
rows whose (question, response) is in a tuning set or an earlier report set dropped, round
robin over the runs of each repository, at most 10% bare answers per repository, one seeded
generator per family. See ``report6/README.md`` for repository, commit, path and licence of
each source.

    python benchmarks/intent_labels/build_report6.py --family mc --tempcompass /tmp/TempCompass \\
        --out benchmarks/intent_labels/report6

Checkouts (or bare mirrors) are read at ``HEAD`` with ``git show``. Once the readers have
written their labels, ``--labels DIR`` / ``--check-labels DIR`` gather them into
``<family>_set_labels.jsonl`` / ``<family>_check_labels.jsonl`` (no parser runs):

    python benchmarks/intent_labels/build_report6.py --family mc --family yesno --family open \\
        --labels /work/wt/readers12 --check-labels /work/wt/readers13

``--relabel DIR`` (with ``--labels``) puts a fresh reader's labels of re-read rows in place of
the second reader's (the re-read is kept as ``<family>_relabel_labels.jsonl``).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from build_report2 import (
    OLD_SETS,
    SEED,
    _git,
    _jsonl,
    _kind,
    _usable,
    bbh_rows,
    build,
    write_family,
)
from build_report3 import _zeroeval_files, _zeroeval_output
from build_report4 import _options
from build_report5 import (
    FAITHFUL_MODELS,
    FAITHFUL_PROMPTS,
    add_label_options,
    agreement,
    merge_labels,
    merged_labels,
    require_sources,
)
from build_sets import _write_jsonl

EARLIER = (OLD_SETS, OLD_SETS / "report2", OLD_SETS / "report3", OLD_SETS / "report4",
           OLD_SETS / "report5")

# TempCompass caption-matching predictions (video questions, two captions to choose from);
# reka-flash has no such file. report2 took the yes/no files, report4 the multiple-choice ones.
TEMPCOMPASS_MODELS = ["gemini", "reka-core-20240501", "video-llava"]
# ZeroEval tasks no earlier set took (report3 took gsm, math-l5 and alpaca_eval): CRUXEval
# output prediction (a Python literal) and numersense-v2 ("13.11 or 13.8 --- which one is
# bigger?"), zero-shot answers in ZeroEval's JSON format.
ZEROEVAL_TASKS = {"crux": "zeroeval-crux", "numersense-v2": "zeroeval-numersense"}
# The one BIG-Bench-Hard chain-of-thought task with a free-form answer that no earlier set took.
BBH_OPEN = {"dyck_languages": "text"}

# Rows per repository in each family, drawn in this order; ``None``: the rest of the family.
QUOTAS = {"mc": {"tempcompass": None},
          "yesno": {"faithful-cot": None},
          "open": {"bbh": 420, "zeroeval-numersense": 840, "zeroeval-crux": None}}


# --- sources --------------------------------------------------------------------------------

# "Sentence A: …" / "Caption A: …" (the third kind, "Option 1: …", is numbered, not lettered).
_CAPTION_OPTION = re.compile(r"^(?:Sentence|Caption) ([A-Z]):\s*(.*)$")


def tempcompass_caption_rows(repo: Path) -> list[dict]:
    """TempCompass caption-matching predictions whose options are lettered (``Sentence A:`` /
    ``Caption A:`` lines of the question)."""
    out = []
    for model in TEMPCOMPASS_MODELS:
        data = json.loads(_git(repo, f"predictions/{model}/caption_matching.json"))
        for video, dims in data.items():
            for dim, rows in dims.items():
                for k, row in enumerate(rows):
                    choices = _options(row["question"].splitlines()[1:], _CAPTION_OPTION)
                    if _usable(row.get("prediction")) and choices and all(choices.values()):
                        out.append({"group": "tempcompass", "source": f"tempcompass:{model}",
                                    "item": f"tempcompass/{video}/{dim}/caption{k}",
                                    "question": row["question"], "choices": choices,
                                    "response": row["prediction"]})
    return out


def faithful_sports_rows(repo: Path) -> list[dict]:
    """Faithful-COT's natural-language runs on sports understanding; the question is the
    prompts' last turn ("Is the following statement plausible? "…""), as the model saw it."""
    items = {row["id"]: row for row in _jsonl(_git(repo, "data/sports/test.jsonl"))}
    out = []
    for model in FAITHFUL_MODELS:
        for prompt in FAITHFUL_PROMPTS:
            run = f"{model}_{prompt}"
            for row in _jsonl(_git(repo, f"output_dir/sports/test/{run}/predictions.jsonl")):
                item = items.get(row["id"])
                if item is not None and _usable(row.get("completion")):
                    out.append({"group": "faithful-cot", "source": f"faithful-cot:{run}/sports",
                                "item": f"faithful-cot/sports/{item['id']}",
                                "question": f'Is the following statement plausible? "{item["question"]}"',
                                "response": row["completion"]})
    return out


def zeroeval_open_rows(repo: Path) -> list[dict]:
    """ZeroEval answers of every model to CRUXEval output prediction and numersense-v2."""
    out = []
    for task, group in ZEROEVAL_TASKS.items():
        for model, data in _zeroeval_files(repo, task):
            for row in data:
                if (response := _zeroeval_output(row)) is None:
                    continue
                gold = str(row["answer"]).strip()
                out.append({"group": group, "source": f"zeroeval:{model}/{task}",
                            "item": f"zeroeval/{task}/{row['id']}", "question": row["question"],
                            "golds": [gold], "answer_type": _kind(gold), "unit": None,
                            "precision": None, "response": response})
    return out


def gather(family: str, args: argparse.Namespace) -> list[dict]:
    if family == "mc":
        return tempcompass_caption_rows(args.tempcompass)
    if family == "yesno":
        return faithful_sports_rows(args.faithful_cot)
    rows = bbh_rows(args.bbh, BBH_OPEN)
    for row in rows:  # BIG-Bench-Hard gives no unit or precision
        row.update(unit=None, precision=None)
    return rows + zeroeval_open_rows(args.zeroeval)


# --- readers' labels --------------------------------------------------------------------------

def relabel(out: Path, family: str, directory: Path, check: bool) -> None:
    """Put a fresh reader's labels of re-read rows (``directory``'s
    ``<family>_part*.labels.jsonl``) in place of the second reader's in
    ``<family>_set_labels.jsonl``; the re-read itself is kept as
    ``<family>_relabel_labels.jsonl``. Prints what changed, and the third reader's agreement
    with the labels as they now are when ``check``."""
    if not any(directory.glob(f"{family}_part*.labels.jsonl")):
        return
    fresh = merge_labels(out, family, directory, "relabel_labels")
    path = out / f"{family}_set_labels.jsonl"
    old = {r["id"]: r["label"] for r in _jsonl(path.read_text(encoding="utf-8"))}
    _write_jsonl(path, [{"id": i, "label": fresh.get(i, label)} for i, label in old.items()])
    same, changed = agreement(old, fresh)
    print(family, "re-read", len(fresh), "same as the second reader", same, "changed", changed)
    if check:
        third = {r["id"]: r["label"] for r in _jsonl(
            (out / f"{family}_check_labels.jsonl").read_text(encoding="utf-8"))}
        same, differ = agreement({**old, **fresh}, third)
        print(family, "third reader against the labels now", same, "differ", differ)


# --- output -----------------------------------------------------------------------------------

def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--family", choices=sorted(QUOTAS), action="append", required=True)
    parser.add_argument("--tempcompass", type=Path, help="llyx97/TempCompass checkout")
    parser.add_argument("--faithful-cot", type=Path, help="veronica320/Faithful-COT checkout")
    parser.add_argument("--bbh", type=Path, help="suzgunmirac/BIG-Bench-Hard checkout")
    parser.add_argument("--zeroeval", type=Path, help="yuchenlin/ZeroEval checkout")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "report6")
    add_label_options(parser)
    parser.add_argument("--relabel", type=Path, help="with --labels: a fresh reader's labels "
                        "of re-read rows, which replace the second reader's")
    args = parser.parse_args()
    if args.relabel and not args.labels:
        parser.error("--relabel needs --labels (the second reader's labels it corrects)")
    if merged_labels(parser, args):
        for family in args.family if args.relabel else []:
            try:
                relabel(args.out, family, args.relabel, bool(args.check_labels))
            except ValueError as error:
                parser.error(str(error))
        return
    needed = {"mc": ["tempcompass"], "yesno": ["faithful_cot"], "open": ["bbh", "zeroeval"]}
    require_sources(parser, args, needed)
    args.out.mkdir(parents=True, exist_ok=True)
    for family in args.family:
        rows = build(family, gather(family, args), QUOTAS, prefix="r6", old=EARLIER,
                     seed=f"{SEED}-report6-{family}")
        write_family(args.out, family, rows, args.readers)


if __name__ == "__main__":
    main()
